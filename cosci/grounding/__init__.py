"""Grounding (design.md#grounding): excerpts checked against what tools returned, and the claims of the final overview
checked against the store. No framework imports; deterministic (no LLM call)."""
