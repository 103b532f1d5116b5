"""The conversation view: messages as a chat, tool results under the calls they answer.

:class:`Thread` takes the items of a log in order and hands out *units*: a
message together with the results that answer its tool calls. A message
whose calls are still unanswered is held back until their results arrive
(AgentScope Java and LoongFlow write results as later messages), until a
queue behind it is full; so the view streams, with a bounded look-ahead.

:func:`render_unit` turns a unit into rich renderables.
"""

from __future__ import annotations

import json
import re
import zlib
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import pairwise
from typing import Any

from rich.cells import cell_len
from rich.color import ColorSystem
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.measure import Measurement
from rich.segment import Segment
from rich.style import Style
from rich.text import Span, Text

from ..dialects import DIALECTS
from ..guard import deep_recursion, json_text
from ..model import (
    DataBlock,
    EvolveResultBlock,
    HintBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    UnknownBlock,
    ValueBlock,
)
from ..replayers import MARK_KEY, listed
from ..stream import Item
from ..textsafe import lines as split_lines
from ..textsafe import shown_as_is, visible

__all__ = [
    "ShowOptions",
    "Thread",
    "Unit",
    "Unprintable",
    "flat_lines",
    "lay_out",
    "render_notice",
    "render_unit",
]

ROLE_STYLES = {
    "user": "bold white on dark_green",
    "assistant": "bold white on blue",
    "system": "bold white on grey37",
    "tool": "bold black on yellow",
}
NAME_COLOURS = (
    "cyan",
    "magenta",
    "green",
    "yellow",
    "bright_blue",
    "bright_magenta",
    "bright_cyan",
    "orange3",
    "spring_green2",
    "deep_pink3",
    "gold3",
    "turquoise2",
)
STATE_STYLES = {
    "success": "bold green",
    "error": "bold red",
    "denied": "bold magenta",
    "interrupted": "bold yellow",
    "running": "bold cyan",
    "in_progress": "bold cyan",
}
_HOLD_LIMIT = 64
#: result states that say more is coming (a progress report, a result run elsewhere)
_NOT_FINAL = frozenset({"in_progress", "running"})


@dataclass(slots=True)
class ShowOptions:
    thinking: str = "fold"  # "fold", "full" or "hide"
    markdown: bool = False
    metadata: bool = False
    max_chars: int = 20_000
    fold_lines: int = 3
    #: tool results longer than this many lines are folded to them, unless ``full``
    result_lines: int = 6
    #: nothing folded: thinking, hints and tool results in full
    full: bool = False
    #: message id -> the short id shown (the shortest prefix that is unique in the file);
    #: None: the first 8 characters
    short_ids: dict[str, str] | None = None
    #: False: no colour is drawn, so JSON is not highlighted (it would not be seen)
    styles: bool = True


@dataclass(slots=True)
class Unit:
    """A message to show, with the results (from later messages) that answer its calls."""

    item: Item
    results: dict[Any, list[tuple[ToolResultBlock, Item]]] = field(default_factory=dict)


class Thread:
    """Pairs tool results with their calls across messages; ``emit(unit)`` gets the units
    in log order. ``show(item)`` decides whether a message is shown at all (the filters);
    a result answering a shown call is always shown under it.

    A message whose calls are unanswered waits at the head of a queue, and what comes
    after it waits behind it (other agents may speak in between), until its results
    have come or the queue is full.
    """

    def __init__(
        self,
        emit: Callable[[Unit], None],
        show: Callable[[Item], bool] = bool,
        limit: int = _HOLD_LIMIT,
    ):
        self.emit = emit
        self.show = show
        self.limit = limit
        self.queue: deque[Unit] = deque()
        self.waiting: dict[Any, Unit] = {}  # call id -> the queued unit that made the call

    def add(self, item: Item) -> None:
        msg = item.message
        if msg is not None:
            results = [b for b in msg.content if isinstance(b, ToolResultBlock)]
            if (
                results
                and len(results) == len(msg.content)
                and all(call_key(b.id) in self.waiting for b in results)
            ):
                # a message of results only, answering queued calls: shown under them
                owners = {call_key(b.id): self.waiting[call_key(b.id)] for b in results}
                for block in results:
                    cid = call_key(block.id)
                    # (a call answered twice in one message: both results go under it)
                    owners[cid].results.setdefault(cid, []).append((block, item))
                    if call_key(block.state) not in _NOT_FINAL:
                        self.waiting.pop(cid, None)
                self._flush()
                return
            if not self.show(item):
                return
            unit = Unit(item)
            answered = {call_key(b.id) for b in results}
            for call in msg.content:
                if (
                    isinstance(call, ToolCallBlock)
                    and call.id is not None
                    and call_key(call.id) not in answered
                ):
                    self.waiting.setdefault(call_key(call.id), unit)
        else:
            unit = Unit(item)
        self.queue.append(unit)
        self._flush()

    def close(self) -> None:
        self._flush(everything=True)

    def _flush(self, everything: bool = False) -> None:
        queue = self.queue
        while queue:
            head = queue[0]
            waits = any(owner is head for owner in self.waiting.values())
            if waits and not everything and len(queue) <= self.limit:
                return
            queue.popleft()
            if waits:
                for cid in [c for c, owner in self.waiting.items() if owner is head]:
                    del self.waiting[cid]
            self.emit(head)


