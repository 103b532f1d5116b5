"""Reporters: how the findings of a validation run are written out.

Each reporter is a function ``(report, stream, **options) -> None`` registered in
:data:`REPORTERS` by the name ``--format`` gives, and imported the first time it is
asked for. To add a format, add its module here and a line to :data:`REPORTERS`: the
command line's choices, and ``validate -o FILE``'s choice by suffix, read it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["FORMATS", "REPORTERS", "Reporter", "get_reporter", "suffix_formats"]


@dataclass(frozen=True, slots=True)
class Reporter:
    #: where the reporter function lives, ``module:function`` (the module in this package)
    target: str
    #: the file suffix that names this report (``validate -o report.sarif``), if any
    suffix: str | None = None


#: every report format by name, in the order ``--help`` lists them
REPORTERS: dict[str, Reporter] = {
    "text": Reporter("text:report"),
    "json": Reporter("json:report", ".json"),
    "github": Reporter("github:report"),
    "junit": Reporter("junit:report", ".xml"),
    "sarif": Reporter("sarif:report", ".sarif"),
}

FORMATS = tuple(REPORTERS)


def get_reporter(name: str) -> Callable:
    """The reporter registered as ``name``, imported now."""
    try:
        module, _, attr = REPORTERS[name].target.partition(":")
    except KeyError:
        raise ValueError(f"unknown format {name!r} (known: {', '.join(REPORTERS)})") from None
    return getattr(importlib.import_module(f"{__name__}.{module}"), attr)


def suffix_formats() -> dict[str, str]:
    """The report a file's suffix names: ``{".json": "json", ...}``."""
    return {r.suffix: name for name, r in REPORTERS.items() if r.suffix}
