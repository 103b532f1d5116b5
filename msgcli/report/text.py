"""The human report: one line per finding, grouped by file, then a summary.

Each finding reads ``path:line: SEVERITY CODE message (at /json/pointer)``, the
severity spelt out (``error`` or ``warning``) so it reads without colour too. Colour is
used when the output is a terminal, unless ``NO_COLOR`` is set (``FORCE_COLOR``
forces it); text taken from a log is printed literally, with control
characters made visible. Lines are written directly rather than through rich:
a report can have hundreds of thousands of them.
"""

from __future__ import annotations

import os
from typing import TextIO

from ..findings import INFO, RunReport
from ..render.words import plural
from ..textsafe import visible

_RESET = "\x1b[0m"
_STYLES = {
    "bold": "\x1b[1m",
    "dim": "\x1b[2m",
    "error": "\x1b[1;31m",
    "warning": "\x1b[1;33m",
    "info": "\x1b[1;36m",
    "ok": "\x1b[1;32m",
}


def use_colour(out: TextIO, colour: bool | None = None) -> bool:
    """Whether to colour ``out``: asked for, else a terminal without ``NO_COLOR``."""
    if colour is not None:
        return colour
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    isatty = getattr(out, "isatty", None)
    return bool(isatty and isatty()) and os.environ.get("TERM") != "dumb"


def report(
    run: RunReport,
    out: TextIO,
    *,
    quiet: bool = False,
    verbose: bool = False,
    color: bool | None = None,
    **_: object,
) -> None:
    if use_colour(out, color):

        def paint(text: str, style: str) -> str:
            return f"{_STYLES[style]}{text}{_RESET}"
    else:

        def paint(text: str, style: str) -> str:
            return text

    write = out.write
    for fr in run.files:
        fs = fr.summary
        if verbose:
            write(paint(visible(fs.path), "bold") + paint(": " + _describe(fr), "dim") + "\n")
        for f in fr.findings:
            where = paint(f" (at {visible(f.pointer)})", "dim") if f.pointer else ""
            code = paint(f"{f.severity.value} {f.code}", f.severity.value)
            write(
                f"{paint(visible(f.path), 'bold')}:{f.line}: {code} {visible(f.message)}{where}\n"
            )
    if verbose and run.summary.skipped:
        from ..inputs import SpecialFile

        special = [name for name in run.summary.skipped if isinstance(name, SpecialFile)]
        documents = [name for name in run.summary.skipped if not isinstance(name, SpecialFile)]
        if documents:
            said = "is no log" if len(documents) == 1 else "are no logs"
            listed = ", ".join(visible(name) for name in documents)
            write(
                paint(
                    f"skipped {plural(len(documents), 'JSON document')} that {said} of a "
                    f"known dialect: {listed}",
                    "dim",
                )
                + "\n"
            )
        if special:
            said = (
                "is a pipe, a socket or a device, not a regular file"
                if len(special) == 1
                else "are pipes, sockets or devices, not regular files"
            )
            listed = ", ".join(visible(name) for name in special)
            write(paint(f"skipped {plural(len(special), 'file')} that {said}: {listed}", "dim"))
            write("\n")
    if quiet:
        return
    s = run.summary
    dialects: dict[str, int] = {}
    for fr in run.files:
        if fr.summary.dialect:
            dialects[fr.summary.dialect] = dialects.get(fr.summary.dialect, 0) + 1
    kinds = ", ".join(f"{name} {count}" for name, count in sorted(dialects.items()))
    checked = f"Checked {plural(s.files, 'file')}" + (f" ({kinds})" if kinds else "")
    verdict = f"{plural(s.errors, 'error')}, {plural(s.warnings, 'warning')}"
    style = "error" if s.errors else ("warning" if s.warnings else "ok")
    line = f"{checked}, {plural(s.records, 'record')}: {paint(verdict, style)}"
    infos = sum(1 for fr in run.files for f in fr.findings if f.severity is INFO)
    if infos:
        line += f" ({plural(infos, 'info finding')})"
    negative = [fr.summary for fr in run.files if fr.summary.expect is not None]
    if negative:
        held = sum(1 for fs in negative if not fs.failed)
        line += (
            f"; {plural(len(negative), 'negative fixture')}, {held} as expected"
            f" ({plural(sum(fs.expected for fs in negative), 'finding')} expected)"
        )
    replayed = _replayed(run)
    if replayed:
        line += f"; {replayed}"
    if s.unreadable:
        line += paint(f"; {plural(s.unreadable, 'path')} could not be read", "error")
    if s.excluded:
        line += f"; {plural(s.excluded, 'file')} excluded by the configuration"
    if s.stopped_early:
        line += paint("; stopped early (--max-errors)", "bold")
    write(line + ".\n")


def _replayed(run: RunReport) -> str:
    """``replayed 33 events into 1 message (1 cut off); skipped 2 events of unknown types``."""
    events = messages = parked = cut = 0
    unknown: dict[str, int] = {}
    for fr in run.files:
        stats = fr.summary.replay
        if stats is None:
            continue
        events += stats.events
        messages += stats.messages
        parked += stats.parked
        cut += stats.cut
        for name, count in stats.unknown.items():
            unknown[name] = unknown.get(name, 0) + count
    if not events:
        return ""
    text = f"replayed {plural(events, 'event')} into {plural(messages, 'message')}"
    states = [f"{parked} parked" if parked else "", f"{cut} cut off" if cut else ""]
    if any(states):
        text += f" ({', '.join(s for s in states if s)})"
    if unknown:
        listed = ", ".join(f"{visible(k)} x{v}" for k, v in sorted(unknown.items()))
        text += f"; skipped {plural(sum(unknown.values()), 'event')} of unknown types: {listed}"
    return text


def _describe(fr) -> str:
    fs = fr.summary
    if fs.dialect is None:
        return f"no recognisable records, {plural(fs.records, 'record')}"
    described = fs.dialect + (f" ({', '.join(fs.variants)})" if fs.variants else "")
    state = (
        "ok"
        if not fr.findings
        else f"{plural(fs.errors, 'error')}, {plural(fs.warnings, 'warning')}"
    )
    if fs.expect is not None:
        against = f" ({os.path.basename(fs.sidecar)})" if fs.sidecar else ""
        state = f"expected invalid{against}: " + (
            f"not met, {plural(fs.errors, 'error')}"
            if fs.failed
            else f"as expected, {plural(fs.expected, 'finding')}"
        )
    return f"{described} {fs.kind}, {plural(fs.records, 'record')}, {state}"
