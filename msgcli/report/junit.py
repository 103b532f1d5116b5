"""JUnit XML: every input file a test suite, for the test views of CI systems.

GitLab, Jenkins, Azure DevOps and the GitHub test-report actions read this
shape (the tests check it against Jenkins xUnit's ``junit-10.xsd``)::

    <testsuites name="msgcli" tests="3" failures="2" errors="0" time="0.000">
      <testsuite name="logs/run.jsonl" tests="3" failures="2" errors="0" skipped="0" time="0.000">
        <properties>dialect, kind, records (and the expectation of a negative fixture)</properties>
        <testcase name="validate" classname="logs/run.jsonl" time="0.000">
          <failure message="1 error, 1 warning" type="T001">findings about the whole file</failure>
        </testcase>
        <testcase name="line 4" classname="logs/run.jsonl" time="0.000">
          <failure message="T001 tool result ..." type="T001">logs/run.jsonl:4: T001 ...</failure>
        </testcase>
        <testcase name="line 7" classname="logs/run.jsonl" time="0.000">
          <system-out>logs/run.jsonl:7: S003 ... (a warning: the line passes)</system-out>
        </testcase>
      </testsuite>
    </testsuites>

- The ``validate`` test case fails when the file fails the run (an error, or a
  warning with ``--strict``); it holds the findings about the whole file (line 0).
- A ``line N`` test case for every record with findings: it fails when one of
  them fails the file, and lists them all one a line, as the text report writes
  them. A record with only warnings passes, its findings in ``<system-out>``.
- A negative fixture (``--expect-invalid``, ``.expect`` sidecars) reports what
  did not meet the expectation (rules ``F``); the findings that were expected
  are listed in the ``validate`` case's ``<system-out>`` as ``expected: ...``.

msgcli does not time files or records: ``time`` is 0 but on ``<testsuites>``
when the caller passes the run's duration (``elapsed``). No timestamp or host
name is written, so the same run gives the same report.

Text from a log is made visible as in the text report (control characters
become escapes such as ``\\e`` and ``\\x00``), then XML-escaped; what XML 1.0
cannot hold at all (lone surrogates, U+FFFE, U+FFFF) is written as a ``\\uXXXX``
escape. On a stream that is not UTF-8, characters outside ASCII are written as
character references, so the document stays well formed whatever the stream.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterable, Iterator
from typing import TextIO

from ..findings import ERROR, WARNING, FileReport, Finding, RunReport
from ..render.words import plural
from ..textsafe import visible

__all__ = ["report"]

#: what XML 1.0 forbids and :func:`visible` leaves alone
_NOT_XML = re.compile("[\ud800-\udfff\ufffe\uffff]")
_NO_TIME = "0.000"
#: test cases written at a time
_CHUNK = 1000


def _shown(text: str) -> str:
    """Log text as the text report shows it, with nothing XML 1.0 forbids."""
    text = visible(text)
    if _NOT_XML.search(text):
        text = _NOT_XML.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return text


def _attr(text: str) -> str:
    """An attribute value (quoted with ``"``); newlines and tabs kept as character references."""
    text = _text(text).replace('"', "&quot;")
    if "\n" in text or "\r" in text or "\t" in text:
        text = text.replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;")
    return text


def _text(text: str) -> str:
    # str.replace finds nothing fast; str.translate with a table is several times slower
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class _Lines:
    """Findings written as the text report writes them, the path made safe once per file."""

    __slots__ = ("_paths",)

    def __init__(self) -> None:
        self._paths: dict[str, str] = {}

    def path(self, path: str) -> str:
        shown = self._paths.get(path)
        if shown is None:
            shown = self._paths[path] = _shown(path)
        return shown

    def line(self, f: Finding) -> str:
        where = f" (at {_shown(f.pointer)})" if f.pointer else ""
        return f"{self.path(f.path)}:{f.line}: {f.code} {_shown(f.message)}{where}"

    def short(self, f: Finding) -> str:
        """A finding without its place, for a ``message`` attribute."""
        where = f" (at {_shown(f.pointer)})" if f.pointer else ""
        return f"{f.code} {_shown(f.message)}{where}"


class _Suite:
    """One file's findings sorted into its test cases: counted first, written after."""

    __slots__ = ("expected", "failed", "failing", "file_findings", "lines", "report", "strict")

    def __init__(self, fr: FileReport):
        self.report = fr
        fs = fr.summary
        self.strict = fs.strict
        self.failed = fs.failed or (self.strict and fs.warnings > 0)
        self.file_findings: list[Finding] = []
        lines: dict[int, list[Finding]] = {}
        path = fs.path
        for f in fr.findings:
            if f.line > 0 and f.path == path:
                found = lines.get(f.line)
                if found is None:
                    lines[f.line] = [f]
                else:
                    found.append(f)
            else:
                # line 0 is the whole file; an expectation's finding may be about its sidecar
                self.file_findings.append(f)
        self.lines = {number: lines[number] for number in sorted(lines)}
        #: the lines whose test cases fail
        self.failing = [n for n, found in self.lines.items() if any(map(self.fails, found))]
        self.expected = fr.expected

    def fails(self, f: Finding) -> bool:
        return f.severity is ERROR or (self.strict and f.severity is WARNING)

    @property
    def tests(self) -> int:
        return 1 + len(self.lines)

    @property
    def failures(self) -> int:
        return len(self.failing) + (1 if self.failed else 0)


def report(run: RunReport, out: TextIO, **options: object) -> None:
    """Write ``run`` as a JUnit XML document. ``elapsed=SECONDS``: the run's duration,
    written on ``<testsuites>``."""
    suites = [_Suite(fr) for fr in run.files]
    tests = sum(s.tests for s in suites)
    failures = sum(s.failures for s in suites)
    encoding = getattr(out, "encoding", None)
    ascii_only = bool(encoding) and codecs.lookup(str(encoding)).name != "utf-8"

    def write(chunk: str) -> None:
        if ascii_only:
            chunk = chunk.encode("ascii", "xmlcharrefreplace").decode("ascii")
        out.write(chunk)

    elapsed = options.get("elapsed")
    total_time = (
        f"{max(float(elapsed), 0.0):.3f}" if isinstance(elapsed, (int, float)) else _NO_TIME
    )
    write(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<testsuites name="msgcli" tests="{tests}" failures="{failures}" errors="0" '
        f'time="{total_time}">\n'
    )
    lines = _Lines()
    chunk: list[str] = []
    for suite in suites:
        for part in _suite(suite, lines):
            chunk.append(part)
            if len(chunk) == _CHUNK:
                write("".join(chunk))
                chunk.clear()
    chunk.append("</testsuites>\n")
    write("".join(chunk))


def _suite(suite: _Suite, lines: _Lines) -> Iterator[str]:
    """A file's test suite, a test case at a time."""
    fs = suite.report.summary
    name = _attr(lines.path(fs.path))
    yield (
        f'  <testsuite name="{name}" tests="{suite.tests}" failures="{suite.failures}" '
        f'errors="0" skipped="0" time="{_NO_TIME}">\n'
    )
    yield _properties(suite)
    yield _file_case(suite, name, lines)
    for number, found in suite.lines.items():
        yield _line_case(suite, number, found, name, lines)
    yield "  </testsuite>\n"


def _properties(suite: _Suite) -> str:
    fs = suite.report.summary
    items = [("kind", fs.kind)]
    if fs.dialect:
        items.append(("dialect", fs.dialect))
    if fs.variants:
        items.append(("variants", ", ".join(fs.variants)))
    items.append(("records", str(fs.records)))
    if fs.expect is not None:
        items.append(("expect", fs.expect))
        if fs.sidecar:
            items.append(("sidecar", fs.sidecar))
    body = "".join(
        f'      <property name="{name}" value="{_attr(_shown(value))}"/>\n' for name, value in items
    )
    return f"    <properties>\n{body}    </properties>\n"


def _file_case(suite: _Suite, classname: str, lines: _Lines) -> str:
    fs = suite.report.summary
    head = f'    <testcase name="validate" classname="{classname}" time="{_NO_TIME}"'
    own = [lines.line(f) for f in suite.file_findings]
    notes = [f"expected: {lines.line(f)}" for f in suite.expected]
    if fs.stopped_early:
        notes.append("stopped early (--max-errors): the rest of the file was not checked")
    parts = []
    if suite.failed:
        counts = f"{plural(fs.errors, 'error')}, {plural(fs.warnings, 'warning')}"
        if fs.expect is not None:
            message = f"the file does not meet its expectation ({fs.expect}): {counts}"
        elif not fs.readable:
            message = f"the file cannot be read: {counts}"
        else:
            message = counts
        if suite.failing:
            own.append(_failing_lines(suite.failing))
        parts.append(
            f'      <failure message="{_attr(message)}" type="{_attr(_failure_type(suite))}">'
            f"{_text(_joined(own))}</failure>\n"
        )
    else:
        notes[:0] = own
    if notes:
        parts.append(f"      <system-out>{_text(_joined(notes))}</system-out>\n")
    if not parts:
        return head + "/>\n"
    return head + ">\n" + "".join(parts) + "    </testcase>\n"


def _failure_type(suite: _Suite) -> str:
    """The code of the file's first finding that fails it (``msgcli`` if none is listed)."""
    for f in suite.file_findings:
        if suite.fails(f):
            return f.code
    for number in suite.failing[:1]:
        for f in suite.lines[number]:
            if suite.fails(f):
                return f.code
    return "msgcli"


def _failing_lines(numbers: list[int], shown: int = 20) -> str:
    """``3 failing lines: 3, 4, 5`` (the first ``shown`` of them; each has its own case)."""
    listed = ", ".join(map(str, numbers[:shown]))
    more = f" and {len(numbers) - shown} more" if len(numbers) > shown else ""
    return f"{plural(len(numbers), 'failing line')}: {listed}{more}"


def _line_case(
    suite: _Suite, number: int, found: list[Finding], classname: str, lines: _Lines
) -> str:
    head = f'    <testcase name="line {number}" classname="{classname}" time="{_NO_TIME}">\n'
    body = _text(_joined(lines.line(f) for f in found))
    failing = [f for f in found if suite.fails(f)]
    if failing:
        first = failing[0]
        message = lines.short(first)
        if len(failing) > 1:
            message += f" (and {len(failing) - 1} more)"
        element = (
            f'      <failure message="{_attr(message)}" type="{_attr(first.code)}">'
            f"{body}</failure>\n"
        )
    else:
        element = f"      <system-out>{body}</system-out>\n"
    return head + element + "    </testcase>\n"


def _joined(items: Iterable[str]) -> str:
    text = "\n".join(items)
    return text + "\n" if text else ""
