-- design.md#tournament: presentation order, dual-order judging, draws, and the Bradley–Terry fit beside Elo.
ALTER TABLE tournament_matches ADD COLUMN first_shown TEXT;                   -- id shown as hypothesis 1
ALTER TABLE tournament_matches ADD COLUMN dual_order INTEGER NOT NULL DEFAULT 0; -- judged in both orders
ALTER TABLE tournament_matches ADD COLUMN draw INTEGER NOT NULL DEFAULT 0;       -- the orders disagreed
ALTER TABLE tournament_matches ADD COLUMN verdicts TEXT NOT NULL DEFAULT '[]';   -- per order: first, winner

CREATE TABLE bt_ratings (
    session_id     TEXT NOT NULL REFERENCES sessions(id),
    hypothesis_id  TEXT NOT NULL REFERENCES hypotheses(id),
    bt_score       REAL NOT NULL,                -- log-strength, logits
    bt_ci_low      REAL NOT NULL,                -- 95 % CI (Laplace)
    bt_ci_high     REAL NOT NULL,
    verdicts       INTEGER NOT NULL,             -- valid verdicts the fit used
    fitted_at      REAL NOT NULL,
    PRIMARY KEY (session_id, hypothesis_id)
);
