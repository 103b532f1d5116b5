"""The terminal view of a :class:`msgcli.compare.DiffResult`: a unified diff of two threads.

Steps that only one log has are drawn as ``msgcli show`` draws a message, every line
marked ``-`` (only in A) or ``+`` (only in B); a changed step gets its header and, for
each field that differs, the old value (``-``) and the new one (``+``), texts with the
changed words highlighted (``[-old-]{+new+}`` without colour). Runs of equal steps are
one line. Everything from a log is printed literally (no markup, control characters
escaped).
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.segment import Segment
from rich.text import Text

from ..compare import Difference, DiffResult, Op, Step, opcodes, trailing_space, words
from ..guard import deep_recursion
from ..model import ToolResultBlock
from ..stream import Item
from ..textsafe import visible
from .thread import ShowOptions, Unit, message_header, render_unit

__all__ = ["print_diff", "render_diff"]

_MARKS = {"-": "red", "+": "green", "~": "yellow", " ": "dim"}


class _Marked:
    """A renderable with a ``-``/``+``/``~`` mark before every line it takes."""

    def __init__(self, mark: str, renderable: RenderableType, left: int = 0):
        self.mark = mark
        self.renderable = renderable
        self.left = left

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = max(options.max_width - 2 - self.left, 10)
        lines = console.render_lines(self.renderable, options.update_width(width), pad=False)
        style = console.get_style(_MARKS[self.mark])
        margin = Segment(self.mark + " " + " " * self.left, style)
        for line in lines:
            yield margin
            yield from _rstrip(line)
            yield Segment.line()


def _rstrip(line: list[Segment]) -> list[Segment]:
    """A rendered line without the spaces a wrap leaves at its end."""
    while line and not line[-1].control:
        last = line[-1]
        text = last.text.rstrip(" ")
        if text == last.text:
            break
        line = line[:-1]
        if text:
            line.append(Segment(text, last.style))
            break
    return line


def print_diff(
    console: Console, result: DiffResult, *, marks: bool, max_chars: int = 2_000
) -> None:
    """Print the whole view; ``marks``: show changed words as ``[-…-]{+…+}`` (for output
    without colour). The two file lines are never wrapped, so a long path stays whole."""
    for mark, name, steps, style in (
        ("---", result.a, result.steps[0], "bold red"),
        ("+++", result.b, result.steps[1], "bold green"),
    ):
        line = Text(f"{mark} {visible(name)}  ({_count(steps, result.match)})", style=style)
        console.print(line, soft_wrap=True)
    with deep_recursion():  # a value may nest as deep as the reader takes (msgcli.guard)
        console.print(render_diff(result, marks=marks, max_chars=max_chars))


def render_diff(result: DiffResult, *, marks: bool, max_chars: int = 2_000) -> RenderableType:
    """The steps and the summary line (what follows the two file lines)."""
    options = ShowOptions(thinking="full", max_chars=max_chars)
    parts: list[RenderableType] = []
    for op in result.ops:
        parts.extend(_op(op, options, marks))
    summary = "no differences" if result.same else result.stat_line()
    parts.append(Text(summary, style="bold"))
    return Group(*parts)


def _count(n: int, match: str) -> str:
    unit = "tool call" if match == "tools" else "step"
    return f"{n:,} {unit}{'' if n == 1 else 's'}"


def _op(op: Op, options: ShowOptions, marks: bool) -> list[RenderableType]:
    if op.kind == "same":
        assert op.a is not None and op.b is not None
        if op.count == 1:
            where = f"A line {op.a.line}, B line {op.b.line}"
        else:
            where = f"from A line {op.a.line}, B line {op.b.line}"
        text = f"⋯ {op.count:,} same step{'' if op.count == 1 else 's'} ({where})"
        return [_Marked(" ", Text(text, style="dim"))]
    if op.kind == "extra":
        assert op.b is not None
        return [
            _Marked(
                " ", Text(f"⋯ B line {op.b.line}: {visible(op.b.label())} (not in A)", style="dim")
            )
        ]
    if op.kind in ("removed", "added"):
        step = op.a if op.kind == "removed" else op.b
        assert step is not None
        mark = "-" if op.kind == "removed" else "+"
        return [_Marked(mark, _step(step, options)), Text()]
    assert op.a is not None and op.b is not None
    head = message_header(_shown(op.b), Item(op.b.path, op.b.line), options)
    head.append(f"  (A line {op.a.line})", style="dim")
    out: list[RenderableType] = [_Marked("~", head)]
    for difference in op.differences:
        out.extend(_field(difference, marks))
    out.append(Text())
    return out


def _shown(step: Step) -> Any:
    """The step's message as ``show`` draws it: only the step's blocks, a split-off tool
    result under role ``tool``."""
    msg = step.message
    changes: dict[str, Any] = {"content": list(step.blocks)}
    if not step.first:  # the message's usage and end are shown with its first step
        changes.update(usage=None, fields={}, metadata=None)
    if step.role == "tool" and any(isinstance(b, ToolResultBlock) for b in step.blocks):
        changes["role"] = "tool"
    return dataclasses.replace(msg, **changes)


def _step(step: Step, options: ShowOptions) -> RenderableType:
    unit = Unit(Item(step.path, step.line, message=_shown(step)))
    return render_unit(unit, options)


def _field(d: Difference, marks: bool) -> list[RenderableType]:
    label = Text(visible(d.field or "/"), style="bold yellow")
    out: list[RenderableType] = [_Marked("~", label, 2)]
    old, new = d.old, d.new
    if isinstance(old, str) and isinstance(new, str):
        out.extend(_text_diff(old, new, marks))
        return out
    if d.old is not None or d.new is None:
        out.append(_Marked("-", Text(_value(old), style="red"), 4))
    if d.new is not None or d.old is None:
        out.append(_Marked("+", Text(_value(new), style="green"), 4))
    return out


def _value(value: Any) -> str:
    if value is None:
        return "(none)"
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return visible(text[:2000], multiline=True)


def _text_diff(old: str, new: str, marks: bool) -> list[RenderableType]:
    """The lines of two texts that differ, words highlighted; equal lines are counted."""
    a, b = old.split("\n"), new.split("\n")
    out: list[RenderableType] = []
    for tag, i1, i2, j1, j2 in opcodes(a, b):
        if tag == "equal":
            n = i2 - i1
            out.append(
                _Marked(" ", Text(f"⋯ {n} same line{'' if n == 1 else 's'}", style="dim"), 4)
            )
            continue
        removed, added = _word_diff("\n".join(a[i1:i2]), "\n".join(b[j1:j2]), marks)
        if i2 > i1:
            out.append(_Marked("-", removed, 4))
        if j2 > j1:
            out.append(_Marked("+", added, 4))
    return out


def _word_diff(old: str, new: str, marks: bool) -> tuple[Text, Text]:
    """Both texts with the words that differ highlighted (and bracketed with ``marks``)."""
    a, b = words(old), words(new)
    left, right = Text(style="red"), Text(style="green")
    for tag, i1, i2, j1, j2 in opcodes(a, b):
        if tag == "equal":
            chunk = visible("".join(a[i1:i2]), multiline=True)
            left.append(chunk)
            right.append(chunk)
            continue
        gone, came, space = trailing_space("".join(a[i1:i2]), "".join(b[j1:j2]))
        if gone:
            gone = visible(gone, multiline=True)
            left.append(f"[-{gone}-]" if marks else gone, style="bold white on red")
        if came:
            came = visible(came, multiline=True)
            right.append("{+" + came + "+}" if marks else came, style="bold white on green")
        if space:
            left.append(visible(space, multiline=True))
            right.append(visible(space, multiline=True))
    return left, right