# -- rendering -----------------------------------------------------------------------


def call_key(value: Any) -> Any:
    """A tool-call id as a dict key (a malformed record may hold a list there)."""
    return value if isinstance(value, (str, int, float, bool, type(None))) else json_text(value)


def name_style(name: Any) -> str:
    """A colour per sender name, the same on every run."""
    return _name_style(str(name))


@lru_cache(maxsize=1024)
def _name_style(text: str) -> str:
    return "bold " + NAME_COLOURS[zlib.crc32(text.encode("utf-8", "replace")) % len(NAME_COLOURS)]


def render_notice(item: Item) -> RenderableType:
    return Text(f"line {item.line}: {item.code} {visible(item.notice)}", style="red")


def render_unit(unit: Unit, options: ShowOptions) -> RenderableType:
    with deep_recursion():  # a value may nest as deep as the reader takes (msgcli.guard)
        return _render_unit(unit, options)


def _render_unit(unit: Unit, options: ShowOptions) -> RenderableType:
    msg = unit.item.message
    assert msg is not None
    parts: list[RenderableType] = [_header(msg, unit.item, options)]
    mark = msg.metadata.get(MARK_KEY) if isinstance(msg.metadata, dict) else None
    if isinstance(mark, dict):
        parts.append(_indent(_mark_line(mark)))
    inline = {call_key(b.id): b for b in msg.content if isinstance(b, ToolResultBlock)}
    calls = {call_key(b.id) for b in msg.content if isinstance(b, ToolCallBlock)}
    for block in msg.content:
        if isinstance(block, ToolResultBlock) and call_key(block.id) in calls:
            continue  # shown under its call
        parts.extend([_Indented(r, 2) for r in _block(block, options, standalone=True)])
        if isinstance(block, ToolCallBlock):
            answers: list[tuple[ToolResultBlock, Item | None]] = []
            cid = call_key(block.id)
            if cid in inline:
                answers.append((inline.pop(cid), None))
            answers.extend(unit.results.get(cid, ()))
            for result, source in answers:
                parts.extend([_Indented(r, 4) for r in _result(result, source, options)])
    structured = msg.fields.get("structured_output")
    if structured is not None:
        # what the reply returned for the structured model (AgentScope Python)
        parts.append(_indent(_Styled("structured output", "bold")))
        parts.append(_indent(_json(structured, options), 4))
    footer = _footer(msg)
    if footer is not None:
        parts.append(_indent(footer))
    if options.metadata and msg.metadata:
        parts.append(_indent(_Styled("metadata", "dim")))
        parts.append(_indent(_json(msg.metadata, options), 4))
    return Group(*parts)


def _indent(renderable: RenderableType, left: int = 2) -> RenderableType:
    return _Indented(renderable, left)


class _Indented:
    """A renderable shifted right, wrapped lines included, with no trailing blanks."""

    def __init__(self, renderable: RenderableType, left: int):
        self.renderable = renderable
        self.left = left

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = max(options.max_width - self.left, 10)
        lines = console.render_lines(self.renderable, options.update_width(width), pad=False)
        margin = Segment(" " * self.left)
        newline = Segment.line()
        for line in lines:
            yield margin
            yield from line
            yield newline

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        inner = Measurement.get(console, options, self.renderable)
        return Measurement(inner.minimum + self.left, inner.maximum + self.left)


def lay_out(
    console: Console, renderable: RenderableType, width: int, options: ConsoleOptions
) -> list[list[Segment]]:
    """The lines (segments, no newlines) of a renderable :func:`render_unit` made, at
    ``width`` columns, each block laid out once: what ``console.render_lines`` gives for it
    (without padding), segment for segment, without laying an indented block out again at
    every level it is nested in.

    A text's lines that fit are made into segments directly; rich wraps only the lines
    wider than ``width`` (and a text with tabs); a renderable of another kind (a table,
    Markdown) is rendered by rich.
    """
    kind = type(renderable)
    if kind is _Indented:
        left = renderable.left  # type: ignore[union-attr]
        inner = max(width - left, 10)
        margin = Segment(" " * left)
        laid = lay_out(console, renderable.renderable, inner, options)  # type: ignore[union-attr]
        lines = [[margin, *line] for line in laid]
        if left + inner > width:  # the block is wider than the width left: cut, as rich does
            lines = [Segment.adjust_line_length(line, width, pad=False) for line in lines]
        return lines
    if kind is Group:
        out: list[list[Segment]] = []
        for child in renderable.renderables:  # type: ignore[union-attr]
            out.extend(lay_out(console, child, width, options))
        return out
    if kind is _Styled:
        text = renderable.text()  # type: ignore[union-attr]
        return _text_lines(console, text, width, options)
    if kind is Text:
        return _text_lines(console, renderable, width, options)  # type: ignore[arg-type]
    return console.render_lines(renderable, options.update_width(width), pad=False)


