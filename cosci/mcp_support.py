"""What ``cosci mcp`` (:mod:`cosci.mcp_server`) does without the MCP SDK: the session readers its tools return (a
finished session's status line, the leaderboard, one hypothesis; read-only, design.md#mcp-server), the check of
the HTTP port before it listens, the goal's check before a session starts, and what a request line the SDK cannot
read is answered."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cosci.errors import CosciError
from cosci.session.folder import SessionFolder
from cosci.store.standing import shown, standing

MAX_BUDGET_USD = 10_000.0
"""The largest ``budget_usd`` a tool takes: a cap beyond it is a typo more often than a plan."""


def ended(folder: SessionFolder, status: str) -> str:
    """``status``, and for a refused or failed session its stop reason (and a refused goal's verdict line, a failed
    session's error line, as ``cosci status`` shows it: :func:`cosci.session.status.failed_because`)."""
    from cosci.session.status import failed_because

    if status not in ("refused", "failed"):
        return status
    with folder.store(read_only=True) as store:
        reason = store.sessions.get().stop_reason
        verdict = store.safety.latest("goal") if status == "refused" else None
        because = failed_because(store) if status == "failed" else ""
    return f"{status}: {reason or 'no stop reason recorded'}{because}" + (f"; {verdict.line()}" if verdict else "")


def leaderboard(folder: SessionFolder) -> list[dict[str, Any]]:
    """The current standing (design.md#report): rank, id, title, BT score, Elo, matches, state."""
    with folder.store(read_only=True) as store:
        current = standing(store)
        by_id = {h.id: shown(h) for h in store.hypotheses.all()}
        rows = []
        for rank, e in enumerate([*current.ranked, *current.apart], 1):
            h = by_id[e.id]
            rows.append({"rank": rank if rank <= len(current.ranked) else None, "id": e.id, "title": h.title,
                         "bt_score": e.bt_text() or None, "elo": round(h.elo, 1), "state": h.state})
        return rows


def hypothesis(folder: SessionFolder, hid: str) -> dict[str, Any]:
    """One hypothesis (as every reader outside the store shows it), its reviews and its falsification contract.

    Raises:
        CosciError: the session holds no hypothesis ``hid`` (one line naming the argument).
    """
    with folder.store(read_only=True) as store:
        found = next((h for h in store.hypotheses.all() if h.id.lower() == hid.lower()), None)
        if found is None:
            raise CosciError(f"hypothesis_id: {hid} is not a hypothesis of session {folder.session_id}")
        h = shown(found)
        reviews = [{"mode": r.mode, "verdict": r.verdict, "scores": r.scores}
                   for r in store.hypotheses.reviews() if r.hypothesis_id == h.id] if h.state != "quarantined" else []
        return {"id": h.id, "title": h.title, "statement": h.statement, "mechanism": h.mechanism,
                "state": h.state, "elo": h.elo, "citations": h.citations, "reviews": reviews,
                "falsification": {"decisive_experiment": h.decisive_experiment, "predicted_result": h.predicted_result,
                                  "refuting_result": h.refuting_result}}


def check_port(port: int) -> None:
    """Raises CosciError (one line, exit 2) when 127.0.0.1:``port`` cannot be listened on (taken, not a port), as
    ``cosci serve`` says it; the SDK's server would print uvicorn's error and exit with 3, the refusal's code."""
    import socket

    if not 0 < port < 65536:
        raise CosciError(f"--http {port}: give a TCP port, 1-65535")
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds: a port in TIME_WAIT is free
        try:
            sock.bind(("127.0.0.1", port))
        except OSError as exc:
            raise CosciError(f"--http {port}: cannot listen there ({exc.strerror or exc}); choose another port") \
                from None


__all__ = ["check_port", "ended", "hypothesis", "leaderboard"]


def goal_refusal(goal: str, overrides: list[str], data_dir: Path) -> str | None:
    """What ``cosci run`` checks before its session starts, without starting it: the session service's prepare and
    pre-flight, then the offline goal screen when it decides the verdict (a safety tier ``unable_to_classify``;
    on a capable tier the classifier decides, in the session). Returns the refusal line, or None.

    Raises:
        CosciError, ConfigError: the configuration or a pre-flight rule refuses (its one line:
            :class:`cosci.mcp_server.Server` says it as the tool's error)."""
    from cosci import api
    from cosci.safety.classifier import acts, screening_on
    from cosci.safety.screen import screen_for

    config = api.preflight(api.prepare(goal, overrides, data_dir=data_dir, given_as="goal")).prepared.config
    if not screening_on(config) or config.safety is None:
        return None
    if not config.models.tiers[config.tier_of("safety", "classify")].unable_to_classify:
        return None
    result = screen_for(config.safety).check(goal, subject="goal")
    if not acts(config, "goal", result.decision):
        return None
    return f"goal refused by safety screening, {result.decision}: {result.line()} (no session was started)"


def unreadable(exc: Exception) -> tuple[str | int | None, str]:
    """``(id, message)`` of JSON-RPC's parse error for a request line the MCP SDK could not read, from the error it
    passed on (pydantic's, whose input is the line): the line's ``id`` when Python's parser reads one (it takes a
    lone surrogate, ``"\\udcff"``, that pydantic's refuses), else None, as JSON-RPC answers an unreadable request."""
    errors_of = getattr(exc, "errors", None)
    errors = errors_of() if callable(errors_of) else []
    line = errors[0].get("input") if errors and isinstance(errors[0], dict) else None
    why = str(errors[0].get("msg", exc)) if errors and isinstance(errors[0], dict) else str(exc)
    try:
        found = json.loads(line).get("id") if isinstance(line, str | bytes) else None
    except (ValueError, AttributeError):
        found = None
    kept = found if isinstance(found, str) or (isinstance(found, int) and not isinstance(found, bool)) else None
    return kept, f"the request line is not valid JSON-RPC: {' '.join(why.split())[:200]}; nothing was run"
