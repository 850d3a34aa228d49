-- design.md#grounding (auditability): the system message of every call, stored once per distinct text. It carries the
-- safety preamble, the research goal and the researcher's directives that reached the prompt; it repeats across
-- calls, so transcripts point at it by hash instead of copying it.
CREATE TABLE system_prompts (
    sha256      TEXT PRIMARY KEY,                 -- sha256 of the stored JSON text
    session_id  TEXT NOT NULL REFERENCES sessions(id),
    content     TEXT NOT NULL,                    -- JSON: the system message's content blocks as sent
    created_at  REAL NOT NULL
);
ALTER TABLE transcripts ADD COLUMN system_sha256 TEXT REFERENCES system_prompts(sha256);
