"""The scripted fake's message-batch endpoint, for tests of the ranking batch pool (design.md#batches).

It behaves like Anthropic's Message Batches as :class:`cosci.llm.batches.batch_gateway.BatchEndpoint` sees them:
``create`` returns a batch id (``fakebatch_<n>``), ``ended`` is false until the batch was polled
``models.fake.batch_polls`` times, and ``results`` answers every request with the fake's own answer
(:meth:`FakeBackend.respond`, so scripts and the autopilot apply) in Anthropic's result shape, or ends them all as
``models.fake.batch_outcome`` (``errored``, ``expired``). With ``models.fake.batch_dir`` set, batches live in JSON
files there and every create / poll / results is appended to ``<batch_dir>/log.jsonl``, so a killed process's batch
can be polled by the resumed one and a test can count submissions.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

from cosci.llm.fake.provider import FAKE, FakeBackend
from cosci.llm.responses import flatten_content

_MEMORY: dict[str, dict[str, Any]] = {}
_LOCK = threading.Lock()


class FakeBatches:
    """The fake batch endpoint over :data:`cosci.llm.fake.provider.FAKE`."""

    def __init__(self, backend: FakeBackend = FAKE) -> None:
        self.backend = backend

    @property
    def folder(self) -> Path | None:
        return Path(self.backend.cfg.batch_dir) if self.backend.cfg.batch_dir else None

    def _load(self, batch_id: str) -> dict[str, Any]:
        if self.folder is None:
            return _MEMORY[batch_id]
        return dict(json.loads((self.folder / f"{batch_id}.json").read_text(encoding="utf-8")))

    def _save(self, batch: dict[str, Any]) -> None:
        if self.folder is None:
            _MEMORY[batch["id"]] = batch
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / f"{batch['id']}.json"
        path.with_suffix(".tmp").write_text(json.dumps(batch), encoding="utf-8")
        path.with_suffix(".tmp").replace(path)

    def _log(self, op: str, batch_id: str, **extra: Any) -> None:
        if self.folder is None:
            return
        with (self.folder / "log.jsonl").open("a", encoding="utf-8") as fh:
            fh.write(json.dumps({"t": time.time(), "op": op, "batch_id": batch_id, **extra}) + "\n")

    def log(self) -> list[dict[str, Any]]:
        """Every create / poll / results so far (with ``batch_dir`` set), oldest first."""
        path = self.folder / "log.jsonl" if self.folder else None
        if path is None or not path.exists():
            return []
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]

    async def create(self, requests: list[dict[str, Any]]) -> str:
        with _LOCK:
            existing = sorted(self.folder.glob("fakebatch_*.json")) if self.folder and self.folder.exists() else []
            n = len(existing) + len(_MEMORY) + 1
            batch_id = f"fakebatch_{n:04d}_{time.time_ns() % 10**6:06d}"
            self._save({"id": batch_id, "requests": requests, "polls": 0})
        self._log("create", batch_id, custom_ids=[r["custom_id"] for r in requests])
        return batch_id

    async def ended(self, batch_id: str) -> bool:
        with _LOCK:
            batch = self._load(batch_id)
            batch["polls"] += 1
            self._save(batch)
        self._log("poll", batch_id, polls=batch["polls"])
        return bool(batch["polls"] >= self.backend.cfg.batch_polls)

    async def results(self, batch_id: str) -> list[dict[str, Any]]:
        batch = self._load(batch_id)
        self._log("results", batch_id)
        outcome = self.backend.cfg.batch_outcome
        if outcome != "succeeded":
            return [{"custom_id": r["custom_id"], "result": {"type": outcome}} for r in batch["requests"]]
        return [{"custom_id": r["custom_id"], "result": {"type": "succeeded", "message": await self._answer(r)}}
                for r in batch["requests"]]

    async def _answer(self, request: dict[str, Any]) -> dict[str, Any]:
        params = request["params"]
        model = f"cosci-fake/{params['model']}"
        system = {"role": "system", "content": "\n\n".join(b["text"] for b in params.get("system", []))}
        messages = [system, *params["messages"]]
        raw = await self.backend.respond(model, messages, {}, request.get("meta") or {})
        usage = raw.usage
        return {"type": "message", "role": "assistant", "model": params["model"], "stop_reason": "end_turn",
                "content": [{"type": "text", "text": flatten_content(raw.choices[0].message.content)}],
                "usage": {"input_tokens": int(usage.prompt_tokens), "output_tokens": int(usage.completion_tokens),
                          "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}}
