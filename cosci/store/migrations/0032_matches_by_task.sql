-- docs/design.md#scale: a tournament round reads the matches an earlier attempt of its task played (by task id)
-- before every match; without an index that read scans every match row of the session (10,000 at scale).
CREATE INDEX IF NOT EXISTS matches_task ON tournament_matches(session_id, task_id, created_at);
