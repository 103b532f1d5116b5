"""GitHub Actions workflow commands: one annotation per finding.

The format is exactly ``::error file=PATH,line=N,title=CODE::message``
(``::warning`` for warnings, ``::notice`` for info
findings), escaped as the Actions runner expects, so each
finding shows on the pull request at its line.
"""

from __future__ import annotations

from typing import Any, TextIO

from ..findings import RunReport
from ..textsafe import visible


def escape_data(text: str) -> str:
    """Text for an annotation's message: made visible, with %, CR and LF escaped."""
    return visible(text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def escape_property(text: str) -> str:
    """Text for an annotation's property (file, title): also : and , escaped."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def report(run: RunReport, out: TextIO, **_: object) -> None:
    for file_report in run.files:
        for f in file_report.findings:
            message = f.message + (f" (at {f.pointer})" if f.pointer else "")
            level = "notice" if f.severity.value == "info" else f.severity.value
            out.write(
                f"::{level} file={escape_property(f.path)},line={max(f.line, 1)},"
                f"title={escape_property(f.code)}::{escape_data(message)}\n"
            )


def write_diff(result: Any, out: TextIO) -> None:
    """``msgcli diff --format github``: one ``::error`` annotation per difference, at its
    line in B."""
    for d in result.differences:
        side = d.b
        path = side.path if side is not None else result.b
        line = side.line if side is not None else 1
        out.write(
            f"::error file={escape_property(path)},line={max(line, 1)},"
            f"title={escape_property('msgcli diff: ' + d.kind)}::{escape_data(d.describe())}\n"
        )
