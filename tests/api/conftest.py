"""Service tests run whole sessions in this process on the flow tests' Prefect test server."""

from tests.flows.conftest import prefect_server  # noqa: F401
