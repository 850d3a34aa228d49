-- The offline safety screen (docs/design.md#safety-screen): what it found on each screened text, the model's own
-- answer (on a tier unable to classify it is recorded, never acted on), and a disagreement between the two
-- (the screen would refuse, a capable classifier did not).
ALTER TABLE safety_verdicts ADD COLUMN screen TEXT NOT NULL DEFAULT '{}';   -- JSON: decision, category, score, hits...
ALTER TABLE safety_verdicts ADD COLUMN model_decision TEXT;                -- the classifier's answer (null: no answer)
ALTER TABLE safety_verdicts ADD COLUMN disagreement INTEGER NOT NULL DEFAULT 0;
