"""Negative fixtures: logs kept because they are broken, held to what they should break.

``msgcli validate --expect-invalid`` (or ``expect = "invalid"`` for a path in the
configuration) turns a file's verdict around: the file passes when it fails
validation. Without a sidecar that means at least one error (or, where warnings
fail the run, a warning). With an ``.expect`` sidecar beside it (``bad.jsonl`` ->
``bad.expect`` or ``bad.jsonl.expect``) the file must give exactly what the
sidecar lists:

``LINE CODE``
    one finding of this rule at this line (0: the whole file); list a pair twice
    for two findings.
``# expect: CODE, CODE``
    findings of these rules, at any lines and in any number, at least one each.

Any other text after ``#`` is a comment. A sidecar that lists nothing expects a
log with no finding at all. Rules left out by ``--select``/``--ignore`` are left
out of the expectation too.

What does not meet the expectation is reported in family ``F`` (F001-F004); the
file's own findings that were expected are kept aside in ``FileReport.expected``.
"""

from __future__ import annotations

import os
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .findings import ERROR, WARNING, FileReport, Finding
from .inputs import LOG_SUFFIXES
from .rules import RETIRED, RULES

if TYPE_CHECKING:  # pragma: no cover
    from .engine import Options

__all__ = ["INVALID", "Sidecar", "find_sidecar", "read_sidecar", "settle", "settled"]

INVALID = "invalid"
SUFFIX = ".expect"

_PAIR = re.compile(r"(\d+)\s+([A-Za-z]\d{3})")
_CODES = re.compile(r"#\s*expect\s*:(.*)", re.IGNORECASE)


def find_sidecar(log: str | Path) -> str | None:
    """The ``.expect`` file beside ``log``: ``bad.jsonl.expect``, else ``bad.expect``
    (named the way ``log`` is, so findings read like the log's)."""
    name = str(log)
    if os.path.isfile(name + SUFFIX):
        return name + SUFFIX
    for suffix in LOG_SUFFIXES:
        if name.endswith(suffix):
            stem = name[: -len(suffix)] + SUFFIX
            return stem if os.path.isfile(stem) else None
    return None


@dataclass(slots=True)
class Sidecar:
    """What a sidecar expects. Each entry keeps the sidecar line it was written on."""

    path: str
    #: ``(log line, code) -> [sidecar lines]``, one sidecar line per expected finding
    pairs: dict[tuple[int, str], list[int]] = field(default_factory=dict)
    #: ``code -> sidecar line`` of the ``# expect:`` lists
    codes: dict[str, int] = field(default_factory=dict)
    #: F004 findings: lines that cannot be read
    problems: list[Finding] = field(default_factory=list)


def read_sidecar(path: str | Path) -> Sidecar:
    name = str(path)
    sidecar = Sidecar(name)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        sidecar.problems.append(_finding(name, 0, "F004", f"cannot read the sidecar: {reason}"))
        return sidecar
    pairs: dict[tuple[int, str], list[int]] = defaultdict(list)
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        listed = _CODES.match(line)
        if listed:
            for code in re.split(r"[\s,]+", listed.group(1).split("#", 1)[0].strip()):
                if not code:
                    continue
                problem = _bad_code(code)
                if problem:
                    sidecar.problems.append(_finding(name, number, "F004", problem))
                else:
                    sidecar.codes.setdefault(code.upper(), number)
            continue
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        pair = _PAIR.fullmatch(line)
        if pair is None:
            sidecar.problems.append(
                _finding(
                    name,
                    number,
                    "F004",
                    f"cannot read {line!r}: a sidecar line is 'LINE CODE' (e.g. '12 T001') "
                    "or '# expect: CODE, CODE'",
                )
            )
            continue
        code = pair.group(2).upper()
        problem = _bad_code(code)
        if problem:
            sidecar.problems.append(_finding(name, number, "F004", problem))
            continue
        pairs[(int(pair.group(1)), code)].append(number)
    sidecar.pairs = dict(pairs)
    return sidecar


