"""What the web UI's routes share: the application's state, the Jinja2 environment, rendering a page or a one-line
answer, the POSTed form after its cross-site check (docs/web.md)."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fastapi import Request
from fastapi.responses import HTMLResponse
from jinja2 import ChoiceLoader, Environment, PackageLoader, StrictUndefined
from starlette.datastructures import FormData

from cosci.web import security

if TYPE_CHECKING:
    from cosci.web.launch import Launcher

CSP = ("default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
       "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
"""The pages' Content-Security-Policy: scripts only the two vendored files served here, nothing fetched from
elsewhere, no frame (design.md#web). Inline styles stay allowed for the report's inline SVG figures."""


class Refused(Exception):
    """A request refused with one line (``status``: the HTTP status the page gets)."""

    def __init__(self, line: str, status: int = 400) -> None:
        super().__init__(line)
        self.line, self.status = line, status


@dataclass(frozen=True)
class Web:
    """What every route reads: the data folder, the server's secrets and its launcher; the ``Host`` names and port
    it answers to (:func:`cosci.web.security.allowed_hosts`; None: any)."""

    root: Path
    guard: security.Guard
    launcher: Launcher
    hosts: tuple[str, ...] | None = security.LOOPBACK_NAMES
    port: int | None = None


def web(request: Request) -> Web:
    """The application's :class:`Web`."""
    state: Web = request.app.state.web
    return state


def _utc(epoch: Any) -> str:
    return dt.datetime.fromtimestamp(float(epoch), dt.UTC).strftime("%Y-%m-%d %H:%M UTC") if epoch else "-"


def _num(value: Any, digits: int = 0) -> str:
    return "-" if value is None else f"{float(value):,.{digits}f}"


def safe_url(url: Any) -> str | None:
    """``url`` if it is an http(s) URL without spaces (a link may open it), else None (shown as text only); the
    report's rule (:func:`cosci.report.render.safe_url`, not imported here: it loads the report's plotting)."""
    text_ = str(url or "").strip()
    return text_ if re.match(r"https?://", text_, re.IGNORECASE) and not re.search(r"\s", text_) else None


@cache
def environment() -> Environment:
    """The pages' Jinja2 environment: autoescaped, strict, the sanitiser as the ``md`` filter, the standing's
    number formats (:mod:`cosci.store.standing`)."""
    from cosci.domain import BT_INTERVAL, BT_INTERVAL_LABEL
    from cosci.store.standing import bt_score_text, interval_text
    from cosci.text import counted

    # the web UI's own templates first, then the report's partials, which both show (docs/web.md)
    loader = ChoiceLoader([PackageLoader("cosci.web", "templates"), PackageLoader("cosci.report", "templates")])
    env = Environment(loader=loader, autoescape=True, undefined=StrictUndefined, trim_blocks=True,
                      lstrip_blocks=True)
    env.filters.update(md=security.markdown, model=security.markdown, utc=_utc, num=_num, safe_url=safe_url,
                       interval=interval_text, counted=counted,
                       bt=lambda v: "-" if v is None else bt_score_text(float(v)))
    env.globals.update(upload_cap_mib=security.UPLOAD_CAP_BYTES // 2**20, bt_interval=BT_INTERVAL,
                       bt_interval_label=BT_INTERVAL_LABEL)
    return env


def render(request: Request, template: str, status: int = 200, **context: Any) -> HTMLResponse:
    """The template ``template`` with the form secret and the request in its context."""
    html = environment().get_template(template).render(csrf=web(request).guard.csrf, csrf_field=security.CSRF_FIELD,
                                                   request=request, **context)
    return HTMLResponse(html, status_code=status)


def said(request: Request, line: str, ok: bool = True, status: int | None = None) -> HTMLResponse:
    """The one-line answer a control shows in place (``ok`` False: a refusal, 400 unless ``status``). A done
    control tells the page (``HX-Trigger: cosci-changed``) to fetch its figures and leaderboard again."""
    response = render(request, "_said.html.j2", status or (200 if ok else 400), line=line, ok=ok)
    if ok:
        response.headers["HX-Trigger"] = "cosci-changed"
    return response


async def posted(request: Request) -> FormData:
    """The POSTed form, after the cross-site check: the form must carry the server's secret.

    Raises:
        Refused: 403 without it.
    """
    form = await request.form(max_files=1, max_fields=64)
    given = form.get(security.CSRF_FIELD)
    if not web(request).guard.form_ok(given if isinstance(given, str) else None):
        raise Refused("refused: the form does not carry this server's form token (a request from another site, "
                      "or a page from before the server restarted: reload it)", 403)
    return form


def text(form: FormData, name: str) -> str:
    """A text field of ``form`` ("" when absent or a file)."""
    value = form.get(name)
    return value if isinstance(value, str) else ""




def page_or_line(request: Request, line: str, status: int) -> HTMLResponse:
    """A refusal as a whole page for a page request, as a line in place for an htmx request or a POST."""
    if request.method == "GET" and "hx-request" not in request.headers:
        return render(request, "refused.html.j2", status, line=line, ok=False)
    return said(request, line, ok=False, status=status)
