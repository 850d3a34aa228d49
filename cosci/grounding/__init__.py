"""Grounding: excerpts checked against what tools returned, and the claims of the final overview traced,
guarded and given the status that says what was checked (``docs/design.md#excerpt-verification``,
``#claim-statuses``). No framework imports and no model calls: the support check's calls are made by
:mod:`cosci.agents.claim_check`, its answers judged here."""
