"""Resume through the service: the frozen configuration's own rules run before the engine starts."""

from __future__ import annotations

from typing import Any

import pytest

from cosci import api
from cosci.config.schema import CosciConfig
from cosci.errors import CosciError
from cosci.llm.fake.provider import FakeBackend
from tests.test_cli import open_only


async def test_a_resume_whose_tracking_server_is_gone_is_refused_before_the_engine(
        config: CosciConfig, fake: FakeBackend, monkeypatch: pytest.MonkeyPatch) -> None:
    sid = await open_only(config)
    started: list[Any] = []
    monkeypatch.setattr("flows.launch.run_session", lambda *a, **kw: started.append(kw))
    session = api.open(sid, config.paths.data_dir)
    with pytest.raises(CosciError, match=r"^tracking\.tracking_uri: no MLflow server answers at http://127\.0\.0\.1:9"):
        session.resume(["tracking.enabled=true", "tracking.tracking_uri=http://127.0.0.1:9"])
    assert started == []
    resumed = session.resume()  # the same session with its own (untracked) configuration goes to the engine
    assert resumed.plan == "run" and started and started[0]["resume_id"] == sid
