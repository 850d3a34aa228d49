"""``cosci eval moose-chem`` (issue 20): benchmark items, the session runner, the baseline, the judge, metrics,
report."""