def _text_lines(
    console: Console, text: Text, width: int, options: ConsoleOptions
) -> list[list[Segment]]:
    """A text's lines as rich lays them out (``Text.wrap`` joined and rendered): each line
    that fits becomes the segments rich would make of it; a wider one is wrapped by rich."""
    plain = text.plain
    if "\t" in plain or text.justify or text.overflow or text.no_wrap or text.end != "\n":
        return console.render_lines(text, options.update_width(width), pad=False)
    base = text.style
    style = console.get_style(base) if base else None
    out: list[list[Segment]] = []
    for line in text.split("\n", allow_blank=True) if "\n" in plain else (text,):
        shown = line.plain
        if cell_len(shown) > width:
            out.extend(console.render_lines(line, options.update_width(width), pad=False))
            continue
        spans = line.spans
        if not spans:
            out.append([Segment(shown, style)] if style is not None else [Segment(shown)])
            continue
        # the line as rich renders it once the wrapped lines are joined: its style a span
        # under the spans of its own
        joined = Text(shown)
        joined.spans = [Span(0, len(shown), base), *spans] if base else list(spans)
        out.append(list(joined.render(console)))
    return out


class Unprintable(Exception):
    """A text that the console would still escape: :func:`flat_lines` leaves it to rich."""


def flat_lines(
    console: Console,
    renderable: RenderableType,
    width: int,
    options: ConsoleOptions,
    margin: str = "",
) -> list[str]:
    """The lines a console writes for ``renderable`` at ``width`` columns, each shifted by
    ``margin`` and ending at its last visible character, styles written as the console
    writes them (none without colour): the text ``console.print(Trimmed(...))`` writes,
    without making segments where no colour is drawn, and with one margin per line rather
    than one per level of indentation. Raises :class:`Unprintable` for a text the console
    would escape (the caller prints it through the console)."""
    out: list[str] = []
    colour = console.color_system is not None
    _flat(console, renderable, width, options, margin, colour, out)
    return out


def _flat(
    console: Console,
    renderable: RenderableType,
    width: int,
    options: ConsoleOptions,
    margin: str,
    colour: bool,
    out: list[str],
) -> None:
    kind = type(renderable)
    if kind is _Indented:
        left = renderable.left  # type: ignore[union-attr]
        if width - left < 10:  # narrower than rich lets it be: cut as rich cuts it
            _segment_lines(console, lay_out(console, renderable, width, options), margin, out)
            return
        renderable = renderable.renderable  # type: ignore[union-attr]
        kind = type(renderable)
        width -= left
        margin += " " * left
        if kind is _Styled and not colour:  # (the most common block: a plain text)
            _styled_lines(console, renderable.plain, width, options, margin, out)  # type: ignore[union-attr]
        else:
            _flat(console, renderable, width, options, margin, colour, out)
    elif kind is Group:
        for child in renderable.renderables:  # type: ignore[union-attr]
            _flat(console, child, width, options, margin, colour, out)
    elif kind is _Styled and not colour:
        _styled_lines(console, renderable.plain, width, options, margin, out)  # type: ignore[union-attr]
    elif kind is _Evolve and not colour:
        lines = renderable.plain_lines(width)  # type: ignore[union-attr]
        if lines is None:
            table = renderable.table()  # type: ignore[union-attr]
            _flat(console, table, width, options, margin, colour, out)
        else:
            out.extend([(margin + line).rstrip(" ") for line in lines])
    elif kind is Text or kind is _Styled:
        text: Text = renderable if kind is Text else renderable.text()  # type: ignore[union-attr,assignment]
        if not shown_as_is(text.plain):
            raise Unprintable
        if colour:
            _segment_lines(console, _text_lines(console, text, width, options), margin, out)
            return
        plain = text.plain
        if text.justify or text.overflow or text.no_wrap or text.end != "\n" or text.tab_size:
            _segment_lines(console, _text_lines(console, text, width, options), margin, out)
            return
        _plain_lines(console, plain, width, options, margin, out)
    else:
        rendered = console.render_lines(renderable, options.update_width(width), pad=False)
        for segments in rendered:
            for segment in segments:
                if not segment.control and not shown_as_is(segment.text):
                    raise Unprintable
        _segment_lines(console, rendered, margin, out)


def _styled_lines(
    console: Console,
    plain: str,
    width: int,
    options: ConsoleOptions,
    margin: str,
    out: list[str],
) -> None:
    """A :class:`_Styled` text's lines without colour (:func:`_plain_lines`), the text
    checked first for what the console would escape (:class:`Unprintable`)."""
    if plain.isascii():  # (answered without reading the text)
        simple = (plain.replace("\n", " ") if "\n" in plain else plain).isprintable()
    else:
        simple = _PLAIN_CELLS.issuperset(plain)
    if simple:
        # printable characters one cell wide each, and newlines: nothing to escape, and
        # each line is as long as it is wide
        append = out.append
        for line in plain.split("\n") if "\n" in plain else (plain,):
            if len(line) <= width:
                append((margin + line).rstrip(" "))
            else:
                out.extend([(margin + piece).rstrip(" ") for piece in wrap_single(line, width)])
        return
    if not shown_as_is(plain):
        raise Unprintable
    _plain_lines(console, plain, width, options, margin, out)


