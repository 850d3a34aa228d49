"""Prefect flows: one session as a flow, every agent action a cached, retried task (issue 6), deployments (issue 7).

Call :func:`flows.env.prepare` before importing :mod:`flows.session`: Prefect reads its settings at import.
"""
