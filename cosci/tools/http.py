"""Polite async HTTP for the network tools: one :class:`ApiClient` per API (design.md#tools).

Owns, for every request a tool makes:

* offline mode (``tools.offline``): :class:`SourceError` of kind ``"offline"`` before anything goes out;
* the session's on-disk response cache (:mod:`cosci.tools.cache`): a hit makes no request;
* a per-API rate limit (requests per second, reserved in order, so concurrent callers queue politely);
* bounded retries on HTTP 429, 5xx and read timeouts with exponential backoff and jitter, honouring
  ``Retry-After`` (seconds or an HTTP date) up to ``max_delay_seconds`` (tenacity); a longer ``Retry-After``
  ends the retries at once;
* a byte cap on every body (streamed; the rest is dropped and ``truncated`` set);
* turning every transport failure into one :class:`SourceError` line (DNS failure, refused connection,
  4xx, exhausted retries), which tools turn into error results. Nothing else escapes.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

import httpx
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception_type,
    stop_after_attempt,
    wait_exponential_jitter,
)

from cosci.errors import CosciError
from cosci.net import parse_retry_after
from cosci.tools.cache import CachedResponse, ResponseCache, cache_key
from cosci.tools.pacing import RateLimiter

ErrorKind = Literal["offline", "unavailable", "failed"]
USER_AGENT = "cosci/0.1 (AI co-scientist; literature tools; python-httpx)"
_Parsed = TypeVar("_Parsed")


class SourceError(CosciError):
    """An expected failure of a source; ``str(err)`` is one line.

    Attributes:
        kind: ``"offline"`` (offline mode), ``"unavailable"`` (unreachable: DNS, refused, timeouts, 429/5xx
            after the retries) or ``"failed"`` (the source answered, but unusably: 4xx, bad body).
    """

    def __init__(self, message: str, kind: ErrorKind = "failed") -> None:
        super().__init__(message)
        self.kind = kind


class _Retryable(Exception):
    def __init__(self, reason: str, retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.retry_after = retry_after


@dataclass(frozen=True)
class HttpPolicy:
    """Timeouts and retry policy of the tool clients (tests shrink the delays).

    Attributes:
        attempts: tries per request, first included (429, 5xx and read timeouts are retried).
        base_delay_seconds: first backoff delay, seconds; also the jitter bound.
        max_delay_seconds: backoff cap, seconds; a longer ``Retry-After`` is not waited for.
        connect_timeout_seconds: TCP/TLS connect timeout, seconds.
        read_timeout_seconds: read/write/pool timeout, seconds.
        rate_limits: apply the per-API rate limits (off only in tests).
        max_bytes: default body cap, bytes.
    """

    attempts: int = 3
    base_delay_seconds: float = 1.0
    max_delay_seconds: float = 8.0
    connect_timeout_seconds: float = 5.0
    read_timeout_seconds: float = 15.0
    rate_limits: bool = True
    max_bytes: int = 5_000_000


@dataclass(frozen=True)
class HttpResponse(CachedResponse):
    """A response with a status below 400 (3xx only when the client does not follow redirects)."""

    def json(self) -> Any:
        """The body as JSON. Raises: SourceError ("failed") when it is not JSON."""
        try:
            return json.loads(self.text)
        except ValueError as exc:
            raise SourceError(f"the response is not valid JSON ({exc})") from None


def parse_body(parse: Callable[[Any], _Parsed], body: Any) -> _Parsed:
    """``parse(body)``, a source's body parser applied to a response body (its JSON or text).

    Raises:
        SourceError: ("failed") the parser's ValueError (the body is not the answer the source documents).
    """
    try:
        return parse(body)
    except ValueError as exc:
        raise SourceError(str(exc)) from None


def describe(exc: BaseException) -> str:
    """A short cause for a transport error (``ConnectError: [Errno -3] ...``)."""
    text = str(exc).strip() or exc.__class__.__name__
    return f"{exc.__class__.__name__}: {text}"[:200]


class ApiClient:
    """One source's HTTP client: cache, rate limit, retries, byte cap (see module docstring).

    Args:
        name: the source named in error messages (``"PubMed"``).
        rate_per_second: polite request rate, requests/s (None = unlimited).
        policy: retry and timeout policy.
        cache: the session's response cache (None = no cache).
        offline: refuse every request (``tools.offline``).
        follow_redirects: follow 3xx itself; False returns 3xx responses (web_fetch re-checks every hop).
        secrets: values (API keys) never repeated in an error message.
        keepalive: reuse connections; web_fetch turns it off because its requests go to pinned IPs, and a
            pooled TLS connection to one IP must not carry another host's request.
    """

    def __init__(self, name: str, rate_per_second: float | None, policy: HttpPolicy,
                 cache: ResponseCache | None, *, offline: bool = False,
                 follow_redirects: bool = True, keepalive: bool = True, secrets: Sequence[str] = ()) -> None:
        self.name = name
        self.policy = policy
        self.cache = cache
        self.offline = offline
        self.follow_redirects = follow_redirects
        self.keepalive = keepalive
        self.secrets = tuple(s for s in secrets if s)
        self.limiter = RateLimiter(rate_per_second if policy.rate_limits else None)
        self.requests_sent = 0
        self._http: httpx.AsyncClient | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._locks: dict[str, asyncio.Lock] = {}

    def _bind_loop(self) -> None:
        loop = asyncio.get_running_loop()
        if self._loop is not loop:  # an httpx pool and asyncio locks belong to one event loop
            self._http, self._locks, self._loop = None, {}, loop

    def _client(self) -> httpx.AsyncClient:
        if self._http is None:
            policy = self.policy
            timeout = httpx.Timeout(policy.read_timeout_seconds, connect=policy.connect_timeout_seconds)
            limits = httpx.Limits(max_keepalive_connections=20 if self.keepalive else 0)
            self._http = httpx.AsyncClient(timeout=timeout, follow_redirects=self.follow_redirects,
                                           limits=limits, headers={"User-Agent": USER_AGENT})
        return self._http

    def lookup(self, method: str, url: str, params: Mapping[str, Any] | None = None,
               json_body: Mapping[str, Any] | None = None) -> HttpResponse | None:
        """The cached answer to this request, or None; makes no request."""
        if self.cache is None:
            return None
        hit = self.cache.get(cache_key(method, url, params, json_body))
        if hit is None:
            return None
        return HttpResponse(hit.status, hit.url, hit.content_type, hit.text, hit.location, hit.truncated)

    async def request(self, method: str, url: str, *, params: Mapping[str, Any] | None = None,
                      headers: Mapping[str, str] | None = None, json_body: Mapping[str, Any] | None = None,
                      extensions: Mapping[str, Any] | None = None, cache_url: str | None = None,
                      max_bytes: int | None = None) -> HttpResponse:
        """Send one request (cache first), retrying per the policy.

        Identical concurrent requests are serialised, so the second one is answered from the cache.

        Args:
            cache_url: the URL the cache key uses instead of ``url`` (web_fetch sends to a pinned IP).
            max_bytes: body cap, bytes (default ``policy.max_bytes``).

        Returns:
            The response (status < 400), from the cache when the same request was answered before.

        Raises:
            SourceError: offline, unreachable, 4xx, or 429/5xx after the retries.
        """
        if self.offline:
            raise SourceError("offline mode: no network requests are made", "offline")
        self._bind_loop()
        key_url = cache_url or url
        key = cache_key(method, key_url, params, json_body)
        async with self._locks.setdefault(key, asyncio.Lock()):
            cached = self.lookup(method, key_url, params, json_body)
            if cached is not None:
                return cached
            resp = await self._send(method, url, params, headers, json_body, extensions,
                                    max_bytes or self.policy.max_bytes, key_url)
            if self.cache is not None:
                stored = CachedResponse(resp.status, resp.url, resp.content_type, resp.text, resp.location,
                                        resp.truncated)
                self.cache.put(key, stored)
            return resp

    async def _send(self, method: str, url: str, params: Mapping[str, Any] | None,
                    headers: Mapping[str, str] | None, json_body: Mapping[str, Any] | None,
                    extensions: Mapping[str, Any] | None, max_bytes: int, shown_url: str) -> HttpResponse:
        retrying = AsyncRetrying(stop=stop_after_attempt(self.policy.attempts), wait=self._wait,
                                 retry=retry_if_exception_type(_Retryable), reraise=True)
        try:
            async for attempt in retrying:
                with attempt:
                    return await self._attempt(method, url, params, headers, json_body, extensions, max_bytes,
                                               shown_url)
        except _Retryable as exc:
            raise SourceError(f"{exc} after {self.policy.attempts} attempts", "unavailable") from None
        raise AssertionError("unreachable: tenacity either returns or raises")

    def _wait(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        if isinstance(exc, _Retryable) and exc.retry_after is not None:
            return exc.retry_after
        base = self.policy.base_delay_seconds
        return wait_exponential_jitter(initial=base, max=self.policy.max_delay_seconds, jitter=base)(state)

    async def _attempt(self, method: str, url: str, params: Mapping[str, Any] | None,
                       headers: Mapping[str, str] | None, json_body: Mapping[str, Any] | None,
                       extensions: Mapping[str, Any] | None, max_bytes: int, shown_url: str) -> HttpResponse:
        """One try. ``shown_url`` (no query string, so no API key) is what messages and the cache record."""
        slot = await self.limiter.wait()
        shown_host = httpx.URL(shown_url).host
        self.requests_sent += 1
        try:
            async with self._client().stream(method, url, params=params, headers=headers, json=json_body,
                                              extensions=dict(extensions or {})) as resp:
                if resp.status_code == 429 or resp.status_code >= 500:
                    self._raise_retryable(resp, shown_host)
                body, truncated = await _read_capped(resp, max_bytes)
        except httpx.ConnectTimeout as exc:
            raise SourceError(f"cannot connect ({describe(exc)})", "unavailable") from None
        except (httpx.TimeoutException, httpx.RemoteProtocolError, httpx.ReadError) as exc:
            raise _Retryable(describe(exc)) from None
        except httpx.ConnectError as exc:  # nothing reached the API: its rate slot is given back (pacing.py)
            self.limiter.refund(slot)
            raise SourceError(f"cannot connect ({describe(exc)})", "unavailable") from None
        except httpx.HTTPError as exc:
            raise SourceError(f"cannot connect ({describe(exc)})", "unavailable") from None
        text = _decode(body, resp.charset_encoding)
        if resp.status_code >= 400:
            raise SourceError(f"HTTP {resp.status_code} from {shown_host}: {self._scrub(text)}")
        return HttpResponse(resp.status_code, shown_url, resp.headers.get("content-type", ""), text,
                            resp.headers.get("location"), truncated)

    def _scrub(self, body: str) -> str:
        """The start of an error body, one line, with the client's secrets (API keys) blanked."""
        text = " ".join(body.split())[:200]
        for secret in self.secrets:
            text = text.replace(secret, "[redacted]")
        return text

    def _raise_retryable(self, resp: httpx.Response, shown_host: str) -> None:
        retry_after = parse_retry_after(resp.headers.get("retry-after"))
        reason = f"HTTP {resp.status_code} from {shown_host}"
        if retry_after is not None and retry_after > self.policy.max_delay_seconds:
            raise SourceError(f"{reason} (Retry-After {retry_after:.0f} s)", "unavailable")
        raise _Retryable(reason, retry_after)

    async def aclose(self) -> None:
        """Close the connection pool (safe to call twice, or when never used)."""
        http, self._http = self._http, None
        if http is not None:
            with contextlib.suppress(RuntimeError):  # its event loop is gone
                await http.aclose()


async def _read_capped(resp: httpx.Response, max_bytes: int) -> tuple[bytes, bool]:
    chunks: list[bytes] = []
    size = 0
    async for chunk in resp.aiter_bytes():
        chunks.append(chunk)
        size += len(chunk)
        if size > max_bytes:
            return b"".join(chunks)[:max_bytes], True
    return b"".join(chunks), False


def _decode(body: bytes, charset: str | None) -> str:
    try:
        return body.decode(charset or "utf-8", errors="replace")
    except LookupError:
        return body.decode("utf-8", errors="replace")
