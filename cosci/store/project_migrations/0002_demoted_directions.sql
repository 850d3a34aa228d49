-- design.md#projects: one meaning per state word. A rejected direction is a hypothesis in the rejected state (a
-- result refuted it, or the researcher rejected it); one whose latest review is disproved or already_explained
-- stays in its tournament and is a demoted direction, kept in its own table. Rows an older sync wrote move over.
CREATE TABLE demoted_directions (
    session_id    TEXT NOT NULL REFERENCES project_sessions(session_id),
    hypothesis_id TEXT NOT NULL,
    title         TEXT NOT NULL,
    statement     TEXT NOT NULL,
    reason        TEXT NOT NULL CHECK (reason IN ('disproved','already_explained')),
    why           TEXT NOT NULL,
    PRIMARY KEY (session_id, hypothesis_id)
);
INSERT INTO demoted_directions SELECT * FROM rejected_directions WHERE reason IN ('disproved','already_explained');
DELETE FROM rejected_directions WHERE reason IN ('disproved','already_explained');
