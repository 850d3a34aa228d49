-- Batched tournament matches (design.md#batches). A match whose pair lies in the bottom decile
-- of the leaderboard is queued here instead of being played at once; a ranking MatchBatch task submits the
-- queued matches as one provider batch and keeps the batch id on its task row, so a killed session resumes by
-- polling the same batch and never submits it twice. Elo is applied through tournament_matches / elo_journal
-- as for any match (UNIQUE(match_id) there: applied once).
ALTER TABLE tasks ADD COLUMN batch_id TEXT;

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
    status         TEXT NOT NULL CHECK (status IN ('queued','submitted','applied','direct','refused')),
    created_at     REAL NOT NULL,
    updated_at     REAL NOT NULL
);
CREATE INDEX batched_matches_batch ON batched_matches(session_id, batch_task_id, status);