def _plain_lines(
    console: Console,
    plain: str,
    width: int,
    options: ConsoleOptions,
    margin: str,
    out: list[str],
) -> None:
    """A text of no style (nor justification, overflow or tab size of its own) laid out at
    ``width`` columns without colour, as plain strings after ``margin``."""
    append = out.append
    tab_size = console.tab_size or 8
    for line in plain.split("\n") if "\n" in plain else (plain,):
        if line.isprintable():  # (no tab: as wrap_plain lays it out, each thing asked once)
            if line.isascii() or _single_cells(line):
                if len(line) <= width:
                    append((margin + line).rstrip(" "))
                    continue
                pieces: list[str] | None = wrap_single(line, width)
            elif cell_len(line) <= width:
                append((margin + line).rstrip(" "))
                continue
            else:
                pieces = None
        else:
            pieces = wrap_plain(line, width, tab_size)
        if pieces is None:
            wrapped = console.render_lines(
                Text(expand_tabs(line, tab_size)), options.update_width(width), pad=False
            )
            _segment_lines(console, wrapped, margin, out)
        else:
            out.extend([(margin + piece).rstrip(" ") for piece in pieces])


_WORD_AT = re.compile(r"( *[^ ]+) *")  # a word (group 1) and the spaces after it
_SPACES = re.compile(" *")
_TRAILING_SPACE = re.compile(r"\s+$")


def wrap_plain(line: str, width: int, tab_size: int = 8) -> list[str] | None:
    """One line of a text (no newline in it) as rich lays it out at ``width`` columns
    without colour: tabs expanded, wrapped where rich wraps; None for a line rich must wrap
    itself (characters wider or narrower than one cell, or not printable)."""
    if "\t" in line:
        line = expand_tabs(line, tab_size)
    if line.isprintable() and (line.isascii() or _single_cells(line)):
        return [line] if len(line) <= width else wrap_single(line, width)
    if cell_len(line) <= width:
        return [line]
    return None


def expand_tabs(line: str, tab_size: int) -> str:
    """Tabs as rich expands them (``Text.expand_tabs``): each a space, then spaces up to
    the next tab stop."""
    if "\t" not in line:
        return line
    parts = line.split("\t")
    out = []
    position = 0
    for part in parts[:-1]:
        piece = part + " "
        position += cell_len(piece)
        remainder = position % tab_size
        if remainder:
            piece += " " * (tab_size - remainder)
            position += tab_size - remainder
        out.append(piece)
    out.append(parts[-1])
    return "".join(out)


#: characters known to take one cell on the screen (printable ASCII, and each other one
#: measured so far), and known not to
_ONE_CELL: set[str] = set(map(chr, range(0x20, 0x7F)))
_NOT_ONE_CELL: set[str] = set()
#: the printable ones of :data:`_ONE_CELL`, and the newline
_PLAIN_CELLS: set[str] = {*_ONE_CELL, "\n"}


def _single_cells(line: str) -> bool:
    """Whether every character of ``line`` takes one cell on the screen (each character
    measured by rich once per process)."""
    if _ONE_CELL.issuperset(line):
        return True
    for char in set(line) - _ONE_CELL:
        if char in _NOT_ONE_CELL:
            return False
        if cell_len(char) != 1:
            _NOT_ONE_CELL.add(char)
            return False
        _ONE_CELL.add(char)
        if char.isprintable():
            _PLAIN_CELLS.add(char)
    return True


def wrap_single(line: str, width: int) -> list[str]:
    """A printable line of characters one cell wide each (ASCII, most alphabets) wrapped to
    ``width`` as rich wraps it (``Text.wrap``: breaks before the word that does not fit, a
    word wider than the line folded; spaces beyond the width dropped), without making a
    text per line, and going from line to line rather than from word to word.

    (In a printable line the only blank is the space. A word is rich's: its characters and
    the spaces after it, the first word with the spaces before it too.)"""
    breaks: list[int] = []
    text_end = len(line.rstrip(" "))
    lead = len(line) - len(line.lstrip(" "))
    at = 0  # where the current line starts
    while text_end - at > width:
        beyond = at + width  # the first character that does not fit
        if line[beyond] == " ":
            start = _SPACES.match(line, beyond).end()  # type: ignore[union-attr]
        else:
            space = line.rfind(" ", at, beyond)
            start = space + 1 if space >= 0 else at
        if at == 0 and start <= lead:
            start = 0  # the first word holds the spaces before it
        word = _WORD_AT.match(line, start)
        assert word is not None
        if word.end(1) - start > width:  # wider than a line: folded
            last = (word.end() - start - 1) // width
            if start:
                breaks.append(start)
            breaks.extend(start + k * width for k in range(1, last + 1))
            at = start + last * width
        else:
            breaks.append(start)
            at = start
    pieces = []
    bounds = [0, *breaks, len(line)]
    for a, b in pairwise(bounds):
        piece = line[a:b]
        if len(piece) > width:
            spaces = _TRAILING_SPACE.search(piece)
            if spaces is not None:
                piece = piece[: len(piece) - min(len(spaces.group()), len(piece) - width)]
            piece = piece[:width]
        pieces.append(piece)
    return pieces


