"""``show --export-svg``: rich's SVG export, with wide characters given their width.

rich draws each run of text with ``textLength`` set to one cell per *character*,
while it places the runs (and their backgrounds) by terminal *cells*. A run with
wide characters (CJK, most emoji: two cells each) is thus squeezed into half its
room and its glyphs overlap. :func:`widen` sets each such run's ``textLength``
to its width in cells, the room rich left for it.
"""

from __future__ import annotations

import html
import re

__all__ = ["widen"]

_TEXT = re.compile(r'(<text\b[^>]*?\btextLength=")([0-9.]+)("[^>]*>)([^<]*)(</text>)')


def widen(svg: str) -> str:
    """``svg`` (from ``Console.export_svg``) with every text run as wide as its cells."""
    from rich.cells import cell_len

    def fix(match: re.Match) -> str:
        text = html.unescape(match.group(4))
        chars, cells = len(text), cell_len(text)
        if not cells or chars == cells:  # (a newline has no cells: left alone)
            return match.group()
        width = float(match.group(2)) / chars * cells
        return f"{match.group(1)}{width:g}{match.group(3)}{match.group(4)}{match.group(5)}"

    return _TEXT.sub(fix, svg)
