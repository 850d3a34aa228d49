"""Terminal output: the live progress display."""
