-- design.md#researcher-ratings, design.md#experimental-results: a rating or a result the researcher withdrew stays
-- in the record, marked with when (`cosci rate --withdraw RR-...`, `cosci result --withdraw O-...`); a result keeps
-- the state it moved its hypothesis from (NULL: it moved none), so that its withdrawal restores that state.
ALTER TABLE researcher_ratings ADD COLUMN withdrawn_at REAL;
ALTER TABLE observations ADD COLUMN withdrawn_at REAL;
ALTER TABLE observations ADD COLUMN moved_from TEXT;
