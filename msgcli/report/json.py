"""One JSON document with every finding, every file and the totals.

The shape (``version`` 1) is documented in the README; fields are only ever
added, never renamed, within a version.
"""

from __future__ import annotations

from typing import TextIO

import orjson

from ..pipeline import RunReport

VERSION = 1


def to_document(run: RunReport) -> dict:
    return {
        "version": VERSION,
        "summary": {**run.summary.to_dict(), "exit_code": run.exit_code},
        "files": [fr.summary.to_dict() for fr in run.files],
        "findings": [f.to_dict() for fr in run.files for f in fr.findings],
    }


def report(run: RunReport, out: TextIO, **_: object) -> None:
    out.write(orjson.dumps(to_document(run), option=orjson.OPT_INDENT_2).decode())
    out.write("\n")
