"""The flow tests' Prefect servers and MLflow store (``prefect_server``, ``prefect_api_url``, ``mlflow_uri``) are
fixtures of ``tests/conftest.py``: one of each per worker for every folder (docs/design.md#tests)."""
