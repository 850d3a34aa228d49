-- docs/design.md#falsification: every hypothesis says which experiment decides it, the result predicted if it holds and
-- the result that would refute it ('' for hypotheses recorded before the contract).
ALTER TABLE hypotheses ADD COLUMN decisive_experiment TEXT NOT NULL DEFAULT '';
ALTER TABLE hypotheses ADD COLUMN predicted_result TEXT NOT NULL DEFAULT '';
ALTER TABLE hypotheses ADD COLUMN refuting_result TEXT NOT NULL DEFAULT '';

-- docs/design.md#prior-work: a full review's statement of whether the hypothesis differs from each record of its
-- nearest prior work (JSON list of {source, differs, how}; NULL before it was kept).
ALTER TABLE reviews ADD COLUMN prior_work TEXT;

-- docs/design.md#prior-work: the records nearest a hypothesis found by the novelty search before its full review,
-- best first (rank 1), with their similarity, the measure it was computed with and a one-line reason. A search that
-- found nothing stores no row; the event `prior_work_searched` says what was searched and what answered.
CREATE TABLE prior_work (
    session_id     TEXT NOT NULL REFERENCES sessions(id),
    hypothesis_id  TEXT NOT NULL REFERENCES hypotheses(id),
    rank           INTEGER NOT NULL,
    source_id      TEXT NOT NULL,
    url            TEXT NOT NULL,
    title          TEXT NOT NULL DEFAULT '',
    text           TEXT NOT NULL DEFAULT '',
    tool           TEXT NOT NULL DEFAULT '',
    ids            TEXT NOT NULL DEFAULT '[]',
    similarity     REAL NOT NULL,
    measure        TEXT NOT NULL,
    reason         TEXT NOT NULL,
    task_id        TEXT,
    created_at     REAL NOT NULL,
    PRIMARY KEY (hypothesis_id, rank)
);
CREATE INDEX prior_work_session ON prior_work(session_id, hypothesis_id);
