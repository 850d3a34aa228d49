"""The paper's LaTeX source and its compilation (docs/design.md#paper).

:func:`render` turns a :class:`RecordPaper` into ``paper.tex``: the model's text is escaped (never markup), its
``[E3]`` become ``(E3)`` (rows listed in the appendix table), ``[@key]`` become ``\\cite{key}`` and ``[fig:ID]``
become ``Figure~\\ref{fig:ID}``; every figure of the manifest is placed; the bibliography is a ``thebibliography``
made from the same entries as ``references.bib``, so one engine run builds the PDF (no BibTeX step). Its first lines
state the checks' outcome (``status``); sentences the claims check left untraced are marked in the text.
:func:`compile_pdf` runs the first TeX engine found (:data:`ENGINES`), or says that none is installed.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from cosci.investigation.paper_checks import CITE, FIG, ROWS, Check
from cosci.investigation.paper_figures import Figure
from cosci.investigation.paper_records import RecordPaper
from cosci.investigation.paper_sources import Reference, tex_escape, url_escape

ENGINES = ("tectonic", "pdflatex", "xelatex", "lualatex")
"""TeX engines tried in order; ``tectonic`` fetches no package here (offline) but is tried first when present."""
UNTRACED = r"\textbf{[untraced: not in the evidence]}"
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
    lines += [r"\appendix", r"\section{Evidence rows}", r"\begin{itemize}"]
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
            done = subprocess.run(cmd, cwd=tex.parent, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return Check("compile", "fail", [f"{found} ran over {timeout:g} s"])
        if done.returncode != 0:
            errors = [ln for ln in (done.stdout + done.stderr).splitlines() if ln.startswith(("!", "error"))]
            return Check("compile", "fail", [f"{found}: " + (" | ".join(errors[:3]) or f"exit {done.returncode}")])
    pdf = tex.with_suffix(".pdf")
    return Check("compile", "pass" if pdf.is_file() else "fail", [] if pdf.is_file() else [f"{found}: no PDF"])
