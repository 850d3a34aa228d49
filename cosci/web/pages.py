"""The web UI's pages (GET): sessions, new session, a session live, its leaderboard and figures as fragments, its
event stream, a hypothesis, two hypotheses side by side, the overview, projects (docs/web.md)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response, StreamingResponse

from cosci.session.folder import SessionFolder
from cosci.web import views
from cosci.web.common import environment, render, web
from cosci.web.launch import names

router = APIRouter()


def folder_of(request: Request, sid: str) -> SessionFolder:
    """The session ``sid`` under the server's data folder.

    Raises:
        SessionNotFound: the line ``cosci status`` gives.
    """
    return SessionFolder.existing(web(request).root, sid)


@router.get("/", response_class=HTMLResponse)
def sessions_page(request: Request) -> HTMLResponse:
    return render(request, "sessions.html.j2", rows=views.sessions(web(request).root), root=web(request).root,
                  projects=views.projects(web(request).root))


@router.get("/new", response_class=HTMLResponse)
def new_page(request: Request) -> HTMLResponse:
    return render(request, "new.html.j2", experiments=names("experiment"), models=names("models"))


@router.get("/runs/{key}", response_class=HTMLResponse)
def run_state(request: Request, key: str) -> Response:
    """A run started here: "starting" until its session folder exists, then the page opens it (``HX-Redirect``)."""
    run = web(request).launcher.state(key)
    if run is None:
        return render(request, "_said.html.j2", 404, line=f"no run {key} on this server", ok=False)
    if run.session_id and views.readable(SessionFolder(web(request).root, run.session_id)):
        response = render(request, "_said.html.j2", line=f"{run.session_id}: started", ok=True)
        response.headers["HX-Redirect"] = f"/sessions/{run.session_id}"
        return response
    if run.done:
        return render(request, "_said.html.j2", 400, line=run.line or "ended", ok=False)
    return render(request, "_starting.html.j2", key=key)


@router.get("/sessions/{sid}", response_class=HTMLResponse)
def session_page(request: Request, sid: str) -> HTMLResponse:
    folder = folder_of(request, sid)
    live = views.live(folder)
    board = views.standing(folder)
    return render(request, "session.html.j2", sid=folder.session_id, live=live, board=board,
                  events=views.recent_events(folder), quarantined=[e for e in board.apart
                                                                  if e.state == "quarantined"])


@router.get("/sessions/{sid}/live", response_class=HTMLResponse)
def live_fragment(request: Request, sid: str) -> HTMLResponse:
    folder = folder_of(request, sid)
    return render(request, "_live.html.j2", sid=folder.session_id, live=views.live(folder))


@router.get("/sessions/{sid}/leaderboard", response_class=HTMLResponse)
def leaderboard_fragment(request: Request, sid: str) -> HTMLResponse:
    folder = folder_of(request, sid)
    return render(request, "_leaderboard.html.j2", sid=folder.session_id, board=views.standing(folder))


@router.get("/sessions/{sid}/events")
async def event_stream(request: Request, sid: str, after: int = 0) -> Response:
    """Server-Sent Events of the session's event log after ``after`` (or the ``Last-Event-ID`` resent); 204 when the
    session is finished (done, refused), no process runs it and nothing is left to send (a browser's EventSource
    then stops reconnecting; a paused or stopped session's page keeps listening, it may be resumed)."""
    from cosci.web.events import stream

    folder = folder_of(request, sid)
    resent = request.headers.get("last-event-id", "")
    start = int(resent) if resent.isdigit() else max(0, after)
    if views.finished(folder) and views.last_seq(folder) <= start:
        return Response(status_code=204)
    template = environment().get_template("_event.html.j2")
    return StreamingResponse(stream(folder, start, lambda e: template.render(e=e), request.is_disconnected),
                             media_type="text/event-stream", headers={"Cache-Control": "no-store",
                                                                      "X-Accel-Buffering": "no"})


@router.get("/sessions/{sid}/hypotheses/{hid}", response_class=HTMLResponse)
def hypothesis_page(request: Request, sid: str, hid: str) -> HTMLResponse:
    from cosci.ids import normal_id

    folder = folder_of(request, sid)
    view, data = views.hypothesis(folder, normal_id(hid))
    return render(request, "hypothesis.html.j2", sid=folder.session_id, h=view, d=data, release_here=True,
                  **views.partials(sid))


@router.get("/sessions/{sid}/compare", response_class=HTMLResponse)
def compare_page(request: Request, sid: str, a: str, b: str) -> HTMLResponse:
    """Two hypotheses side by side, with the rating form (``cosci rate <sid> a b --prefer``)."""
    from cosci.ids import normal_id

    folder = folder_of(request, sid)
    left, data = views.hypothesis(folder, normal_id(a))
    right, _ = views.hypothesis(folder, normal_id(b))
    return render(request, "compare.html.j2", sid=folder.session_id, a=left, b=right, d=data,
                  **views.partials(folder.session_id))


@router.get("/sessions/{sid}/overview", response_class=HTMLResponse)
def overview_page(request: Request, sid: str) -> HTMLResponse:
    folder = folder_of(request, sid)
    data = views.report_data(folder)
    return render(request, "overview.html.j2", sid=folder.session_id, d=data, overview=views.overview(data, sid),
                  **views.partials(folder.session_id))


@router.get("/projects/{name}", response_class=HTMLResponse)
def project_page(request: Request, name: str) -> HTMLResponse:
    return render(request, "project.html.j2", name=name, sections=views.project(web(request).root, name))
