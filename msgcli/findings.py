"""Findings and reports: what a check says about a place in a file, a file, a run."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

__all__ = [
    "ERROR",
    "INFO",
    "WARNING",
    "FileReport",
    "FileSummary",
    "Finding",
    "RunReport",
    "Severity",
    "Summary",
    "tally",
]


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    #: something worth knowing that is not wrong (a record type of a newer producer
    #: release, say): reported, never counted as a problem, never fails a run
    INFO = "info"

    def __str__(self) -> str:  # "error", not "Severity.ERROR"
        return self.value


ERROR = Severity.ERROR
WARNING = Severity.WARNING
INFO = Severity.INFO


@dataclass(slots=True, frozen=True)
class Finding:
    """One problem at one place.

    ``line`` is 1-based; 0 means the finding is about the whole file (a file
    that cannot be opened, or an empty one). ``pointer`` is an RFC 6901 JSON
    pointer into the record on that line ("" for the whole record).
    """

    path: str
    line: int
    code: str
    severity: Severity
    message: str
    pointer: str = ""

    def __str__(self) -> str:
        where = f" (at {self.pointer})" if self.pointer else ""
        return f"{self.path}:{self.line}: {self.code} {self.message}{where}"

    def sort_key(self) -> tuple:
        return (self.line, self.pointer, self.code)

    def to_dict(self) -> dict:
        return {
            "path": self.path,
            "line": self.line,
            "code": self.code,
            "severity": self.severity.value,
            "message": self.message,
            "pointer": self.pointer,
        }


@dataclass(slots=True)
class FileSummary:
    """What was learnt about one input file."""

    path: str
    kind: str = "messages"  # "messages", "events", "unknown"
    dialect: str | None = None
    variants: list[str] = field(default_factory=list)
    records: int = 0
    errors: int = 0
    warnings: int = 0
    readable: bool = True
    stopped_early: bool = False
    #: for an event log: what the replay saw (a ``msgcli.replayers.ReplayStats``)
    replay: Any = None
    #: ``--until`` named an event the log does not hold
    until_missed: bool = False
    #: warnings fail this file too (``--strict``, or ``strict`` in the configuration)
    strict: bool = False
    #: "invalid" when the file is a negative fixture (``--expect-invalid``); its own findings
    #: are then the expected ones, and ``errors``/``warnings`` count what did not meet the
    #: expectation (family F)
    expect: str | None = None
    #: the ``.expect`` sidecar the file was held to, if it has one
    sidecar: str | None = None
    #: how many of the file's own findings were expected
    expected: int = 0

    @property
    def failed(self) -> bool:
        """Whether this file fails the run: an error, or a warning when strict."""
        return bool(self.errors or (self.strict and self.warnings))

    def to_dict(self) -> dict:
        out: dict[str, Any] = {
            "path": self.path,
            "kind": self.kind,
            "dialect": self.dialect,
            "variants": list(self.variants),
            "records": self.records,
            "errors": self.errors,
            "warnings": self.warnings,
        }
        if self.replay is not None:
            out["replay"] = self.replay.to_dict()
        if self.expect is not None:
            out["expect"] = {
                "outcome": self.expect,
                "sidecar": self.sidecar,
                "expected": self.expected,
                "met": not self.errors,
            }
        return out


@dataclass(slots=True)
class Summary:
    """Totals over a whole run."""

    files: int = 0
    records: int = 0
    errors: int = 0
    warnings: int = 0
    unreadable: int = 0
    stopped_early: bool = False
    #: files with an error, or a warning where warnings fail (strict)
    failed: int = 0
    #: files the configuration's ``exclude`` left out
    excluded: int = 0
    #: files a directory scan passed over: ``*.json`` documents that are no logs, and
    #: pipes, sockets and devices
    skipped: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {
            "files": self.files,
            "records": self.records,
            "errors": self.errors,
            "warnings": self.warnings,
            "unreadable": self.unreadable,
            "stopped_early": self.stopped_early,
            "failed": self.failed,
            "excluded": self.excluded,
        }


@dataclass(slots=True)
class FileReport:
    """One input's summary and findings."""

    summary: FileSummary
    findings: list[Finding] = field(default_factory=list)
    #: a negative fixture's own findings that were expected (see :mod:`msgcli.expect`)
    expected: list[Finding] = field(default_factory=list)


@dataclass(slots=True)
class RunReport:
    """The outcome of a whole run, once every file was checked. Whether warnings fail a
    file is the file's own (``FileSummary.strict``), counted into ``summary.failed``."""

    files: list[FileReport] = field(default_factory=list)
    summary: Summary = field(default_factory=Summary)

    def errors(self) -> list[Finding]:
        """Every finding of error severity."""
        return [f for fr in self.files for f in fr.findings if f.severity is ERROR]

    def findings(self) -> list[Finding]:
        return [f for fr in self.files for f in fr.findings]

    def add(self, report: FileReport) -> None:
        """Count a file's report into the run."""
        self.files.append(report)
        tally(self.summary, report)
        if report.summary.stopped_early:
            self.summary.stopped_early = True

    @property
    def exit_code(self) -> int:
        s = self.summary
        if s.unreadable:
            return 2
        return 1 if s.errors or s.failed else 0


def tally(summary: Summary, report: FileReport) -> None:
    """Count a file's report into the run's totals."""
    fs = report.summary
    summary.files += 1
    summary.records += fs.records
    summary.errors += fs.errors
    summary.warnings += fs.warnings
    if fs.failed:
        summary.failed += 1
    if not fs.readable and fs.expect is None:
        summary.unreadable += 1
