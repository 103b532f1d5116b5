"""One JSON document with every finding, every file and the totals.

The shape (``version`` 1) is documented in the README; fields are only ever
added, never renamed, within a version.
"""

from __future__ import annotations

from typing import TextIO

import orjson

from ..findings import RunReport

VERSION = 1


def to_document(run: RunReport) -> dict:
    return {
        "version": VERSION,
        "summary": {**run.summary.to_dict(), "exit_code": run.exit_code},
        "files": [fr.summary.to_dict() for fr in run.files],
        "findings": [f.to_dict() for fr in run.files for f in fr.findings],
    }


def report(run: RunReport, out: TextIO, **_: object) -> None:
    out.write(document_text(to_document(run)))
    out.write("\n")


def document_text(doc: dict) -> str:
    """A report's JSON document, indented by two (validate's, stats')."""
    try:
        return orjson.dumps(doc, option=orjson.OPT_INDENT_2).decode()
    except orjson.JSONEncodeError:
        # a file name that is not UTF-8 (its bytes kept as lone surrogates): the standard
        # library writes them as \udcXX escapes, which JSON allows
        import json

        return json.dumps(doc, indent=2, ensure_ascii=True)
