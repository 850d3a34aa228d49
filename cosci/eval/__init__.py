"""``cosci eval moose-chem`` (design.md#eval): benchmark items, the session runner, the baseline, the judge, metrics,
report."""
