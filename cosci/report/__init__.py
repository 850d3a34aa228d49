"""The researcher's session report (design.md#report): one self-contained HTML page per session, and exports.

``data`` reads the store, ``figures`` draws the SVG figures, ``render`` fills the Jinja template, ``export``
writes Markdown / JSON Lines, ``commands`` backs ``cosci report --html`` and ``cosci export``.
"""