@lru_cache(maxsize=4096)
def _sgr(style: Style, system: ColorSystem) -> str:
    """The SGR codes of ``style`` for the colour system ``system``. (rich keeps one set on each
    style object, made for the first console that rendered it; a style is shared by every
    console of the process, which may draw colours in another system.)"""
    fresh = style.copy()
    fresh._ansi = None
    return fresh._make_ansi_codes(system)


def _styled(style: Style, text: str, system: ColorSystem | None) -> str:
    """``text`` in ``style`` as ``Style.render`` writes it, for the console's own system."""
    if not text or system is None:
        return text
    codes = _sgr(style, system)
    rendered = f"\x1b[{codes}m{text}\x1b[0m" if codes else text
    if style.link:
        rendered = f"\x1b]8;id={style._link_id};{style.link}\x1b\\{rendered}\x1b]8;;\x1b\\"
    return rendered


def _segment_lines(
    console: Console, lines: list[list[Segment]], margin: str, out: list[str]
) -> None:
    """Laid-out lines written as the console writes them, after ``margin``, with no spaces
    after the last visible character (``Trimmed``)."""
    system = console._color_system  # the console's own: what it renders styles for
    terminal = console.is_terminal  # (a control is written to a terminal only)
    append = out.append
    for line in lines:
        while line:
            last = line[-1]
            if last.control:
                break
            text = last.text.rstrip(" ")
            if text:
                if len(text) != len(last.text):
                    line[-1] = Segment(text, last.style, last.control)
                break
            line.pop()
        if not line:
            append("")
            continue
        append(
            margin
            + "".join(
                [
                    _styled(s.style, s.text, system)
                    if s.style
                    else ("" if s.control and not terminal else s.text)
                    for s in line
                ]
            )
        )


#: the fewest characters of an id ``show`` prints
SHORT_ID = 8


#: a word ids of one kind start with (``chatcmpl-``, ``msg_``): it tells them apart from nothing
_ID_WORD = re.compile(r"[A-Za-z]+[-_]")


def short_id(message_id: str, known: dict[str, str] | None) -> str:
    """The id as the header shows it: from ``known`` (the shortest unique prefix in the
    file), or when the file was not read for its ids, 8 characters after a leading word."""
    if known is not None and message_id in known:
        return known[message_id]
    word = _ID_WORD.match(message_id)
    return message_id[: (word.end() if word else 0) + SHORT_ID]


def short_ids(ids: list[str], minimum: int = SHORT_ID) -> dict[str, str]:
    """For each id, its shortest prefix of at least ``minimum`` characters that no other id
    starts with (the whole id when another id is the same or starts with it)."""
    ordered = sorted(set(ids))
    need = dict.fromkeys(ordered, minimum)
    for a, b in pairwise(ordered):
        common = _common_prefix(a, b)
        need[a] = max(need[a], common + 1)
        need[b] = max(need[b], common + 1)
    return {i: i[:n] for i, n in need.items()}


def _common_prefix(a: str, b: str) -> int:
    """How many characters ``a`` and ``b`` start with in common (found by halving)."""
    same, differ = 0, min(len(a), len(b))
    if a[:differ] == b[:differ]:
        return differ
    while differ - same > 1:  # a[:same] == b[:same], a[:differ] != b[:differ]
        middle = (same + differ) // 2
        if a[:middle] == b[:middle]:
            same = middle
        else:
            differ = middle
    return same


def message_header(msg: Message, item: Item, options: ShowOptions) -> Text:
    return _header(msg, item, options).text()


def _header(msg: Message, item: Item, options: ShowOptions) -> _Styled:
    role = str(msg.role) if msg.role is not None else "?"
    name = msg.name
    pieces = list(_sender(role, None if name is None else str(name)))
    if msg.timestamp:
        pieces.append((f"  {visible(str(msg.timestamp))}", "dim"))
    if msg.id:
        pieces.append((f"  #{visible(short_id(str(msg.id), options.short_ids))}", "dim"))
    pieces.append((f"  line {item.line}", "dim"))
    if item.where:
        pieces.append((f"  at {visible(item.where)}", "dim"))
    return _assembled(pieces)


@lru_cache(maxsize=1024)
def _sender(role: str, name: str | None) -> tuple[tuple[str, str | None], ...]:
    """The pieces of a header that say who speaks: the role, and the name (if any)."""
    pieces: list[tuple[str, str | None]] = [
        (f" {visible(role.upper())} ", ROLE_STYLES.get(role.lower(), "bold white on magenta"))
    ]
    if name is not None:
        pieces.append((" ", None))
        pieces.append((visible(name), name_style(name)))
    return tuple(pieces)


def _assembled(pieces: list[tuple[str, str | None]], style: str = "") -> _Styled:
    """The text ``Text(style=style)`` and ``Text.append`` make of these pieces (text, style)
    one after the other (the pieces are shown with :func:`visible`: no control character to
    strip)."""
    return _Styled("".join([piece for piece, _ in pieces]), style, pieces)


