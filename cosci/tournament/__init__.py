"""The Elo tournament's mathematics: ratings, pair and mode selection, verdict parsing, stability
(design.md#tournament)."""
