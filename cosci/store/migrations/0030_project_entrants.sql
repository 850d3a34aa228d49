-- design.md#projects: a hypothesis carried into this session from an earlier session of its project, with the
-- session and hypothesis it came from and the final rating it had there.
CREATE TABLE project_entrants (
    hypothesis_id     TEXT PRIMARY KEY REFERENCES hypotheses(id),
    session_id        TEXT NOT NULL REFERENCES sessions(id),
    project           TEXT NOT NULL,
    origin_session    TEXT NOT NULL,
    origin_hypothesis TEXT NOT NULL,
    origin_elo        REAL NOT NULL,
    origin_rank       INTEGER NOT NULL
);
