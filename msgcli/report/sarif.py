"""SARIF 2.1.0: the findings as static-analysis results, for code-scanning dashboards.

One run whose driver is msgcli, with every rule of the registry as a
reporting descriptor (so a result's ``ruleIndex`` is its rule's place in
:data:`msgcli.rules.RULES`), one result per finding, and one invocation with
the exit status. The document is the same for the same run: no timestamps,
no absolute paths but those given on the command line.

Where a finding is:

- ``artifactLocation.uri``: the path as msgcli prints it, as a URI reference:
  forward slashes, percent-encoded (bytes of a file name that is not UTF-8
  are kept as they are on disk). A relative path is relative to the directory
  msgcli ran in, named ``%SRCROOT%`` (``uriBaseId``): run msgcli from the
  root of the repository for code scanning to find the files. The directory
  itself is not written (no ``originalUriBaseIds``), so the document does not
  depend on where the checkout is. An absolute path becomes a ``file://`` URI.
- ``region.startLine``: the finding's line; no region for line 0 (the whole file).
- The JSON pointer into the record is in the message text, ``(at /pointer)``,
  as the text report writes it, and on its own in the result's property bag,
  ``properties.pointer``. Not in a ``logicalLocation``: a pointer names a place
  only inside the record on the finding's line, where a logical location is
  meant to name something by itself (a function, a type), and its ``kind``
  would have to be guessed from the pointer.
- Standard input (``<stdin>``) and streams handed to the API (``<stream>``) have
  no URI; SARIF has no name for them (an ``artifactLocation`` needs a ``uri`` or
  an ``index`` into ``artifacts``, and an artifact needs a location). Their
  results have no ``locations``, and carry ``properties.input`` (the name) and
  ``properties.line``.

Negative fixtures (``--expect-invalid``, ``.expect`` sidecars): the findings
that were expected are results with an external suppression naming the
sidecar (or ``--expect-invalid``), so dashboards show them closed; what did not
meet the expectation (rules ``F``) is reported as ordinary results.

Message texts are the findings' own, as in ``--format json``: JSON escapes
control characters, and SARIF viewers show ``message.text`` as plain text.

GitHub code scanning limits (docs.github.com: "SARIF support for code scanning",
"SARIF results exceed limit"): an upload with more than 25,000 results in a run
is rejected, and of those accepted only the top 5,000 by severity are shown; at
most 20 runs per file, 25,000 rules per run, 1,000 locations per result; the
gzip-compressed file at most 10 MB. msgcli writes one run with every finding and
does not cut it: a CI job that uploads to GitHub narrows the findings with
``--select``/``--ignore`` (or splits its inputs) until they fit.
"""

from __future__ import annotations

import codecs
import functools
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import quote

import orjson

from ..findings import ERROR, INFO, FileReport, FileSummary, Finding, RunReport
from ..reader import STDIN_NAME, STREAM_NAME
from ..rules import RULES, Rule
from ..textsafe import name_text

__all__ = ["SCHEMA_URI", "VERSION", "report", "to_document"]

VERSION = "2.1.0"
#: the OASIS standard's schema (with errata 01), which the tests validate against
SCHEMA_URI = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
SRCROOT = "%SRCROOT%"
_NO_URI = frozenset({STDIN_NAME, STREAM_NAME})
_NOT_ASCII = re.compile("[^\x00-\x7f]")


def report(run: RunReport, out: TextIO, **_: object) -> None:
    """Write :func:`to_document` as orjson indents it, one result at a time: the results
    are never all held at once (a run can have hundreds of thousands of findings)."""
    encoding = getattr(out, "encoding", None)
    ascii_only = bool(encoding) and codecs.lookup(str(encoding)).name != "utf-8"

    def write(text: str) -> None:
        if ascii_only:
            # every character outside ASCII is inside a JSON string: \u escapes keep it
            text = _NOT_ASCII.sub(_json_escape, text)
        out.write(text)

    frame = orjson.dumps(_document(run, []), option=orjson.OPT_INDENT_2).decode()
    head, tail = frame.rsplit(_NO_RESULTS, 1)
    write(head + '"results": [')
    separator = "\n"
    chunk: list[str] = []
    for fr in run.files:
        for result in _results(fr):
            text = orjson.dumps(result, option=orjson.OPT_INDENT_2).decode()
            chunk.append(separator + _RESULT_INDENT + text.replace("\n", "\n" + _RESULT_INDENT))
            separator = ",\n"
            if len(chunk) == _CHUNK:
                write("".join(chunk))
                chunk.clear()
    write("".join(chunk))
    # no result: "[]", as orjson writes an empty list
    write(("]" if separator == "\n" else "\n" + _RESULTS_INDENT + "]") + tail + "\n")


