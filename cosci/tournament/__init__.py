"""The Elo tournament's mathematics: ratings, pair and mode selection, verdict parsing, stability (seed 000 §4)."""
