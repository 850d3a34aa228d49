"""What keeps the web UI safe by default (docs/web.md, design.md#web): the access token, the cross-site request
check of every form, the upload cap and the sanitiser every model text goes through.

- **Token.** Bound to 127.0.0.1 the UI needs none; bound to any other address it refuses to start without one
  (:func:`check_bind`). With a token, a request carries it as ``?token=`` once (a cookie then keeps it,
  ``HttpOnly``, ``SameSite=Strict``) or as ``Authorization: Bearer``.
- **Cross-site requests.** Every form carries the server's secret (:attr:`Guard.csrf`, made fresh at each start);
  a POST without it, or whose ``Origin`` names another site than the one it was sent to, is refused with 403.
- **DNS rebinding.** A request's ``Host`` must name the address the server is bound to (:func:`allowed_hosts`,
  :func:`host_ok`): on loopback ``127.0.0.1``, ``localhost`` or ``[::1]``; a page of another site whose name was
  made to resolve to this machine sends its own name and is refused with 400.
- **Uploads.** At most :data:`UPLOAD_CAP_BYTES` (design.md#web); a larger body is refused before it is read.
- **Model text.** Markdown rendered by markdown-it-py with raw HTML off, then cleaned by nh3 (Rust ``ammonia``) to
  an allow-list of tags, no ``on*`` handler, no ``style``, links only ``http(s)``, no image (an image would be an
  external resource): :func:`markdown`, :func:`clean`.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from markupsafe import Markup

from cosci.errors import CosciError
from cosci.hosts import is_loopback

UPLOAD_CAP_BYTES = 10 * 1024 * 1024
"""The largest data file a result may carry through the web UI, 10 MiB (design.md#web: the file is kept inside
the session's folder, which is copied whole by a backup or a project export; a lab's measurement table or a
plate-reader export fits, a raw image stack belongs in the lab's own storage, named in the notes)."""
FORM_OVERHEAD_BYTES = 64 * 1024
"""Room for the other fields and the multipart framing around an upload (bytes)."""
TOKEN_COOKIE = "cosci_token"
CSRF_FIELD = "csrf"
ALLOWED_TAGS = {"p", "br", "em", "strong", "code", "pre", "ul", "ol", "li", "blockquote", "a", "h1", "h2", "h3",
                "h4", "h5", "h6", "table", "thead", "tbody", "tr", "th", "td", "hr", "del", "sub", "sup"}
"""What rendered model text may keep: text structure only (no img, no iframe, no form, no script, no style)."""


def check_bind(host: str, token: str | None) -> None:
    """Raises CosciError (one line) when ``host`` is not a loopback address and no ``token`` was given, or the
    token is too short to guess at (design.md#web)."""
    if token is not None and len(token) < 16:
        raise CosciError(f"--token: {len(token)} characters is too short to keep others out; give at least 16 "
                         "(e.g. python -c 'import secrets; print(secrets.token_urlsafe())')")
    if not is_loopback(host) and token is None:
        raise CosciError(f"--host {host}: serving beyond this machine needs --token T (every request must carry it; "
                         "at least 16 characters)")


LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
"""The names a browser on this machine reaches a loopback server by (an IPv6 address as ``Host`` has brackets)."""
WILDCARD = ("0.0.0.0", "::", "")
"""Bind addresses meaning every interface: the machine is reached by any of its names, so the token guards it."""


def allowed_hosts(host: str) -> tuple[str, ...] | None:
    """The host names a server bound to ``host`` answers to: the loopback names and ``host`` itself. None: any (a
    wildcard bind, where :func:`check_bind` requires the token, which a rebinding page cannot have)."""
    if host in WILDCARD:
        return None
    named = f"[{host}]" if ":" in host else host
    return tuple(dict.fromkeys((*LOOPBACK_NAMES, named.lower())))


def host_ok(given: str | None, names: tuple[str, ...] | None, port: int | None) -> bool:
    """Whether a request's ``Host`` header (``name[:port]``) is one of ``names`` (:func:`allowed_hosts`) at
    ``port`` (None: at any port, a test client)."""
    if names is None:
        return True
    given = (given or "").strip().lower()
    cut = given.rfind("]") + 1 if given.startswith("[") else (given.rfind(":") if ":" in given else len(given))
    name, at = given[:cut], given[cut:].removeprefix(":")
    return name in names and (port is None or at == str(port))


@dataclass(frozen=True)
class Guard:
    """The server's secrets: ``token`` (None on loopback without one) and ``csrf``, the per-start form secret."""

    token: str | None = None
    csrf: str = field(default_factory=lambda: secrets.token_urlsafe(32))

    def admits(self, given: str | None) -> bool:
        """Whether ``given`` is the access token (always, when the server has none)."""
        return self.token is None or (given is not None and secrets.compare_digest(given, self.token))

    def form_ok(self, given: str | None) -> bool:
        """Whether a form carried the server's secret."""
        return isinstance(given, str) and secrets.compare_digest(given, self.csrf)


def same_origin(origin: str | None, host: str | None) -> bool:
    """Whether a request's ``Origin`` header names the site it was sent to (``Host``); no Origin (a client that is
    no browser, an old browser's same-site form) passes: the form secret still has to match."""
    if not origin:
        return True
    if origin == "null":  # a sandboxed frame or a file:// page: never this site
        return False
    return urlsplit(origin).netloc == (host or "")


def clean(html: str) -> Markup:
    """``html`` reduced to :data:`ALLOWED_TAGS`, ``href`` only on links and only ``http(s)``, every link opened
    without the page's context (``rel="noopener noreferrer"``)."""
    import nh3

    return Markup(nh3.clean(html, tags=ALLOWED_TAGS, attributes={"a": {"href"}}, url_schemes={"http", "https"},
                            link_rel="noopener noreferrer", strip_comments=True))


def markdown(text: str | None) -> Markup:
    """Model text (Markdown) as sanitised HTML: markdown-it-py with raw HTML off (a tag stays text), then
    :func:`clean`."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")
    return clean(md.render(text or ""))


def too_large(content_length: str | None) -> bool:
    """Whether a request body announced as ``content_length`` bytes is over the upload cap and its form."""
    try:
        return int(content_length or 0) > UPLOAD_CAP_BYTES + FORM_OVERHEAD_BYTES
    except ValueError:
        return True


def cap_line(size: int, name: str = "--file") -> str:
    """The one line a too large upload gets."""
    raise_at = UPLOAD_CAP_BYTES / 2**20
    return (f"{name}: {size / 2**20:.2f} MiB ({size} bytes) is over the web UI's upload cap of {raise_at:.0f} MiB "
            "(docs/design.md#web); nothing was recorded")
