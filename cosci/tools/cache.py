"""The on-disk HTTP response cache of one session (design.md#tools): the same request never goes out twice.

A key is the SHA-256 of method + URL + sorted query parameters + sorted JSON body, with secrets (API keys)
left out so the key does not depend on them. Each entry is one small JSON file,
``<directory>/<key[:2]>/<key>.json``, written atomically (temporary file + rename), holding the status,
content type, redirect location and the decoded text body. Only answers worth replaying are stored (the
caller decides: 2xx and 3xx); an unreadable entry counts as a miss.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

SECRET_NAMES = frozenset({"api_key", "apikey"})
"""Parameter and body field names never written into a cache key."""


@dataclass(frozen=True)
class CachedResponse:
    """A replayable HTTP answer: ``text`` is the decoded body (at most the client's byte cap)."""

    status: int
    url: str
    content_type: str
    text: str
    location: str | None = None
    truncated: bool = False


def cache_key(method: str, url: str, params: Mapping[str, Any] | None = None,
              json_body: Mapping[str, Any] | None = None, secrets: Iterable[str] = SECRET_NAMES) -> str:
    """The hex SHA-256 key of a request (secrets excluded, parameters sorted)."""
    hidden = {s.lower() for s in secrets}
    shown_params = sorted((str(k), str(v)) for k, v in (params or {}).items() if str(k).lower() not in hidden)
    shown_body = {k: v for k, v in (json_body or {}).items() if str(k).lower() not in hidden}
    blob = json.dumps([method.upper(), url, shown_params, shown_body], sort_keys=True, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class ResponseCache:
    """Plain-file response cache under ``directory`` (created on first write)."""

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> CachedResponse | None:
        """The stored answer for ``key``, or None (missing or unreadable)."""
        try:
            data = json.loads(self._path(key).read_text(encoding="utf-8"))
            return CachedResponse(**data)
        except (OSError, ValueError, TypeError):
            return None

    def put(self, key: str, response: CachedResponse) -> None:
        """Store ``response`` under ``key``; a failed write is ignored (the cache is an optimisation)."""
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        except OSError:
            return
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(asdict(response), fh, ensure_ascii=False)
            os.replace(tmp, path)
        except OSError:
            Path(tmp).unlink(missing_ok=True)
