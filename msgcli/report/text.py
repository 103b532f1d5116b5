"""The human report: one line per finding, grouped by file, then a summary.

Each finding reads ``path:line: CODE message (at /json/pointer)``. Colour is
used when the output is a terminal (and ``NO_COLOR`` is not set); text taken
from a log is printed literally, with control characters made visible.
"""

from __future__ import annotations

from typing import TextIO

from ..findings import ERROR
from ..pipeline import RunReport
from ..textsafe import visible


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def report(
    run: RunReport,
    out: TextIO,
    *,
    quiet: bool = False,
    verbose: bool = False,
    color: bool | None = None,
    **_: object,
) -> None:
    from rich.console import Console
    from rich.text import Text

    console = Console(
        file=out,
        markup=False,
        highlight=False,
        emoji=False,
        soft_wrap=True,
        force_terminal=color if color else None,
        no_color=color is False or None,
    )
    for fr in run.files:
        fs = fr.summary
        if verbose:
            line = Text()
            line.append(visible(fs.path), style="bold")
            described = fs.dialect or "unknown dialect"
            if fs.variants:
                described += f" ({', '.join(fs.variants)})"
            state = (
                "ok"
                if not fr.findings
                else (f"{_plural(fs.errors, 'error')}, {_plural(fs.warnings, 'warning')}")
            )
            line.append(
                f": {described}, {fs.kind}, {_plural(fs.records, 'record')}, {state}", style="dim"
            )
            console.print(line)
        for f in fr.findings:
            text = Text()
            text.append(visible(f.path), style="bold")
            text.append(f":{f.line}: ")
            text.append(f.code, style="bold red" if f.severity is ERROR else "bold yellow")
            text.append(" ")
            text.append(visible(f.message))
            if f.pointer:
                text.append(f" (at {visible(f.pointer)})", style="dim")
            console.print(text)
    if quiet:
        return
    s = run.summary
    dialects: dict[str, int] = {}
    for fr in run.files:
        if fr.summary.dialect:
            dialects[fr.summary.dialect] = dialects.get(fr.summary.dialect, 0) + 1
    kinds = ", ".join(f"{name} {count}" for name, count in sorted(dialects.items()))
    parts = [
        f"Checked {_plural(s.files, 'file')}" + (f" ({kinds})" if kinds else ""),
        _plural(s.records, "record"),
    ]
    verdict = f"{_plural(s.errors, 'error')}, {_plural(s.warnings, 'warning')}"
    style = "bold red" if s.errors else ("bold yellow" if s.warnings else "bold green")
    summary = Text(", ".join(parts) + ": ")
    summary.append(verdict, style=style)
    if s.unreadable:
        summary.append(f"; {_plural(s.unreadable, 'path')} could not be read", style="bold red")
    if s.stopped_early:
        summary.append("; stopped early (--max-errors)", style="bold")
    summary.append(".")
    console.print(summary)
