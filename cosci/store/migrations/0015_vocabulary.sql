-- codemod: keep-file (this migration names the old words it rewrites)
-- The vocabulary renames (design.md#vocabulary): a store made before them is rewritten in today's words, so the
-- session opens, resumes and reports. Ids are kept (task, match and review ids are referenced across the store),
-- and so is each older task's Prefect cache identity (tasks.cache_spec): a resumed session replays the actions
-- that finished before the renames instead of paying for them again (design.md#caching).
ALTER TABLE tasks ADD COLUMN cache_spec TEXT;  -- JSON agent, action, target_id, payload as enqueued, NULL since
UPDATE tasks SET cache_spec = json_object('agent', agent, 'action', action, 'target_id', target_id,
                                          'payload', json(payload));
-- the goal-parsing agent is named for its job (supervisor is the scheduling package)
UPDATE tasks SET agent = 'goal_parsing',
                 idempotency_key = replace(idempotency_key, '::supervisor::parse_goal', '::goal_parsing::parse_goal')
 WHERE agent = 'supervisor';
UPDATE transcripts SET agent = 'goal_parsing' WHERE agent = 'supervisor';
UPDATE events SET agent = 'goal_parsing' WHERE agent = 'supervisor';
-- a tournament batch is a round (a batch is a provider's Message Batch)
UPDATE tasks SET action = 'RunTournamentRound',
                 idempotency_key = replace(idempotency_key, '::ranking::batch::', '::ranking::round::')
 WHERE action = 'RunTournamentBatch';
UPDATE tasks SET payload = json_set(json_remove(payload, '$.round'), '$.poll', json_extract(payload, '$.round'))
 WHERE action = 'MatchBatch' AND json_extract(payload, '$.round') IS NOT NULL;
-- an agent's sub-action is its mode: reflection's kind, generation's and evolution's strategy
UPDATE tasks SET payload = json_set(json_remove(payload, '$.kind'), '$.mode', json_extract(payload, '$.kind'))
 WHERE json_extract(payload, '$.kind') IS NOT NULL;
UPDATE tasks SET payload = json_set(json_remove(payload, '$.strategy'), '$.mode',
                                    json_extract(payload, '$.strategy'))
 WHERE json_extract(payload, '$.strategy') IS NOT NULL;
ALTER TABLE hypotheses RENAME COLUMN strategy TO mode;
ALTER TABLE reviews RENAME COLUMN kind TO mode;
-- hypothesis, not idea, in what a researcher reads
UPDATE sessions SET stop_reason = 'max_hypotheses' WHERE stop_reason = 'max_ideas';
