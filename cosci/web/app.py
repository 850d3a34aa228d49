"""The web UI's application: FastAPI with Jinja2 pages, htmx and Server-Sent Events (docs/web.md).

:func:`create_app` builds it over one data folder. Requests pass :func:`_gate` first (the access token, the body
size, the origin of a POST), every page is rendered by Jinja2 with autoescaping (model text through
:func:`cosci.web.security.markdown`), and a refusal is one line shown on the page, as the command line says it.
The routes are in :mod:`cosci.web.pages` (what is read) and :mod:`cosci.web.controls` (what changes a session).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from cosci.web import controls, pages, security
from cosci.web.common import CSP, Refused, Web, page_or_line, said, web
from cosci.web.launch import Launcher


async def _gate(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
    """The access token (when the server has one), the size of a POST body and its origin; the security headers."""
    guard = web(request).guard
    if not security.host_ok(request.headers.get("host"), web(request).hosts, web(request).port):
        return PlainTextResponse("cosci serve: refused: the request's Host is not this server's address (open the "
                                 "address `cosci serve` printed)", 400)
    if guard.token is not None:
        auth = request.headers.get("authorization", "")
        given = (request.query_params.get("token") or request.cookies.get(security.TOKEN_COOKIE)
                 or (auth[7:] if auth.lower().startswith("bearer ") else None))
        if not guard.admits(given):
            return PlainTextResponse("cosci serve: this server needs its access token: open the address it printed "
                                     "(?token=...)", 401)
        if request.method == "GET" and "token" in request.query_params:  # kept in a cookie, out of the address
            response: Response = RedirectResponse(request.url.path, 303)
            response.set_cookie(security.TOKEN_COOKIE, guard.token, httponly=True, samesite="strict")
            return response
    if request.method == "POST":
        if security.too_large(request.headers.get("content-length")):
            size = int(request.headers.get("content-length") or 0) if (
                request.headers.get("content-length") or "").isdigit() else 0
            return said(request, security.cap_line(size), ok=False, status=413)
        if not security.same_origin(request.headers.get("origin"), request.headers.get("host")):
            return said(request, "refused: a request from another site (its Origin is not this server)", ok=False,
                        status=403)
    response = await call_next(request)
    response.headers.setdefault("Content-Security-Policy", CSP)
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    return response


def _reason(request: Request, exc: StarletteHTTPException) -> str:
    """The one line of an HTTP error (no such page, a method the address does not take)."""
    if exc.status_code == 404:
        return f"no page {request.url.path} (the sessions are listed at /)"
    if exc.status_code == 405:
        allowed = (exc.headers or {}).get("allow", "GET")
        return f"{request.method} {request.url.path}: this address takes {allowed}"
    return str(exc.detail)


def _invalid(error: dict[str, object]) -> str:
    """One invalid request parameter as a line: its name and what is wrong (``b: missing``)."""
    loc = error.get("loc") or ()
    name = str(list(loc)[-1]) if isinstance(loc, (list, tuple)) and loc else "request"
    return f"{name}: {'missing' if error.get('type') == 'missing' else error.get('msg', 'invalid')}"


def create_app(root: Path, token: str | None = None, launcher: Launcher | None = None, *,
               host: str = "127.0.0.1", port: int | None = None) -> FastAPI:
    """The web UI over the data folder ``root``.

    Args:
        token: the access token every request must carry (None: none; the server's bind rule is
            :func:`cosci.web.security.check_bind`).
        launcher: how sessions are started (tests pass one whose run they control).
        host, port: the address it is served on; a request's ``Host`` must name it (a loopback name, or ``host``;
            any port when ``port`` is None) against DNS rebinding (:func:`cosci.web.security.allowed_hosts`).
    """
    from cosci.config.load import ConfigError
    from cosci.errors import CosciError, SessionNotFound

    app = FastAPI(title="cosci", docs_url=None, redoc_url=None, openapi_url=None)
    app.state.web = Web(root, security.Guard(token), launcher or Launcher(root), security.allowed_hosts(host), port)
    app.middleware("http")(_gate)
    app.mount("/static", StaticFiles(packages=[("cosci.web", "static")]), name="static")
    app.include_router(pages.router)
    app.include_router(controls.router)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        return page_or_line(request, f"{exc.status_code}: {_reason(request, exc)}", exc.status_code)

    @app.exception_handler(RequestValidationError)
    async def bad_query(request: Request, exc: RequestValidationError) -> HTMLResponse:
        return page_or_line(request, "; ".join(_invalid(e) for e in exc.errors()), 422)

    @app.exception_handler(Refused)
    async def refused(request: Request, exc: Refused) -> HTMLResponse:
        return said(request, exc.line, ok=False, status=exc.status)

    @app.exception_handler(SessionNotFound)
    async def not_found(request: Request, exc: SessionNotFound) -> HTMLResponse:
        return page_or_line(request, str(exc), 404)

    @app.exception_handler(CosciError)
    async def cosci_error(request: Request, exc: CosciError) -> HTMLResponse:
        return page_or_line(request, str(exc), 400)

    @app.exception_handler(ConfigError)
    async def config_error(request: Request, exc: ConfigError) -> HTMLResponse:
        return page_or_line(request, str(exc), 400)

    return app