class _Styled:
    """A text of the view: ``plain`` (already passed through :func:`visible`, so it holds
    none of the control codes rich strips) in ``style``, and the ``pieces`` (text, style) it
    is made of, if any, each piece's style a span over it. Where no colour is drawn it is laid
    out as plain text; rich draws it as the :class:`~rich.text.Text` it stands for."""

    __slots__ = ("pieces", "plain", "style")

    def __init__(
        self, plain: str, style: str = "", pieces: list[tuple[str, str | None]] | None = None
    ):
        self.plain = plain
        self.style = style
        self.pieces = pieces

    def text(self) -> Text:
        """The rich text: what ``Text(plain, style=style)`` (and appending the pieces) makes."""
        text = Text(style=self.style)
        text._text = [self.plain]
        text._length = len(self.plain)
        if self.pieces:
            spans = []
            offset = 0
            for piece, style in self.pieces:
                if piece and style:
                    spans.append(Span(offset, offset + len(piece), style))
                offset += len(piece)
            text._spans = spans
        return text

    def __rich__(self) -> Text:
        return self.text()


def _mark_line(mark: dict) -> _Styled:
    state = mark.get("state")
    opened = ", ".join(visible(str(x)) for x in listed(mark.get("open")))
    what = {
        "cut": "incomplete: the stream stopped here",
        "open": "unfinished at the point the replay stopped",
        "orphan": "rebuilt from events of a reply that never started",
    }.get(str(state), f"replay state {visible(str(state))}")
    if opened:
        what += f" (open: {opened})"
    return _Styled(f"⚠ {what}", "bold yellow")


def _cut(text: str, limit: int) -> str:
    if limit and len(text) > limit:
        return text[:limit] + f"… [{len(text) - limit:,} more characters; see --max-chars]"
    return text


def _shown(plain: str, style: str = "") -> _Styled:
    """``Text(plain, style=style)`` for a text already passed through :func:`visible`: it
    holds none of the control codes rich strips, so rich's pass over it (slow on a long
    text that is not ASCII) is left out."""
    return _Styled(plain, style)


def _plain(value: Any, options: ShowOptions) -> _Styled:
    text = value if isinstance(value, str) else json_text(value)
    return _Styled(visible(_cut(text, options.max_chars), multiline=True))


def _json(value: Any, options: ShowOptions) -> _Styled | Text:
    dumped = json_text(value, indent=True)
    shown = _Styled(visible(_cut(dumped, options.max_chars), multiline=True))
    if not options.styles:
        return shown
    text = shown.text()
    _json_highlighter().highlight(text)
    return text


@lru_cache(maxsize=1)
def _json_highlighter() -> Any:
    from rich.highlighter import JSONHighlighter

    return JSONHighlighter()


def _folded(label: str, body: str, style: str, options: ShowOptions) -> list[RenderableType]:
    head = _Styled(label, f"{style} italic")
    whole = options.thinking == "full" or options.full
    text, more = _fold(body, options.fold_lines, whole, options)
    out: list[RenderableType] = [head, _indent(_shown(text, style))]
    if more:
        out.append(_indent(_Styled(f"{more} (--thinking full)", style)))
    return out


def _fold(body: str, keep: int, whole: bool, options: ShowOptions) -> tuple[str, str]:
    """``(text shown, "… N more lines" or "")``: the first ``keep`` lines of a long text."""
    lines = split_lines(body) or [""]
    rest = 0 if whole or len(lines) <= keep else len(lines) - keep
    shown = lines[:keep] if rest else lines
    text = visible(_cut("\n".join(shown), options.max_chars), multiline=True)
    return text, (f"… {rest} more line{'' if rest == 1 else 's'}" if rest else "")


def _result_text(value: Any, options: ShowOptions) -> list[RenderableType]:
    """A tool result's text, folded to its first lines unless ``--full``."""
    body = value if isinstance(value, str) else json_text(value)
    text, more = _fold(body, options.result_lines, options.full, options)
    out: list[RenderableType] = [_shown(text)]
    if more:
        out.append(_Styled(f"{more} (--full)", "dim"))
    return out


def _block(block: Any, options: ShowOptions, standalone: bool = False) -> list[RenderableType]:
    if isinstance(block, TextBlock):
        if options.markdown and isinstance(block.text, str):
            from rich.markdown import Markdown

            return [Markdown(visible(_cut(block.text, options.max_chars), multiline=True))]
        return [_plain(block.text, options)]
    if isinstance(block, ThinkingBlock):
        if options.thinking == "hide":
            return []
        thought = block.thinking
        if (
            not thought
            and "content" in block.fields
            and not isinstance(block.fields["content"], str)
        ):
            thought = block.fields["content"]  # LoongFlow: a thought that is an object
        body = thought if isinstance(thought, str) else _pretty(thought)
        return _folded("thinking", body, "dim", options)
    if isinstance(block, HintBlock):
        if options.thinking == "hide":
            return []
        hint = block.hint
        label = "hint" + (f" ({visible(str(block.source))})" if block.source else "")
        if isinstance(hint, list):
            return _list_hint(label, hint, options)
        body = hint if isinstance(hint, str) else _pretty(hint)
        return _folded(label, body, "dim", options)
    if isinstance(block, ToolCallBlock):
        return _call(block, options)
    if isinstance(block, ToolResultBlock):
        return _result(block, None, options, standalone=standalone)
    if isinstance(block, DataBlock):
        return [media_line(block)]
    if isinstance(block, ValueBlock):
        kind = _Styled(f"value ({visible(str(block.mime_type or 'json'))})", "dim")
        mime = (
            block.mime_type.split(";")[0].strip().lower()
            if isinstance(block.mime_type, str)
            else ""
        )
        if isinstance(block.value, str) and mime.startswith("text/"):
            # text of another kind than plain (markdown, csv, html ...): shown as text
            if options.markdown and mime == "text/markdown":
                from rich.markdown import Markdown

                shown = visible(_cut(block.value, options.max_chars), multiline=True)
                return [kind, _indent(Markdown(shown))]
            return [kind, _indent(_plain(block.value, options))]
        return [kind, _indent(_json(block.value, options))]
    if isinstance(block, EvolveResultBlock):
        return [_evolve(block)]
    if isinstance(block, UnknownBlock):
        return [
            _Styled(f"block of unknown type {visible(str(block.type))}", "dim"),
            _indent(_json(block.raw, options)),
        ]
    return [_Styled(f"{visible(str(getattr(block, 'type', '?')))} block", "dim")]


