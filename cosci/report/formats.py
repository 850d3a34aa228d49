"""File name endings of the report's formats: a leaf (no Jinja, no matplotlib), so that the command line reads
them at start-up without loading the report's renderers."""

from __future__ import annotations

HTML_SUFFIXES = (".html", ".htm")
"""File name endings of the report page: ``cosci report --out F`` writes the page when F ends so, the text report
(Markdown) otherwise; ``cosci export --format html`` writes only into such a file."""
