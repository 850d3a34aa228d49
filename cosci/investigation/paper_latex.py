"""The paper's LaTeX source and its compilation (docs/design.md#paper).

:func:`render` turns a :class:`RecordPaper` into ``paper.tex``: the model's text is escaped (never markup), its
``[E3]`` become ``(E3)`` (rows listed in the appendix table), ``[@key]`` become ``\\cite{key}`` and ``[fig:ID]``
become ``Figure~\\ref{fig:ID}``; every figure of the manifest is placed; the bibliography is a ``thebibliography``
made from the same entries as ``references.bib``, so one engine run builds the PDF (no BibTeX step). Its first lines
state the checks' outcome (``status``); sentences the claims check left untraced are marked in the text.
:func:`compile_pdf` runs the first TeX engine found (:data:`ENGINES`), or says that none is installed;
:func:`check_pages` reads the built PDF (pypdf) for the page limit.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

from cosci.investigation.paper_checks import CITE, FIG, ROWS, Check
from cosci.investigation.paper_figures import Figure
from cosci.investigation.paper_records import RecordPaper
from cosci.investigation.paper_sources import Reference, tex_escape, url_escape

ENGINES = ("tectonic", "pdflatex", "xelatex", "lualatex")
"""TeX engines tried in order; ``tectonic`` fetches no package here (offline) but is tried first when present."""
UNTRACED = r"\textbf{[untraced: not in the evidence]}"
APPENDIX = "Evidence rows"
"""The appendix's title: the page of its bookmark is where the body ends (:func:`check_pages`)."""
TOKEN = re.compile(f"{ROWS.pattern}|{CITE.pattern}|{FIG.pattern}")


def sentence_tex(sentence: str, untraced: bool = False) -> str:
    """One sentence with its citations rendered and everything else escaped."""
    out, pos = [], 0
    for m in TOKEN.finditer(sentence):
        out.append(tex_escape(sentence[pos:m.start()]))
        if m.group(1):
            out.append("(" + ", ".join(re.findall(r"[EF]\d+", m.group(1))) + ")")
        elif m.group(2):
            out.append(f"\\cite{{{m.group(2)}}}")
        else:
            out.append(f"Figure~\\ref{{fig:{m.group(3)}}}")
        pos = m.end()
    out.append(tex_escape(sentence[pos:]))
    return "".join(out).strip() + (f" {UNTRACED}" if untraced else "")


def render(paper: RecordPaper, rows: dict[str, str], figures: list[Figure], refs: list[Reference],
           status: list[str], untraced: set[str] | None = None) -> str:
    """``paper.tex`` (module docstring). ``untraced``: sentences to mark; ``status``: the first lines' text."""
    marked = untraced or set()

    def para(ss: list[str]) -> str:
        return " ".join(sentence_tex(s, s.strip() in marked) for s in ss)

    head = "\n".join(f"% {line}" for line in status)
    lines = [head, r"\documentclass[11pt]{article}", r"\usepackage[margin=1in]{geometry}",
             r"\usepackage{graphicx}", r"\usepackage{url}", r"\usepackage[hidelinks]{hyperref}",
             f"\\title{{{sentence_tex(paper.title, paper.title.strip() in marked)}}}",
             r"\author{cosci investigate write}", r"\date{}", r"\begin{document}", r"\maketitle",
             r"\noindent\fbox{\parbox{\linewidth}{" + r"\\ ".join(tex_escape(x) for x in status) + "}}",
             r"\begin{abstract}", para(paper.abstract), r"\end{abstract}"]
    for sec in paper.sections:
        lines += [f"\\section{{{tex_escape(sec.heading)}}}", para(sec.sentences)]
    for f in figures:
        lines += [r"\begin{figure}[ht]\centering", f"\\includegraphics[width=0.9\\linewidth]{{figures/{f.file}}}",
                  f"\\caption{{{tex_escape(f.caption)} Rows: {', '.join(f.rows)}.}}\\label{{fig:{f.id}}}",
                  r"\end{figure}"]
    lines += [r"\clearpage", r"\appendix", f"\\section{{{APPENDIX}}}", r"\begin{itemize}"]
    lines += [f"\\item[{label}] {tex_escape(text)}" for label, text in rows.items()]
    lines += [r"\end{itemize}"]
    if refs:
        lines += [r"\begin{thebibliography}{99}"]
        lines += [f"\\bibitem{{{r.key}}} {tex_escape(r.title)}. \\url{{{url_escape(r.url)}}}"
                  + (f" ({r.year})" if r.year else "") + "." for r in refs]
        lines += [r"\end{thebibliography}"]
    lines.append(r"\end{document}")
    return "\n".join(lines) + "\n"


