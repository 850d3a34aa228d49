"""Render the session report: one self-contained HTML page (inline CSS, JS and SVG; nothing fetched).

The page is a Jinja2 template (``templates/report.html.j2``) composed of the partials the web UI's pages show too
(``_overview.html.j2``, ``_claims.html.j2``, ``_hypothesis.html.j2``, ``_marks.html.j2``; docs/web.md), with
autoescaping on: every string from the store
(hypotheses, reviews, rationales, debate turns, citations, the overview) is untrusted text (design.md#prompts) and
renders as text. The overview is Markdown rendered by markdown-it-py with raw HTML disabled; its ``[H-…]`` ids become
links to the hypothesis sections (only ids the store knows, so every link resolves), and
only ``http(s)`` URLs become links anywhere on the page.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import re
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

from cosci.domain import BT_INTERVAL, BT_INTERVAL_LABEL
from cosci.paths import jinja_bytecode
from cosci.report.data import SCORE_KEYS, ReportData, collect
from cosci.report.figures import FigureUnavailable, bt_svg, elo_svg, lineage_svg
from cosci.report.standing import bt_score_text, interval_text
from cosci.store import SessionStore
from cosci.text import counted
from cosci.tournament.rerun import WILSON_LABEL

REPORT_FILE = "report.html"
"""The report's file name, written to ``<session folder>/final/`` and logged to the MLflow run."""
ID_REF = re.compile(r"\[(H-[0-9a-f]{12})\]")
"""A hypothesis reference in the overview (design.md#metareview: the overview cites hypotheses by id)."""


def safe_url(url: Any) -> str | None:
    """``url`` if it is an http(s) URL (a link may open it), else None (shown as text only)."""
    text = str(url or "").strip()
    return text if re.match(r"https?://", text, re.IGNORECASE) and not re.search(r"\s", text) else None


def overview_html(markdown: str, known: set[str]) -> Markup:
    """The overview's Markdown as HTML: raw HTML escaped, known ``[H-…]`` ids linked, web links open a new tab."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")
    html = md.render(markdown)
    html = ID_REF.sub(lambda m: f'[<a class="hid" href="#{m[1]}">{m[1]}</a>]' if m[1] in known else m[0], html)
    html = re.sub(r'<a href="(https?://)', r'<a target="_blank" rel="noopener noreferrer" href="\1', html)
    return Markup(html)  # markdown-it escaped every text and attribute; raw HTML is off


def sentence(line: str) -> Markup:
    """A one-line message (:func:`cosci.store.standing.none_yet`) as a sentence of the page: escaped, capitalised,
    its `backticked` commands as code, a full stop at the end."""
    from markupsafe import escape

    html = re.sub(r"`([^`]+)`", r"<code>\1</code>", str(escape(line[:1].upper() + line[1:])))
    return Markup(html + ("" if html.endswith(".") else "."))


def _utc(epoch: Any) -> str:
    return dt.datetime.fromtimestamp(float(epoch), dt.UTC).strftime("%Y-%m-%d %H:%M UTC") if epoch else "-"


def _num(value: Any, digits: int = 0) -> str:
    return "-" if value is None else f"{float(value):,.{digits}f}"


@cache
def _environment() -> Environment:
    env = Environment(loader=PackageLoader("cosci.report", "templates"), autoescape=True,
                      undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                      bytecode_cache=jinja_bytecode("report"))  # compiled once (design.md#startup)
    env.filters.update(utc=_utc, num=_num, sentence=sentence, safe_url=safe_url, interval=interval_text,
                       counted=counted, bt=lambda v: "-" if v is None else bt_score_text(float(v)),
                       model=lambda text: text)  # model text as text: autoescaped (the web UI sanitises Markdown)
    env.globals.update(bt_interval=BT_INTERVAL, bt_interval_label=BT_INTERVAL_LABEL,  # design.md#tournament
                       wilson_label=WILSON_LABEL,  # design.md#judge-memory
                       hyp_base="#")  # a hypothesis link: its section on this page (the web UI: its own page)
    return env


def _asset(name: str) -> Markup:
    return Markup(resources.files("cosci.report").joinpath("static", name).read_text(encoding="utf-8"))


def figures(data: ReportData, elo_initial: float) -> dict[str, Any]:
    """The inline SVG figures (trusted markup: only ids and numbers inside) and the lineage fallback note."""
    note = ""
    try:
        lineage = lineage_svg(data.leaderboard + data.apart, data.edges)
    except FigureUnavailable as exc:
        lineage, note = "", str(exc)
    return {"lineage_svg": Markup(lineage), "lineage_note": note,
            "elo_svg": Markup(elo_svg(data.trajectories, elo_initial, data.refuted)),
            "bt_svg": Markup(bt_svg(data.leaderboard) if data.has_bt else "")}


def render_html(data: ReportData, elo_initial: float = 1200.0) -> str:
    """The report page for ``data`` (a complete HTML document, UTF-8 text)."""
    overview = overview_html(data.overview, data.ids) if data.overview else None
    js = _asset("report.js")
    # the page's Content-Security-Policy admits only this script (CSP level 2 hash source): an injected
    # <script> would not run even if escaping failed somewhere
    script_hash = "sha256-" + base64.b64encode(hashlib.sha256(js.encode()).digest()).decode()
    return _environment().get_template("report.html.j2").render(
        d=data, overview=overview, score_keys=SCORE_KEYS, css=_asset("report.css"), js=js,
        script_hash=script_hash, **figures(data, elo_initial))


def write_report(store: SessionStore, folder: Path, elo_initial: float = 1200.0, out: Path | None = None,
                 status: str | None = None) -> Path:
    """Write the report of the session in ``record`` to ``out`` (default ``<folder>/final/report.html``).

    Works on a running session (it only reads the store). The file is replaced atomically, so a reader (or
    the MLflow upload) never sees half a page. ``status``: as :func:`cosci.report.data.collect` takes it.
    """
    path = out or folder / "final" / REPORT_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(render_html(collect(store, elo_initial, status), elo_initial), encoding="utf-8")
    tmp.replace(path)
    return path
