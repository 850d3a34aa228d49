"""The web UI's controls (POST): check and start a new session; pause, resume, abort; feedback; rate a pair; record
a result with a file; release a quarantined hypothesis (docs/web.md).

Each goes through the session service (:class:`cosci.api.Session`) or the function the command line calls
(:func:`cosci.session.release.release`), with the same checks, the same safety screening of researcher text and
the same one-line refusals, shown in place on the page; a refused input writes nothing. Every form carries the
server's secret (:func:`cosci.web.common.posted`).
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import shutil
from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from starlette.datastructures import FormData, UploadFile

from cosci.session.folder import SessionFolder
from cosci.web import security
from cosci.web.common import Refused, posted, render, said, text, web

router = APIRouter()
UPLOADS = "uploads"
"""The folder inside a session's folder where results' files are kept (docs/web.md)."""


def _folder(request: Request, sid: str) -> SessionFolder:
    return SessionFolder.existing(web(request).root, sid)


FIELDS = {"kind": "Kind", "text": "Text", "hypothesis": "Hypothesis", "outcome": "Outcome", "measure": "Measures",
          "notes": "Notes", "file": "Data file", "prefer": "the preference", "score": "Score",
          "why": "Why", "project": "Project"}
"""How a refusal of the session service names an argument on the page: the form field's label (the command line
names its flag, ``--prefer``)."""


def field(argument: str) -> str:
    """The form field's label for the session service's ``argument`` (:data:`FIELDS`)."""
    return FIELDS.get(argument, argument)


def _session(request: Request, sid: str):
    from cosci import api

    session = api.Session(_folder(request, sid))
    session.name = field
    return session


@router.post("/new/check", response_class=HTMLResponse)
async def check_new(request: Request) -> HTMLResponse:
    """Prepare and pre-flight the form's session: the estimate and the screen's answer, or the refusal line."""
    import asyncio

    form = await posted(request)
    draft = await asyncio.to_thread(web(request).launcher.check, text(form, "goal"), text(form, "experiment"),
                                    text(form, "models"), text(form, "budget"))
    return render(request, "_checked.html.j2", draft=draft)


@router.post("/new/start", response_class=HTMLResponse)
async def start_new(request: Request) -> HTMLResponse:
    form = await posted(request)
    key = web(request).launcher.start(text(form, "draft"))
    return render(request, "_starting.html.j2", key=key)


@router.post("/sessions/{sid}/pause", response_class=HTMLResponse)
async def pause(request: Request, sid: str) -> HTMLResponse:
    await posted(request)
    return said(request, _session(request, sid).pause())


@router.post("/sessions/{sid}/abort", response_class=HTMLResponse)
async def abort(request: Request, sid: str) -> HTMLResponse:
    await posted(request)
    return said(request, _session(request, sid).abort())


@router.post("/sessions/{sid}/resume", response_class=HTMLResponse)
async def resume(request: Request, sid: str) -> HTMLResponse:
    import asyncio

    await posted(request)
    key, line = await asyncio.to_thread(web(request).launcher.resume, _folder(request, sid))
    if key is not None:
        return render(request, "_starting.html.j2", key=key)
    return said(request, line)


@router.post("/sessions/{sid}/feedback", response_class=HTMLResponse)
async def feedback(request: Request, sid: str) -> HTMLResponse:
    import asyncio

    form = await posted(request)
    session = _session(request, sid)
    hid = _id(form, "hypothesis") or None
    recorded = await asyncio.to_thread(session.feedback, text(form, "kind"), text(form, "text"), hid)
    return said(request, recorded.line)


@router.post("/sessions/{sid}/rate", response_class=HTMLResponse)
async def rate(request: Request, sid: str) -> HTMLResponse:
    """``cosci rate <sid> <a> <b> --prefer a|b|tie [--why T]`` (or one id with ``--score``)."""
    import asyncio

    form = await posted(request)
    session = _session(request, sid)
    a, b = _id(form, "a"), _id(form, "b") or None
    if not a and b:  # one hypothesis given in the second field: it is the one rated
        a, b = b, None
    if not a:  # an empty form read "one hypothesis needs Score 1-5" (fresh user)
        raise Refused("no hypothesis given: choose the one to score, or the two to compare")
    prefer, score = text(form, "prefer") or None, text(form, "score").strip() or None
    recorded = await asyncio.to_thread(lambda: session.rate(a, b, prefer=prefer, score=score,  # type: ignore[arg-type]
                                                            why=text(form, "why")))
    return said(request, recorded.line)


@router.post("/sessions/{sid}/result", response_class=HTMLResponse)
async def result(request: Request, sid: str) -> HTMLResponse:
    """``cosci result <sid> <H> --outcome O [--measure N=V ...] [--notes T] [--file F]``; the uploaded file is kept
    in the session's folder (``uploads/``) and removed again when the result is refused."""
    import asyncio

    form = await posted(request)
    session = _session(request, sid)
    measures = [m.strip() for m in text(form, "measures").splitlines() if m.strip()]
    upload = form.get("file")
    kept, new = await asyncio.to_thread(_keep, session.folder, upload) if isinstance(upload, UploadFile) else (
        None, False)
    try:
        recorded = await asyncio.to_thread(
            lambda: session.result(_id(form, "hypothesis"), text(form, "outcome"),  # type: ignore[arg-type]
                                   measures=measures, notes=text(form, "notes"),
                                   file=str(kept) if kept else None))
    except BaseException:
        if kept is not None and new:
            _discard(kept)
        raise
    return said(request, recorded.line)


