"""GitHub Actions workflow commands: one annotation per finding.

The format is exactly ``::error file=PATH,line=N,title=CODE::message``
(``::warning`` for warnings, ``::notice`` for info
findings), escaped as the Actions runner expects, so each
finding shows on the pull request at its line.
"""

from __future__ import annotations

from typing import TextIO

from ..pipeline import RunReport
from ..textsafe import visible


def _data(text: str) -> str:
    return visible(text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def report(run: RunReport, out: TextIO, **_: object) -> None:
    for file_report in run.files:
        for f in file_report.findings:
            message = f.message + (f" (at {f.pointer})" if f.pointer else "")
            level = "notice" if f.severity.value == "info" else f.severity.value
            out.write(
                f"::{level} file={_property(f.path)},line={max(f.line, 1)},"
                f"title={_property(f.code)}::{_data(message)}\n"
            )
