-- cosci session store, version 1. Tables and columns follow design.md#store
-- "SQLite Schema"; the Prefect result cache and MLflow run are kept elsewhere, this is the scientific record.
CREATE TABLE sessions (
    id               TEXT PRIMARY KEY,
    status           TEXT NOT NULL CHECK (status IN ('running','paused','aborting','done','failed')),
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

CREATE TABLE hypotheses (
    id                   TEXT PRIMARY KEY,       -- 'H-' + sha256(session || origin || statement)[:12]
    session_id           TEXT NOT NULL REFERENCES sessions(id),
    title                TEXT NOT NULL,
    statement            TEXT NOT NULL,
    mechanism            TEXT NOT NULL,
    entities             TEXT NOT NULL DEFAULT '[]',
    anticipated_outcomes TEXT NOT NULL DEFAULT '',
    novelty_argument     TEXT NOT NULL DEFAULT '',
    citations            TEXT NOT NULL DEFAULT '[]',
    strategy             TEXT NOT NULL,
    parent_ids           TEXT NOT NULL DEFAULT '[]',
    elo                  REAL NOT NULL,
    matches_played       INTEGER NOT NULL DEFAULT 0,
    wins                 INTEGER NOT NULL DEFAULT 0,
    state                TEXT NOT NULL CHECK (state IN
                           ('draft','reviewed','in_tournament','pinned','quarantined','rejected','retired')),
    dedup_cluster        INTEGER,
    created_by_task      TEXT,
    created_at           REAL NOT NULL
);
CREATE INDEX hypotheses_session ON hypotheses(session_id, state);

CREATE TABLE reviews (
    id                 TEXT PRIMARY KEY,
    session_id         TEXT NOT NULL REFERENCES sessions(id),
    hypothesis_id      TEXT NOT NULL REFERENCES hypotheses(id),
    task_id            TEXT,
    kind               TEXT NOT NULL CHECK (kind IN ('full','verification','observation','simulation')),
    verdict            TEXT NOT NULL,
    novelty            REAL,
    correctness        REAL,
    testability        REAL,
    feasibility        REAL,
    assumptions        TEXT NOT NULL DEFAULT '[]',
    evidence           TEXT NOT NULL DEFAULT '[]',
    notes              TEXT NOT NULL DEFAULT '',
    weakest_assumption TEXT,
    kill_experiment    TEXT,
    article            TEXT,                     -- JSON of the article an observation review used
    created_at         REAL NOT NULL
);
CREATE INDEX reviews_hypothesis ON reviews(hypothesis_id);

CREATE TABLE tournament_matches (
    id             TEXT PRIMARY KEY,             -- deterministic: sha256(hyp_a || hyp_b || task id || index)
    session_id     TEXT NOT NULL REFERENCES sessions(id),
    task_id        TEXT,
    hyp_a          TEXT NOT NULL REFERENCES hypotheses(id),
    hyp_b          TEXT NOT NULL REFERENCES hypotheses(id),
    mode           TEXT NOT NULL CHECK (mode IN ('pairwise','debate')),
    winner         TEXT,                         -- NULL when the verdict was invalid
    verdict_valid  INTEGER NOT NULL,
    k_factor       REAL,
    elo_a_before   REAL NOT NULL,
    elo_b_before   REAL NOT NULL,
    elo_a_after    REAL NOT NULL,
    elo_b_after    REAL NOT NULL,
    rationale      TEXT NOT NULL DEFAULT '',
    transcript     TEXT NOT NULL DEFAULT '[]',
    created_at     REAL NOT NULL
);
CREATE INDEX matches_session ON tournament_matches(session_id, created_at);

CREATE TABLE elo_journal (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id  TEXT NOT NULL REFERENCES sessions(id),
    match_id    TEXT NOT NULL UNIQUE REFERENCES tournament_matches(id),
    hyp_a       TEXT NOT NULL,
    hyp_b       TEXT NOT NULL,
    delta_a     REAL NOT NULL,
    delta_b     REAL NOT NULL,
    created_at  REAL NOT NULL
);

CREATE TABLE tasks (
    id               TEXT PRIMARY KEY,
    session_id       TEXT NOT NULL REFERENCES sessions(id),
    agent            TEXT NOT NULL,
    action           TEXT NOT NULL,
    target_id        TEXT,
    payload          TEXT NOT NULL DEFAULT '{}',
    priority         INTEGER NOT NULL DEFAULT 100,
    status           TEXT NOT NULL CHECK (status IN
                       ('pending','leased','in_progress','done','failed','dead','cancelled')),
    lease_owner      TEXT,
    lease_expires_at REAL,
    idempotency_key  TEXT NOT NULL UNIQUE,
    attempts         INTEGER NOT NULL DEFAULT 0,
    max_attempts     INTEGER NOT NULL DEFAULT 3,
    last_error       TEXT,
    result           TEXT,                       -- JSON TaskResult once done
    created_at       REAL NOT NULL,
    updated_at       REAL NOT NULL
);
CREATE INDEX tasks_claim ON tasks(session_id, status, priority, created_at);

CREATE TABLE transcripts (
    seq                INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id         TEXT NOT NULL REFERENCES sessions(id),
    task_id            TEXT,
    agent              TEXT NOT NULL,
    action             TEXT NOT NULL,
    mode               TEXT NOT NULL,
    model              TEXT NOT NULL,
    attempt            INTEGER NOT NULL,
    outcome            TEXT NOT NULL,            -- ok | retry:<kind> | error:<kind>
    input_tokens       INTEGER NOT NULL DEFAULT 0,
    output_tokens      INTEGER NOT NULL DEFAULT 0,
    cache_read_tokens  INTEGER NOT NULL DEFAULT 0,
    cache_write_tokens INTEGER NOT NULL DEFAULT 0,
    cost_usd           REAL NOT NULL DEFAULT 0,
    latency_seconds    REAL NOT NULL DEFAULT 0,
    request            TEXT,
    response           TEXT,
    error              TEXT,
    created_at         REAL NOT NULL
);
CREATE INDEX transcripts_task ON transcripts(task_id);

CREATE TABLE system_feedback (
    id          TEXT PRIMARY KEY,
    session_id  TEXT NOT NULL REFERENCES sessions(id),
    source      TEXT NOT NULL CHECK (source IN ('human','meta_review')),
    kind        TEXT NOT NULL CHECK (kind IN ('directive','preference','rejection','pin','system_feedback')),
    text        TEXT NOT NULL,
    payload     TEXT NOT NULL DEFAULT '{}',
    target_id   TEXT,
    created_at  REAL NOT NULL
);

CREATE TABLE embeddings_meta (
    hypothesis_id TEXT PRIMARY KEY REFERENCES hypotheses(id),
    session_id    TEXT NOT NULL REFERENCES sessions(id),
    model         TEXT NOT NULL,
    dim           INTEGER NOT NULL,
    faiss_offset  INTEGER NOT NULL,
    text_hash     TEXT NOT NULL,
    vector        BLOB NOT NULL,               -- float32 little-endian; the FAISS index is rebuilt from these
    created_at    REAL NOT NULL
);

CREATE TABLE events (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id  TEXT NOT NULL REFERENCES sessions(id),
    agent       TEXT,
    event       TEXT NOT NULL,
    payload     TEXT NOT NULL DEFAULT '{}',
    created_at  REAL NOT NULL
);
