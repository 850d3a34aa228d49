-- Batched-match statuses (design.md#batches): `dropped` (errored or expired in a batch collected after the session
-- stopped; not played) and `unsent` (still queued when the session stopped without a last batch: never sent, never
-- paid for). SQLite cannot change a CHECK constraint in place, so the table is rebuilt with its rows kept (as
-- 0003 does for sessions); no other table refers to it.
CREATE TEMP TABLE batched_matches_before_0027 AS SELECT * FROM batched_matches;
DROP TABLE batched_matches;
CREATE TABLE batched_matches (
    match_id       TEXT PRIMARY KEY,              -- the match id it will be applied under
    session_id     TEXT NOT NULL REFERENCES sessions(id),
    task_id        TEXT NOT NULL,                 -- the RunTournamentRound task that queued it
    match_index    INTEGER NOT NULL,              -- its index within that task
    hyp_a          TEXT NOT NULL REFERENCES hypotheses(id),
    hyp_b          TEXT NOT NULL REFERENCES hypotheses(id),
    request        TEXT NOT NULL,                 -- JSON: action, system blocks, user prompt
    batch_task_id  TEXT,                          -- the MatchBatch task that took it
    batch_id       TEXT,                          -- the provider's batch id once submitted
    status         TEXT NOT NULL CHECK (status IN ('queued','submitted','applied','direct','refused','dropped',
                                                   'unsent')),
    created_at     REAL NOT NULL,
    updated_at     REAL NOT NULL
);
INSERT INTO batched_matches SELECT * FROM batched_matches_before_0027;
DROP TABLE batched_matches_before_0027;
CREATE INDEX batched_matches_batch ON batched_matches(session_id, batch_task_id, status);