def _pretty(value: Any) -> str:
    return json_text(value, indent=True)


def _list_hint(label: str, items: list, options: ShowOptions) -> list[RenderableType]:
    """A hint made of blocks (AgentScope Python: text and data blocks, e.g. the framework's
    structured-output hint or a background tool's result): its text, folded as a hint is,
    and one line per media block, never the base64 itself."""
    from ..dialects.agentscope_py import read_nested_block

    texts: list[str] = []
    media: list[RenderableType] = []
    for i, item in enumerate(items):
        inner = read_nested_block(item, ("hint", i))
        if isinstance(inner, TextBlock) and isinstance(inner.text, str):
            texts.append(inner.text)
        elif isinstance(inner, DataBlock):
            media.append(_indent(media_line(inner)))
        else:
            texts.append(_pretty(item))
    out = (
        _folded(label, "\n\n".join(texts), "dim", options)
        if texts
        else [_Styled(label, "dim italic")]
    )
    return out + media


def _call(block: ToolCallBlock, options: ShowOptions) -> list[RenderableType]:
    name = visible(str(block.name))
    pieces: list[tuple[str, str | None]] = [
        ("→ ", None),
        (name, "bold") if name else ("(no name)", "dim italic"),
    ]
    if block.id is not None:
        pieces.append((f"  {visible(str(block.id))}", "dim"))
    if block.state:
        pieces.append((f"  {visible(str(block.state))}", "dim"))
    head = _assembled(pieces, "bold")
    text = block.fields.get("as_text")
    if isinstance(text, str):  # input a person reads as text (a patch)
        return [head, _indent(_plain(text, options))]
    args: Any = block.arguments
    if not args and isinstance(block.input, str) and block.input.strip() not in ("", "{}"):
        args = None  # the argument text says more (a call cut off while it streamed)
    if args is None and isinstance(block.input, str):
        try:
            args = json.loads(block.input) if block.input.strip() else {}
        except (ValueError, RecursionError):
            return [head, _indent(_plain(block.input, options))]
    elif args is None:
        args = block.input
    return [head, _indent(_json(args, options))]


def _result(
    block: ToolResultBlock, source: Item | None, options: ShowOptions, standalone: bool = False
) -> list[RenderableType]:
    state = str(block.state) if block.state is not None else "no state"
    pieces: list[tuple[str, str | None]] = [("← ", None)]
    if standalone:
        pieces.append((f"result of {visible(str(block.name))}", "bold"))
        if block.id is not None:
            pieces.append((f"  {visible(str(block.id))}", "dim"))
        pieces.append(("  ", None))
    pieces.append((visible(state), STATE_STYLES.get(state.lower(), "bold")))
    if source is not None:
        msg = source.message
        who = f" from {visible(str(msg.name))}" if msg is not None and msg.name else ""
        pieces.append((f"  line {source.line}{who}", "dim"))
    out: list[RenderableType] = [_assembled(pieces, "bold")]
    output = block.output
    if isinstance(output, list):
        for inner in output:
            if isinstance(inner, TextBlock) and not options.markdown:
                out.extend([_Indented(r, 2) for r in _result_text(inner.text, options)])
            else:
                out.extend([_Indented(r, 2) for r in _block(inner, options)])
    elif output is not None and output != "":
        out.extend([_Indented(r, 2) for r in _result_text(output, options)])
    return out


def media_line(block: DataBlock) -> _Styled:
    """``▣ image/png · 67 B · red-pixel.png``: never the base64 itself."""
    source = block.source
    kind = str(block.kind) if block.kind not in (None, "content", "data") else ""
    media_type = source.media_type if source is not None else None
    parts = [visible(str(x)) for x in (kind, media_type) if x]
    if source is not None and source.kind == "base64" and isinstance(source.data, str):
        parts.append(human_size(decoded_size(source.data)))
    if block.name:
        parts.append(visible(str(block.name)))
    if source is not None and source.kind == "url" and source.url:
        url = visible(str(source.url))
        parts.append(url if len(url) <= 120 else url[:119] + "…")
    return _Styled("▣ " + (" · ".join(parts) or "data"), "cyan")