#: how orjson writes the empty results of :func:`_document`'s one run, and the indents of
#: the list's items and of its closing bracket
_NO_RESULTS = '"results": []'
_RESULTS_INDENT = " " * 6
_RESULT_INDENT = " " * 8
#: results written at a time
_CHUNK = 1000


def to_document(run: RunReport) -> dict[str, Any]:
    """The SARIF log of ``run``, as one JSON value."""
    return _document(run, [result for fr in run.files for result in _results(fr)])


def _document(run: RunReport, results: list[dict[str, Any]]) -> dict[str, Any]:
    from .. import __version__

    exit_code = run.exit_code
    return {
        "$schema": SCHEMA_URI,
        "version": VERSION,
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "msgcli",
                        "version": __version__,
                        "semanticVersion": __version__,
                        "rules": _rules(),
                    }
                },
                "invocations": [{"executionSuccessful": exit_code < 2, "exitCode": exit_code}],
                "results": results,
            }
        ],
    }


def _results(fr: FileReport) -> Iterator[dict[str, Any]]:
    """A file's results: its findings, then the findings a negative fixture expected."""
    for f in fr.findings:
        yield _result(f)
    if fr.expected:
        justification = _justification(fr.summary)
        for f in fr.expected:
            result = _result(f)
            result["suppressions"] = [{"kind": "external", "justification": justification}]
            yield result


#: SARIF's level for each severity (SARIF calls an informational result a "note")
_LEVELS = {"error": "error", "warning": "warning", "info": "note"}


@functools.cache
def _rule_index() -> dict[str, int]:
    return {code: i for i, code in enumerate(RULES)}


def _rules() -> list[dict[str, Any]]:
    return [_descriptor(rule) for rule in RULES.values()]


def _descriptor(rule: Rule) -> dict[str, Any]:
    level = _LEVELS[rule.severity.value]
    if rule.severity is ERROR:
        effect = "an error: it fails the run"
    elif rule.severity is INFO:
        effect = "an info finding (a note): it never fails the run"
    else:
        effect = "a warning: it fails the run only with --strict"
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "defaultConfiguration": {"level": level},
        "help": {
            "text": (
                f"{rule.summary}\n\nmsgcli reports {rule.code} ({rule.name}) as {effect}. "
                f"'--ignore {rule.code}' turns it off; 'msgcli rules' lists every rule."
            )
        },
    }


def _result(f: Finding) -> dict[str, Any]:
    text = name_text(f.message)
    pointer = name_text(f.pointer)
    if pointer:
        text += f" (at {pointer})"
    result: dict[str, Any] = {"ruleId": f.code}
    index = _rule_index().get(f.code)
    if index is not None:
        result["ruleIndex"] = index
    result["level"] = _LEVELS[f.severity.value]
    result["message"] = {"text": text}
    properties: dict[str, Any] = {}
    if f.path in _NO_URI:
        properties["input"] = f.path
        if f.line > 0:
            properties["line"] = f.line
    else:
        physical: dict[str, Any] = {"artifactLocation": _artifact_location(f.path)}
        if f.line > 0:
            physical["region"] = {"startLine": f.line}
        result["locations"] = [{"physicalLocation": physical}]
    if pointer:
        properties["pointer"] = pointer
    if properties:
        result["properties"] = properties
    return result


def _artifact_location(path: str) -> dict[str, str]:
    uri, base = _uri(path)
    return {"uri": uri, "uriBaseId": base} if base else {"uri": uri}


@functools.lru_cache(maxsize=1024)
def _uri(path: str) -> tuple[str, str | None]:
    """A relative path as a relative reference from ``%SRCROOT%``; an absolute one as a
    ``file://`` URI. (Cached: a file's findings share one path.)"""
    if os.path.isabs(path):
        return Path(path).as_uri(), None
    raw = os.fsencode(path)
    if os.sep != "/":
        raw = raw.replace(os.sep.encode(), b"/")
    while raw.startswith(b"./"):
        raw = raw[2:]
    # ':' and every other reserved character but '/' is encoded, so the first segment is
    # never taken for a scheme
    return quote(raw, safe="/"), SRCROOT


def _justification(fs: FileSummary) -> str:
    return f"expected by {name_text(fs.sidecar) if fs.sidecar else '--expect-invalid'}"


def _json_escape(match: re.Match) -> str:
    code = ord(match.group())
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
