"""``web_fetch``: read one web page as text (design.md#tools).

Every hop goes through the SSRF guard (:mod:`cosci.tools.ssrf`): http(s) only, public addresses only, the
request pinned to the checked address. Redirects are followed here, at most :data:`MAX_REDIRECTS`, each new
URL checked again. The body is capped at ``tools.fetch_max_bytes`` bytes; only HTML, text, JSON and XML are
read (a PDF or an image is refused with a clear error). HTML becomes text with trafilatura (main content;
the whole page's text when no main content is found); the text is capped at ``tools.fetch_max_chars``
characters. Answers come from the session cache when the same URL was fetched before.
"""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import urljoin

import trafilatura

from cosci.llm.port.types import ToolSpec
from cosci.tools import ssrf
from cosci.tools.base import Source, ToolResult
from cosci.tools.catalog import BuildContext
from cosci.tools.common import ArgumentError, ToolBase
from cosci.tools.http import ApiClient, HttpResponse, SourceError
from cosci.tools.sources import url_keys
from cosci.tools.ssrf import UnsafeUrl

MAX_REDIRECTS = 5
RATE = 4.0
"""Requests/s sent by web_fetch, all hosts together."""
TEXT_TYPES = ("text/", "application/json", "application/xml", "application/xhtml+xml", "application/ld+json")
HTML_TYPES = ("text/html", "application/xhtml+xml")
ACCEPT = "text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.8,application/xml;q=0.8"

SPEC = ToolSpec(
    name="web_fetch",
    description=(
        "Fetch one public web page (http or https) and read its main text: an article page, a dataset or "
        "trial record, documentation. Only HTML, plain text, JSON and XML are read (no PDFs or images); long "
        "pages are cut. Use it on URLs found by the search tools."
    ),
    parameters={
        "type": "object",
        "properties": {"url": {"type": "string", "description": "The full http(s) URL to read."}},
        "required": ["url"],
        "additionalProperties": False,
    },
)


def is_readable(content_type: str) -> bool:
    """Whether a Content-Type is one web_fetch reads (HTML, text, JSON, XML; missing counts as HTML)."""
    media = content_type.split(";", 1)[0].strip().lower()
    return (not media or media.startswith(TEXT_TYPES) or media.endswith(("+json", "+xml")))


def extract_text(body: str, content_type: str, url: str) -> str:
    """The readable text of a body: trafilatura for HTML, the body itself otherwise."""
    media = content_type.split(";", 1)[0].strip().lower()
    if media and not media.startswith(HTML_TYPES):
        return body.strip()
    text = trafilatura.extract(body, url=url, include_comments=False, include_tables=True, favor_recall=True)
    if not text:
        text = trafilatura.html2txt(body)
    return (text or "").strip()


class WebFetch(ToolBase):
    """The ``web_fetch`` tool (see module docstring).

    Args:
        client: an :class:`ApiClient` built with ``follow_redirects=False``.
        max_bytes: body cap, bytes (``tools.fetch_max_bytes``).
        max_chars: text cap, characters (``tools.fetch_max_chars``).
    """

    spec = SPEC

    def __init__(self, client: ApiClient, *, max_bytes: int, max_chars: int, offline: bool = False) -> None:
        super().__init__(offline=offline)
        self.client = client
        self.max_bytes = max_bytes
        self.max_chars = max_chars

    async def __call__(self, arguments: dict[str, Any]) -> ToolResult:
        if self.offline:
            return self.offline_error()
        try:
            url = arguments.get("url")
            if not isinstance(url, str) or not url.strip():
                raise ArgumentError("'url' must be a non-empty string")
            final, hops, resp = await self._follow(url.strip())
            if not is_readable(resp.content_type):
                media = resp.content_type.split(";")[0]
                raise SourceError(f"{final} is {media}, not HTML, text, JSON or XML")
            text = await asyncio.to_thread(extract_text, resp.text, resp.content_type, final)
        except (SourceError, ArgumentError, UnsafeUrl) as exc:
            return self.handle(exc)
        page = Source(url=final, text=text[: self.max_chars], tool=self.name,
                            ids=tuple(sorted(k for k in url_keys(final) if ":" in k and "//" not in k)))
        shown = self._format(url.strip(), final if hops else None, resp, text)
        # the page is the one citable record (also under the URL asked for); links inside it are not
        # (design.md#grounding)
        asked = Source(url=url.strip(), text=page.text, ids=page.ids, tool=self.name)
        return self.result(shown, [page] if hops == 0 else [page, asked])

    async def _follow(self, url: str) -> tuple[str, int, HttpResponse]:
        """The final URL, the number of redirects followed, and the final response."""
        current = str(ssrf.parse_http_url(url))
        for hops in range(MAX_REDIRECTS + 1):
            resp = self.client.lookup("GET", current) or await self._get(current)
            if 300 <= resp.status < 400:
                if not resp.location:
                    raise SourceError(f"HTTP {resp.status} redirect without a Location from {current}")
                current = str(ssrf.parse_http_url(urljoin(current, resp.location)))
                continue
            return current, hops, resp
        raise SourceError(f"more than {MAX_REDIRECTS} redirects starting at {url}")

    async def _get(self, url: str) -> HttpResponse:
        target = await ssrf.check_url(url)
        extensions = {"sni_hostname": target.sni_hostname} if target.sni_hostname else None
        return await self.client.request("GET", target.pinned_url, cache_url=target.url,
                                         headers={"Host": target.host_header, "Accept": ACCEPT},
                                         extensions=extensions, max_bytes=self.max_bytes)

    def _format(self, url: str, final: str | None, resp: HttpResponse, text: str) -> str:
        lines = [f"web_fetch: {url}"]
        if final:
            lines.append(f"Final URL (after redirects): {final}")
        size = f"{len(resp.text.encode('utf-8'))} bytes"
        size += " (truncated at the byte cap)" if resp.truncated else ""
        lines.append(f"Content-Type: {resp.content_type or 'unknown'}; {size}")
        if len(text) > self.max_chars:
            text = text[: self.max_chars] + f"\n[... cut at {self.max_chars} characters]"
        lines.append("")
        lines.append(text or "(no readable text on this page)")
        return "\n".join(lines)


def build(ctx: BuildContext) -> WebFetch:
    """The session's page reader (``tools.fetch_max_bytes``, ``tools.fetch_max_chars``)."""
    cfg = ctx.config.tools
    return WebFetch(ctx.client("web", RATE, web=True), max_bytes=cfg.fetch_max_bytes, max_chars=cfg.fetch_max_chars,
                    offline=ctx.offline)