def settled(report: FileReport, options: Options, source: object) -> FileReport:
    """A checked file's report, held to its expectation when ``options`` say it is a
    negative fixture (``source``: the path its sidecar is found beside, if any)."""
    if options.expect is None:
        return report
    named = isinstance(source, (str, Path)) and source != "-"
    return settle(report, options.select, find_sidecar(source) if named else None)  # type: ignore[arg-type]


def settle(report: FileReport, select: frozenset[str], sidecar: str | None) -> FileReport:
    """Hold a checked file to its expectation; the report of what did not meet it."""
    own = report.findings
    fs = report.summary
    fs.expect = INVALID
    fs.errors = fs.warnings = 0
    problems: list[Finding] = []
    expected: list[Finding] = []
    if sidecar is None:
        expected = own
        warned = [f for f in own if f.severity is WARNING]
        if not any(f.severity is ERROR for f in own) and not (fs.strict and warned):
            found = f" (only {_count(len(warned), 'warning')})" if warned else ""
            problems.append(
                _finding(
                    fs.path,
                    0,
                    "F001",
                    f"the file is expected to be invalid, but it has no error{found}",
                )
            )
    else:
        fs.sidecar = sidecar
        wanted = read_sidecar(sidecar)
        problems.extend(wanted.problems)
        expected, problems_found = _match(fs.path, own, wanted, select)
        problems.extend(problems_found)
    problems = [f for f in problems if f.code in select]
    for f in problems:
        if f.severity is ERROR:
            fs.errors += 1
        else:
            fs.warnings += 1
    fs.expected = len(expected)
    problems.sort(key=lambda f: (f.path != fs.path, f.path, f.line, f.code))
    return FileReport(fs, problems, expected)


def _match(
    log: str, own: list[Finding], wanted: Sidecar, select: frozenset[str]
) -> tuple[list[Finding], list[Finding]]:
    """``(expected findings, F002/F003 findings)`` of a log held to its sidecar."""
    left = {k: list(v) for k, v in wanted.pairs.items() if k[1] in select}
    anywhere = {code: line for code, line in wanted.codes.items() if code in select}
    seen_codes: set[str] = set()
    expected: list[Finding] = []
    problems: list[Finding] = []
    by_line: dict[int, list[str]] = defaultdict(list)
    for f in own:
        by_line[f.line].append(f.code)
        key = (f.line, f.code)
        if left.get(key):
            left[key].pop(0)
            expected.append(f)
        elif f.code in anywhere:
            seen_codes.add(f.code)
            expected.append(f)
        else:
            problems.append(
                Finding(
                    log,
                    f.line,
                    "F003",
                    RULES["F003"].severity,
                    f"{f.code} {f.message} [not listed in {Path(wanted.path).name}]",
                    f.pointer,
                )
            )
    for (line, code), numbers in left.items():
        for number in numbers:
            there = sorted(set(by_line.get(line, ())) - {code})
            found = f"; found there: {', '.join(there)}" if there else ""
            at = f"line {line}" if line else "the file as a whole"
            problems.append(
                _finding(
                    wanted.path,
                    number,
                    "F002",
                    f"{code} ({RULES[code].name}) at {at} of {Path(log).name} did not occur{found}",
                )
            )
    for code, number in anywhere.items():
        if code not in seen_codes:
            problems.append(
                _finding(
                    wanted.path,
                    number,
                    "F002",
                    f"{code} ({RULES[code].name}) was expected somewhere in {Path(log).name} "
                    "and did not occur",
                )
            )
    return expected, problems


def _bad_code(code: str) -> str:
    upper = code.upper()
    if upper in RULES:
        return ""
    if upper in RETIRED:
        return f"{upper} is a retired rule code and is never reported ({RETIRED[upper]})"
    return f"{code!r} is not a rule code (see 'msgcli rules')"


def _finding(path: str, line: int, code: str, message: str) -> Finding:
    return Finding(path, line, code, RULES[code].severity, message)


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"
