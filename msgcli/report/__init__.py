"""Reporters: how the findings of a validation run are written out.

Each reporter is a function ``(report, stream, **options) -> None`` looked up by
the name given to ``--format``.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["FORMATS", "get_reporter"]

FORMATS = ("text", "json", "github", "junit", "sarif")


def get_reporter(name: str) -> Callable:
    if name == "text":
        from .text import report
    elif name == "json":
        from .json import report
    elif name == "github":
        from .github import report
    elif name == "junit":
        from .junit import report
    elif name == "sarif":
        from .sarif import report
    else:
        raise ValueError(f"unknown format {name!r} (known: {', '.join(FORMATS)})")
    return report
