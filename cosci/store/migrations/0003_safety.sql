-- Safety screening (design.md#safety): the `refused` session status and the classifier's verdicts.
--
-- SQLite cannot change a CHECK constraint in place, so the sessions table is rebuilt with its rows kept: the
-- rows are copied aside, the table is dropped and created again with `refused` allowed, and the rows are put
-- back. Foreign keys from the other tables stay on: `defer_foreign_keys` postpones their check to the commit,
-- when every session row is back (the pragma resets itself at the commit). A migration adding a column to
-- `sessions` must come after this one (the copy keeps every column of version 1).
PRAGMA defer_foreign_keys = ON;
CREATE TEMP TABLE sessions_before_0003 AS SELECT * FROM sessions;
DROP TABLE sessions;
CREATE TABLE sessions (
    id               TEXT PRIMARY KEY,
    status           TEXT NOT NULL CHECK (status IN ('running','paused','aborting','done','failed','refused')),
    research_goal    TEXT NOT NULL,
    research_plan    TEXT,                       -- JSON record_research_plan
    config_snapshot  TEXT NOT NULL,              -- JSON, frozen at creation
    overrides        TEXT NOT NULL DEFAULT '[]', -- JSON list of Hydra overrides
    models_choice    TEXT NOT NULL,
    budget_usd       REAL NOT NULL,
    budget_tokens    INTEGER,
    wall_clock_seconds REAL NOT NULL,
    elapsed_seconds  REAL NOT NULL DEFAULT 0,    -- active time accumulated across resumes
    stop_reason      TEXT,
    final_overview   TEXT,
    mlflow_run_id    TEXT,
    created_at       REAL NOT NULL,
    updated_at       REAL NOT NULL
);
INSERT INTO sessions SELECT * FROM sessions_before_0003;
DROP TABLE sessions_before_0003;

CREATE TABLE safety_verdicts (
    id             TEXT PRIMARY KEY,            -- 'V-' + sha256(session || subject || subject_id || text)[:12]
    session_id     TEXT NOT NULL REFERENCES sessions(id),
    subject        TEXT NOT NULL CHECK (subject IN ('goal','hypothesis','overview','feedback')),
    subject_id     TEXT,                        -- the H-id (hypothesis), null otherwise
    decision       TEXT NOT NULL CHECK (decision IN ('allow','flag','block')),
    categories     TEXT NOT NULL DEFAULT '[]',  -- JSON list, from safety.categories
    rationale      TEXT NOT NULL DEFAULT '',
    prescreen      TEXT NOT NULL DEFAULT '[]',  -- JSON list of pre-screen notes
    acted          INTEGER NOT NULL DEFAULT 0,  -- 1: the decision acted (refused, quarantined, withheld)
    model          TEXT,
    task_id        TEXT,
    withheld_text  TEXT,                        -- a withheld overview (never logged to MLflow)
    created_at     REAL NOT NULL
);
CREATE INDEX safety_verdicts_subject ON safety_verdicts(session_id, subject, subject_id);