def _id(form: FormData, name: str) -> str:
    """A hypothesis id field in the case cosci writes ids (as the command line normalises it, design.md#ids)."""
    from cosci.ids import normal_id

    given = text(form, name).strip()
    return normal_id(given) if given else given


def _keep(folder: SessionFolder, upload: UploadFile) -> tuple[Path | None, bool]:
    """The uploaded file saved as ``<session folder>/uploads/<sha256 prefix>-<name>`` (None: no file chosen), and
    whether it is new there (the same file kept for an earlier result is not removed with a refused one).

    Raises:
        Refused: over :data:`cosci.web.security.UPLOAD_CAP_BYTES` (413), nothing kept.
    """
    if not upload.filename:
        return None, False
    size = upload.size if upload.size is not None else 0
    if size > security.UPLOAD_CAP_BYTES:
        raise Refused(security.cap_line(size), 413)
    upload.file.seek(0)
    digest = hashlib.sha256()
    for chunk in iter(lambda: upload.file.read(1 << 20), b""):
        digest.update(chunk)
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", Path(upload.filename).name).strip("._") or "file"
    target = folder.path / UPLOADS / f"{digest.hexdigest()[:12]}-{_short(name)}"
    if target.is_file():
        return target, False
    target.parent.mkdir(exist_ok=True)
    upload.file.seek(0)
    with target.open("wb") as out:
        shutil.copyfileobj(upload.file, out)
    return target, True


def _short(name: str, most: int = 80) -> str:
    """``name`` cut to ``most`` characters keeping its extension (``.csv``, up to 16 characters) whole."""
    if len(name) <= most:
        return name
    suffix = Path(name).suffix if len(Path(name).suffix) <= 16 else ""
    return name[:most - len(suffix)] + suffix


def _discard(path: Path) -> None:
    """Remove a kept upload of a refused result (and ``uploads/`` if it is left empty): nothing written."""
    path.unlink(missing_ok=True)
    with contextlib.suppress(OSError):  # other results' files are there
        path.parent.rmdir()


@router.post("/sessions/{sid}/release", response_class=HTMLResponse)
async def release(request: Request, sid: str) -> HTMLResponse:
    """``cosci release <sid> <H> --why T --by W``."""
    import asyncio

    from cosci.session.release import release as release_it

    form = await posted(request)
    folder = _folder(request, sid)
    by = text(form, "by").strip() or "researcher"
    line = await asyncio.to_thread(lambda: release_it(folder, _id(form, "hypothesis"), text(form, "why"), by,
                                                      name=lambda _: "Why it is safe"))
    return said(request, line)