def decoded_size(data: str) -> int:
    """Bytes a base64 text decodes to (without decoding it)."""
    body = "".join(data.split())  # (without its whitespace, as re's \s sees it)
    if not body:
        return 0
    padding = len(body) - len(body.rstrip("="))
    return max(len(body) * 3 // 4 - padding, 0)


def human_size(size: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024  # type: ignore[assignment]
    return f"{size} B"


def _evolve(block: EvolveResultBlock) -> _Evolve:
    rows = []
    for key, value in block.fields.items():
        if key == "type":
            continue
        shown = value if isinstance(value, str) else json_text(value)
        rows.append((visible(str(key)), visible(_cut(shown, 400), multiline=True)))
    return _Evolve(rows)


_EVOLVE_TITLE = "evolve_result"


class _Evolve:
    """LoongFlow's ``evolve_result``: a table of its keys and values under a title, drawn by
    rich's :class:`~rich.table.Table`; where no colour is drawn and each row is one line
    of one-cell characters that fits, laid out directly as that table lays it out."""

    __slots__ = ("rows",)

    def __init__(self, rows: list[tuple[str, str]]):
        #: (key, value), both shown with :func:`visible`
        self.rows = rows

    def table(self) -> Any:
        from rich.table import Table

        table = Table(title=_EVOLVE_TITLE, title_style="bold", show_header=False, box=None)
        table.add_column(style="dim")
        table.add_column()
        for key, value in self.rows:
            table.add_row(_shown(key).text(), _shown(value).text())
        return table

    def __rich__(self) -> Any:
        return self.table()

    def plain_lines(self, width: int) -> list[str] | None:
        """The table's lines at ``width`` columns without colour, each ending at its last
        visible character; None where rich must lay it out (a cell of several lines, of
        characters other than printable one-cell ones, a table wider than ``width`` or
        narrower than its title, no rows)."""
        rows = self.rows
        if not rows:
            return None
        for key, value in rows:
            for cell in (key, value):
                if not (cell.isprintable() and (cell.isascii() or _single_cells(cell))):
                    return None  # (a newline or a tab is not printable)
        # each column as wide as its widest cell, with a space either side (rich's
        # padding); no border
        keys = max(len(key) for key, _ in rows)
        values = max(len(value) for _, value in rows)
        table_width = keys + values + 4
        if table_width > width or table_width < len(_EVOLVE_TITLE):
            return None
        out = [" " * ((table_width - len(_EVOLVE_TITLE)) // 2) + _EVOLVE_TITLE]
        out.extend(f" {key}{' ' * (keys - len(key))}  {value}".rstrip(" ") for key, value in rows)
        return out


def footer_parts(msg: Message, show: Callable[[Any], str]) -> list[str]:
    """A message's footer as text parts: its tokens, time, how it finished, its error (the
    last, when there is one, starts with "error"). ``show`` writes a value from the log as
    the renderer writes log text."""
    bits: list[str] = []
    usage = msg.usage
    if usage is not None:
        counts = [
            f"{label} {value:,}" if isinstance(value, int) else f"{label} {show(value)}"
            for label, value in (
                ("in", usage.input_tokens),
                ("out", usage.output_tokens),
                ("cached", usage.cached_tokens),
            )
            if value is not None
        ]
        if counts:
            bits.append("tokens " + " · ".join(counts))
        if isinstance(usage.time, (int, float)) and not isinstance(usage.time, bool):
            bits.append(f"{usage.time:g} s")
    dialect = DIALECTS.get(msg.dialect)
    reason = dialect.finish_reason(msg) if dialect is not None else None
    if reason:
        bits.append(f"finished: {show(reason)}")
    error = msg.fields.get("error")
    if isinstance(error, dict):
        kind = error.get("type")
        text = f"error ({show(kind)}): " if kind else "error: "
        bits.append(text + show(error.get("message")))
    return bits


def _footer(msg: Message) -> _Styled | None:
    parts = footer_parts(msg, _visible_str)
    if not parts:
        return None
    pieces: list[tuple[str, str | None]] = []
    for text in parts:
        if pieces:
            pieces.append(("  ", None))
        pieces.append((text, "dim"))
    if isinstance(msg.fields.get("error"), dict):
        pieces[-1] = (parts[-1], "bold red")  # (the error, the last part)
    return _assembled(pieces)


def _visible_str(value: Any) -> str:
    return visible(str(value))


def without_nested(sources: Iterable[tuple[str, Any, str]]) -> list[tuple[str, Any, str]]:
    """The inputs of ``show`` (and its HTML and Markdown pages) as ``expand_paths`` gives
    them, less the logs another input nests: a Claude Code subagent file whose session is
    among them is shown under the Agent call that started it, not a second time as a file of
    its own (given without its session, it is shown as itself); so for every dialect's
    :meth:`~msgcli.dialects.base.Dialect.nested_inputs`."""
    from ..dialects import DIALECTS
    from ..dialects.claude_code.subagents import nested_in_run

    listed = list(sources)
    given = [source for _, source, _ in listed]
    nested = nested_in_run(given)
    for dialect in DIALECTS.values():
        nested |= dialect.nested_inputs(given)
    return [s for s in listed if s[1] is None or str(s[1]) not in nested] if nested else listed
