"""Budget economics, no framework: the token budget (admission and settlement against the cap and
the agents' shares) and the expected answer lengths it admits by.
"""
