-- Long calls (design.md#long-calls): per call attempt, the first-token latency of a streamed call and the
-- output speed, so the conservative speeds a tier is configured with can be checked against what it did.
ALTER TABLE transcripts ADD COLUMN first_token_seconds REAL;        -- seconds to the first streamed output; NULL: not streamed
ALTER TABLE transcripts ADD COLUMN output_tokens_per_second REAL;   -- output tokens / seconds after the first token