def engine() -> str | None:
    return next((e for e in ENGINES if shutil.which(e)), None)


def compile_pdf(tex: Path, timeout: float = 120.0) -> Check:
    """Build ``tex``'s PDF beside it (two runs for the references); ``skipped`` with no TeX engine installed.

    A failed build is ``fail`` with the log's first error lines (``!`` lines)."""
    found = engine()
    if found is None:
        return Check("compile", "skipped", [f"not compiled: no TeX engine ({', '.join(ENGINES)}) is installed"])
    cmd = [found, tex.name] if found == "tectonic" else [found, "-interaction=nonstopmode", "-halt-on-error",
                                                         tex.name]
    for _ in range(1 if found == "tectonic" else 2):
        try:
            done = subprocess.run(cmd, cwd=tex.parent, capture_output=True, text=True, errors="replace",
                                  timeout=timeout)  # the log quotes input bytes: not always UTF-8
        except subprocess.TimeoutExpired:
            return Check("compile", "fail", [f"{found} ran over {timeout:g} s"])
        if done.returncode != 0:
            errors = [ln for ln in (done.stdout + done.stderr).splitlines() if ln.startswith(("!", "error"))]
            return Check("compile", "fail", [f"{found}: " + (" | ".join(errors[:3]) or f"exit {done.returncode}")])
    pdf = tex.with_suffix(".pdf")
    return Check("compile", "pass" if pdf.is_file() else "fail", [] if pdf.is_file() else [f"{found}: no PDF"])


def body_pages(pdf: Path) -> tuple[int, int]:
    """``(body, total)`` pages of a built paper: the body is every page before the one the appendix's bookmark
    (hyperref's outline entry :data:`APPENDIX`) points to, which ``\\clearpage`` puts on a page of its own; a
    PDF without that bookmark counts whole.

    Raises:
        pypdf.errors.PyPdfError: the file is not a readable PDF.
    """
    from pypdf import PdfReader

    reader = PdfReader(pdf)
    total = len(reader.pages)
    flat: list[Any] = []
    stack: list[Any] = list(reader.outline)
    while stack:
        item = stack.pop(0)
        (stack.extend(item) if isinstance(item, list) else flat.append(item))
    start = next((reader.get_destination_page_number(d) for d in flat
                  if str(getattr(d, "title", "")).strip().endswith(APPENDIX)), None)
    return (total if start is None else start), total


def check_pages(pdf: Path, max_pages: int) -> Check:
    """The page limit on the built PDF: the body (:func:`body_pages`) at most ``max_pages`` pages (``paper.max_pages``,
    docs/design.md#paper); ``skipped`` when no PDF was built (no engine, or a failed compile: that check says why)."""
    if not pdf.is_file():
        return Check("pages", "skipped", ["not counted: no PDF was built"])
    from pypdf.errors import PyPdfError

    try:
        body, total = body_pages(pdf)
    except (PyPdfError, OSError, ValueError) as exc:
        return Check("pages", "fail", [f"{pdf.name} cannot be read: {exc}"])
    if body > max_pages:
        return Check("pages", "fail", [f"the body runs to {body} pages ({total} with the appendix and references), "
                                       f"over paper.max_pages ({max_pages}): shorten it"])
    return Check("pages", "pass")
