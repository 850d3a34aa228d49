"""Two first runs in one new Prefect home (issue 12): the server start is serialised per home by a file lock,
a failed start is one line naming its log, and the server's own errors stay in that log."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from flows.server import ServerStartFailed, TemporaryServer, first_start_lock

ROOT = Path(__file__).resolve().parents[2]


def test_the_lock_serialises_starts_on_one_home(tmp_path: Path) -> None:
    order: list[str] = []

    def second() -> None:
        with first_start_lock(tmp_path):
            order.append("second")

    with first_start_lock(tmp_path):
        t = threading.Thread(target=second)
        t.start()
        time.sleep(0.5)
        order.append("first done")
    t.join(5)
    assert order == ["first done", "second"]


@pytest.mark.slow
def test_a_failed_start_is_one_line_with_the_servers_error_in_its_log(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PREFECT_SERVER_DATABASE_CONNECTION_URL", "sqlite+aiosqlite:////nonexistent/dir/prefect.db")
    with pytest.raises(ServerStartFailed) as err:
        TemporaryServer(tmp_path).start()
    message = str(err.value)
    assert "\n" not in message and message.endswith(f"see {tmp_path / 'server.log'}")
    assert "(" in message  # the server's last error line is quoted
    assert (tmp_path / "server.log").read_text().strip()  # its errors are kept, not silenced


STARTER = """
import sys
from pathlib import Path
from flows.server import TemporaryServer
server = TemporaryServer(Path(sys.argv[1]))
print(server.start(), flush=True)
server.stop()
"""


@pytest.mark.slow
def test_two_first_starts_on_a_fresh_home_both_answer(tmp_path: Path) -> None:
    home = tmp_path / "prefect"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    # no migrated template database in this user cache: the two starts really migrate one new home
    env.update(PYTHONPATH=str(ROOT), PREFECT_SERVER_ANALYTICS_ENABLED="false", XDG_CACHE_HOME=str(tmp_path / "cache"))
    procs = [subprocess.Popen([sys.executable, "-c", STARTER, str(home)], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [p.communicate(timeout=400) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [o[1][-1500:] for o in outs]
    assert all(o[0].startswith("http://127.0.0.1:") for o in outs)
    assert "duplicate column" not in (home / "server.log").read_text()


@pytest.mark.slow
def test_a_new_home_starts_from_the_migrated_template(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 11, fast start: the first server on a new home migrates its database (22 s measured here, 6.6 s on
    a migrated one) and keeps a copy in the user cache; the next new home starts from that copy."""
    from flows.server import DB_FILE, template_db

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("PREFECT_API_DATABASE_CONNECTION_URL", raising=False)
    assert not template_db().exists()
    first = TemporaryServer(tmp_path / "a")
    first.start()
    first.stop()
    assert template_db().is_file() and str(template_db()).startswith(str(tmp_path / "cache"))
    second = TemporaryServer(tmp_path / "b")
    second.launch()
    assert (tmp_path / "b" / DB_FILE).is_file()  # seeded before the server process ran
    second.wait_ready()
    second.stop()
    template = template_db().stat().st_mtime_ns
    third = TemporaryServer(tmp_path / "b")  # a migrated home is used as it is; the template is not rewritten
    third.start()
    third.stop()
    assert template_db().stat().st_mtime_ns == template
