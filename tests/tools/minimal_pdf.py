"""PDFs made in the test: a hand-built PDF 1.4 file (ISO 32000-1: catalog, page tree, Type1 Helvetica, one
content stream per page, cross-reference table), so no PDF writer is needed to test the reader.

A page given as text gets a text layer (``Tj`` operators, one line per ~80 characters); a page given as None
gets only a filled rectangle, as a scan without OCR has an image and no text.
"""

from __future__ import annotations

import textwrap
from pathlib import Path


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def _content(text: str | None) -> bytes:
    if text is None:
        return b"0.5 0.5 0.5 rg 72 72 468 648 re f"
    lines = [line for paragraph in text.split("\n") for line in (textwrap.wrap(paragraph, 80) or [""])]
    ops = ["BT", "/F1 11 Tf", "14 TL", "72 740 Td"] + [f"({_escape(line)}) Tj T*" for line in lines] + ["ET"]
    return "\n".join(ops).encode("latin-1")


def pdf_bytes(pages: list[str | None], title: str = "") -> bytes:
    """A PDF whose pages hold ``pages`` (None: a page without a text layer); ``title`` in its Info dictionary."""
    n = len(pages)
    font = 3 + 2 * n
    info = font + 1
    objects: dict[int, bytes] = {
        1: b"<< /Type /Catalog /Pages 2 0 R >>",
        2: ("<< /Type /Pages /Kids [" + " ".join(f"{3 + 2 * i} 0 R" for i in range(n)) + f"] /Count {n} >>").encode(),
        font: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        info: f"<< /Title ({_escape(title)}) /Producer (cosci tests) >>".encode("latin-1"),
    }
    for i, text in enumerate(pages):
        stream = _content(text)
        objects[3 + 2 * i] = (f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {4 + 2 * i} 0 R "
                              f"/Resources << /Font << /F1 {font} 0 R >> >> >>").encode()
        objects[4 + 2 * i] = f"<< /Length {len(stream)} >>\nstream\n".encode() + stream + b"\nendstream"
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = {}
    for number in sorted(objects):
        offsets[number] = len(out)
        out += f"{number} 0 obj\n".encode() + objects[number] + b"\nendobj\n"
    xref = len(out)
    size = max(objects) + 1
    out += f"xref\n0 {size}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{offsets[k]:010d} 00000 n \n".encode() for k in range(1, size))
    out += f"trailer\n<< /Size {size} /Root 1 0 R /Info {info} 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def write_pdf(path: Path, pages: list[str | None], title: str = "") -> Path:
    path.write_bytes(pdf_bytes(pages, title))
    return path
