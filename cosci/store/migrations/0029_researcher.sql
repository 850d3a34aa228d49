-- design.md#researcher-ratings, design.md#experimental-results: what the researcher said about hypotheses
-- (a preference between two, or a 1-5 score) and the lab's results on them (observations).
CREATE TABLE researcher_ratings (
    id            TEXT PRIMARY KEY,
    session_id    TEXT NOT NULL REFERENCES sessions(id),
    kind          TEXT NOT NULL CHECK (kind IN ('preference','score')),
    hyp_a         TEXT NOT NULL REFERENCES hypotheses(id),
    hyp_b         TEXT REFERENCES hypotheses(id),
    prefer        TEXT CHECK (prefer IN ('a','b','tie')),
    score         INTEGER CHECK (score BETWEEN 1 AND 5),
    why           TEXT NOT NULL DEFAULT '',
    created_at    REAL NOT NULL
);
CREATE INDEX researcher_ratings_session ON researcher_ratings(session_id, kind);

CREATE TABLE observations (
    id            TEXT PRIMARY KEY,
    session_id    TEXT NOT NULL REFERENCES sessions(id),
    hypothesis_id TEXT NOT NULL REFERENCES hypotheses(id),
    outcome       TEXT NOT NULL CHECK (outcome IN ('supported','refuted','inconclusive')),
    measures      TEXT NOT NULL DEFAULT '{}',
    notes         TEXT NOT NULL DEFAULT '',
    file_path     TEXT,
    file_sha256   TEXT,
    created_at    REAL NOT NULL
);
CREATE INDEX observations_session ON observations(session_id, hypothesis_id);
