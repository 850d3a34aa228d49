"""Prefect flows: one session as a flow, every agent action a cached, retried task (design.md#caching), and
deployments (design.md#deployment).

Call :func:`flows.env.prepare` before importing :mod:`flows.session`: Prefect reads its settings at import.
"""
