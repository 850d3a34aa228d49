-- design.md#projects: a project's memory across its sessions. Rows are copied from each session's store
-- (ProjectStore.sync, one transaction per session); session_id names the session a row came from.
CREATE TABLE project_sessions (
    session_id   TEXT PRIMARY KEY,
    goal         TEXT NOT NULL,
    status       TEXT NOT NULL,
    stop_reason  TEXT,
    created_at   REAL NOT NULL,
    synced_at    REAL NOT NULL
);

CREATE TABLE project_hypotheses (
    session_id        TEXT NOT NULL REFERENCES project_sessions(session_id),
    hypothesis_id     TEXT NOT NULL,
    title             TEXT NOT NULL,
    statement         TEXT NOT NULL,
    mechanism         TEXT NOT NULL,
    mode              TEXT NOT NULL,
    state             TEXT NOT NULL,
    elo               REAL NOT NULL,
    rank              INTEGER,
    matches_played    INTEGER NOT NULL,
    bt_score          REAL,
    latest_verdict    TEXT,
    citations         TEXT NOT NULL DEFAULT '[]',
    parent_ids        TEXT NOT NULL DEFAULT '[]',
    dedup_cluster     INTEGER,
    origin_session    TEXT,
    origin_hypothesis TEXT,
    record            TEXT NOT NULL,
    PRIMARY KEY (session_id, hypothesis_id)
);

CREATE TABLE project_ratings (
    session_id  TEXT NOT NULL REFERENCES project_sessions(session_id),
    rating_id   TEXT NOT NULL,
    kind        TEXT NOT NULL,
    hyp_a       TEXT NOT NULL,
    hyp_b       TEXT,
    prefer      TEXT,
    score       INTEGER,
    why         TEXT NOT NULL,
    created_at  REAL NOT NULL,
    PRIMARY KEY (session_id, rating_id)
);

CREATE TABLE project_observations (
    session_id     TEXT NOT NULL REFERENCES project_sessions(session_id),
    observation_id TEXT NOT NULL,
    hypothesis_id  TEXT NOT NULL,
    outcome        TEXT NOT NULL,
    measures       TEXT NOT NULL,
    notes          TEXT NOT NULL,
    file_path      TEXT,
    file_sha256    TEXT,
    created_at     REAL NOT NULL,
    PRIMARY KEY (session_id, observation_id)
);

CREATE TABLE rejected_directions (
    session_id    TEXT NOT NULL REFERENCES project_sessions(session_id),
    hypothesis_id TEXT NOT NULL,
    title         TEXT NOT NULL,
    statement     TEXT NOT NULL,
    reason        TEXT NOT NULL CHECK (reason IN ('disproved','already_explained','refuted','rejected')),
    why           TEXT NOT NULL,
    PRIMARY KEY (session_id, hypothesis_id)
);
