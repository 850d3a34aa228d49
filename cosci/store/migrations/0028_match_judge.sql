-- design.md#judges: the judge tier (models.tiers) that judged a match; NULL for matches recorded before it was kept.
ALTER TABLE tournament_matches ADD COLUMN judge TEXT;
