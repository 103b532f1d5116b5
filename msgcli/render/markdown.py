"""The conversation as GitHub-flavoured Markdown (``show --export-markdown``).

For bug reports and for pasting into a chat with a model: a header line per
message (role, sender, time, id, line), the text as written (it is Markdown
already), tool calls as fenced JSON with the result that answers them right
under them, thinking, hints and metadata in ``<details>``, media as one line
(a link for a URL; inline bytes are left out).

What comes from the log never becomes markup that changes the document's
shape: names and other header values are backslash-escaped, code goes into
fences longer than any run of backticks inside, and HTML tags in a message's
text are escaped (outside its code), so an unclosed ``<details>`` or ``<!--``
in a message cannot swallow the rest of the conversation.
"""

from __future__ import annotations

import json
import re
from typing import IO, Any

from ..model import (
    DataBlock,
    EvolveResultBlock,
    HintBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    UnknownBlock,
    ValueBlock,
)
from ..replayers import MARK_KEY
from ..stream import Item
from .html import clean, flat, footer_bits, mark_text
from .thread import Unit, call_key, decoded_size, human_size

__all__ = ["MarkdownWriter", "escape"]

_SPECIAL = re.compile(r"([\\`*_{}\[\]<>()#+!|~&])")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_TAG = re.compile(r"<(?=[A-Za-z/!?])")
_CODE_SPAN = re.compile(r"(`+)(?:.+?)(?<!`)\1(?!`)")
_MAX_CHARS = 20_000


def escape(value: Any) -> str:
    """One line of text from the log, with Markdown's special characters escaped."""
    return _SPECIAL.sub(r"\\\1", flat(value))


def code_span(value: Any) -> str:
    text = flat(value)
    ticks = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * (ticks + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def fenced(text: str, lang: str = "") -> str:
    ticks = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, ticks + 1)
    return f"{fence}{lang}\n{text.rstrip(chr(10))}\n{fence}"


def _cut(text: str) -> str:
    if len(text) > _MAX_CHARS:
        return text[:_MAX_CHARS] + f"\n… [{len(text) - _MAX_CHARS:,} more characters]"
    return text


def safe_text(text: str) -> str:
    """A message's Markdown as written, with HTML tags outside code escaped."""
    out: list[str] = []
    fence: str | None = None
    for line in text.split("\n"):
        match = _FENCE.match(line)
        if fence is not None:
            if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence):
                fence = None
            out.append(line)
            continue
        if match:
            fence = match.group(1)
            out.append(line)
            continue
        if line.startswith(("    ", "\t")):  # an indented code line
            out.append(line)
            continue
        pieces: list[str] = []
        pos = 0
        for span in _CODE_SPAN.finditer(line):
            pieces.append(_TAG.sub("&lt;", line[pos : span.start()]))
            pieces.append(span.group())
            pos = span.end()
        pieces.append(_TAG.sub("&lt;", line[pos:]))
        out.append("".join(pieces))
    if fence is not None:  # an unclosed fence would swallow what follows
        out.append(fence)
    return "\n".join(out)


def _json(value: Any) -> str:
    try:
        dumped = json.dumps(value, ensure_ascii=False, indent=2)
    except (TypeError, ValueError):
        dumped = repr(value)
    return fenced(_cut(clean(dumped)), "json")


def _details(summary: str, body: str) -> str:
    return f"<details><summary>{summary}</summary>\n\n{body}\n\n</details>"


def _html_text(value: Any) -> str:
    """Text for inside an HTML element (a ``<summary>``)."""
    return flat(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class MarkdownWriter:
    """A :class:`~msgcli.render.export.Sink` writing Markdown to ``out`` as it goes."""

    def __init__(self, out: IO[str], title: str | None = None):
        self.out = out
        self.first = True
        #: how deep the log being written is nested (a subagent's under its parent's call):
        #: its text is quoted that many times
        self.depth = 0
        self.last_depth = 0
        if title:
            out.write(f"# {escape(title)}\n")
            self.first = False

    def _write(self, text: str) -> None:
        gap = "" if self.first else "\n"
        if self.depth:
            quote = "> " * self.depth
            text = "\n".join((quote + line).rstrip() for line in text.split("\n"))
            if gap and self.last_depth == self.depth:
                gap = quote.rstrip() + "\n"  # a blank line inside the same quote
        self.out.write(gap + text + "\n")
        self.first = False
        self.last_depth = self.depth

    def begin_nested(self, title: str, path: str) -> None:
        self.depth += 1
        self._write(f"**↳ {escape(title)}**")

    def end_nested(self, title: str, path: str) -> None:
        self.depth -= 1

    def begin_file(self, name: str, several: bool) -> None:
        if several:
            self._write(f"## {escape(name)}")

    def end_file(self, name: str) -> None:
        pass

    def notice(self, item: Item) -> None:
        self._write(f"> ⚠ line {item.line}: {escape(item.code)} {escape(item.notice)}")

    def unreadable(self, name: str, why: str) -> None:
        self._write(f"> ⚠ {escape(name)}: cannot read: {escape(why)}")

    def unit(self, unit: Unit) -> None:
        self._write(self.message(unit))

    def message(self, unit: Unit) -> str:
        msg = unit.item.message
        assert msg is not None
        role = str(msg.role) if msg.role is not None else "?"
        head = [f"**{escape(role.upper())}**"]
        if msg.name is not None:
            head.append(f"**{escape(msg.name)}**")
        if msg.timestamp:
            head.append(escape(msg.timestamp))
        if msg.id:
            head.append(code_span(msg.id))
        head.append(f"line {unit.item.line}")
        parts = ["---", " · ".join(head)]
        mark = msg.metadata.get(MARK_KEY) if isinstance(msg.metadata, dict) else None
        if isinstance(mark, dict):
            parts.append(f"> ⚠ {escape(mark_text(mark))}")
        inline = {call_key(b.id): b for b in msg.content if isinstance(b, ToolResultBlock)}
        calls = {call_key(b.id) for b in msg.content if isinstance(b, ToolCallBlock)}
        for block in msg.content:
            if isinstance(block, ToolResultBlock) and call_key(block.id) in calls:
                continue
            parts.extend(self._block(block, standalone=True))
            if isinstance(block, ToolCallBlock):
                cid = call_key(block.id)
                answers: list[tuple[ToolResultBlock, Item | None]] = []
                if cid in inline:
                    answers.append((inline.pop(cid), None))
                answers.extend(unit.results.get(cid, ()))
                for result, source in answers:
                    parts.extend(self._result(result, source))
        foot = footer_bits(msg)
        if foot:
            parts.append("*" + " · ".join(escape(bit) for bit in foot) + "*")
        if msg.metadata:
            parts.append(_details("metadata", _json(msg.metadata)))
        return "\n\n".join(parts)

    def _block(self, block: Any, standalone: bool = False) -> list[str]:
        if isinstance(block, TextBlock):
            if isinstance(block.text, str):
                return [safe_text(_cut(clean(block.text)))] if block.text.strip() else []
            return [_json(block.text)]
        if isinstance(block, ThinkingBlock):
            body = block.thinking if isinstance(block.thinking, str) else json.dumps(block.thinking)
            return [_details("thinking", fenced(_cut(clean(body)), "text"))]
        if isinstance(block, HintBlock):
            hint = block.hint
            body = hint if isinstance(hint, str) else json.dumps(hint, ensure_ascii=False)
            label = "hint" + (f" ({_html_text(block.source)})" if block.source else "")
            return [_details(label, fenced(_cut(clean(body)), "text"))]
        if isinstance(block, ToolCallBlock):
            # a call without a name says so (an empty code span would show as two backticks)
            head = f"**→ {code_span(block.name)}**" if block.name != "" else "**→** *(no name)*"
            if block.id is not None:
                head += f" · {code_span(block.id)}"
            if block.state:
                head += f" · {escape(block.state)}"
            args: Any = block.arguments
            text = block.fields.get("as_text")
            if isinstance(text, str):  # input a person reads as text (a patch)
                return [head, fenced(_cut(clean(text)), "diff")]
            if args is None and isinstance(block.input, str):
                try:
                    args = json.loads(block.input) if block.input.strip() else {}
                except ValueError:
                    return [head, fenced(_cut(clean(block.input)), "text")]
            elif args is None:
                args = block.input
            return [head, _json(args)]
        if isinstance(block, ToolResultBlock):
            return self._result(block, None, standalone=standalone)
        if isinstance(block, DataBlock):
            return [_media(block)]
        if isinstance(block, ValueBlock):
            return [f"*value ({escape(block.mime_type or 'json')})*", _json(block.value)]
        if isinstance(block, EvolveResultBlock):
            rows = ["| field | value |", "| --- | --- |"]
            for key, value in block.fields.items():
                if key == "type":
                    continue
                shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
                shown = shown if len(shown) <= 400 else shown[:399] + "…"
                rows.append(f"| {escape(key)} | {escape(shown)} |")
            return ["*evolve_result*", "\n".join(rows)]
        if isinstance(block, UnknownBlock):
            return [f"*block of unknown type {escape(block.type)}*", _json(block.raw)]
        return [f"*{escape(getattr(block, 'type', '?'))} block*"]

    def _result(
        self, block: ToolResultBlock, source: Item | None, standalone: bool = False
    ) -> list[str]:
        state = str(block.state) if block.state is not None else "no state"
        head = "**← "
        if standalone:
            head += f"result of {code_span(block.name)}"
            if block.id is not None:
                head += f" · {code_span(block.id)}"
            head += " · "
        head += f"{escape(state)}**"
        if source is not None:
            msg = source.message
            who = f" from {escape(msg.name)}" if msg is not None and msg.name else ""
            head += f" · line {source.line}{who}"
        out = [head]
        output = block.output
        if isinstance(output, list):
            for inner in output:
                if isinstance(inner, TextBlock) and isinstance(inner.text, str):
                    out.append(_result_text(inner.text))
                else:
                    out.extend(self._block(inner))
        elif output is not None and output != "":
            text = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False)
            out.append(_result_text(text))
        return out


def _result_text(text: str) -> str:
    stripped = text.strip()
    if stripped[:1] in ("{", "[") and stripped[-1:] in ("}", "]"):
        try:
            return _json(json.loads(stripped))
        except ValueError:
            pass
    return fenced(_cut(clean(text)), "text")


def _media(block: DataBlock) -> str:
    source = block.source
    kind = str(block.kind) if block.kind not in (None, "content", "data") else ""
    media_type = source.media_type if source is not None else None
    bits = [escape(x) for x in (kind, media_type) if x]
    if source is not None and source.kind == "base64" and isinstance(source.data, str):
        bits.append(human_size(decoded_size(source.data)))
    if block.name:
        bits.append(escape(block.name))
    if source is not None and source.kind == "base64":
        bits.append("inline data, left out")
    if source is not None and source.kind == "url" and source.url:
        url = flat(source.url)
        if re.match(r"(?i)^https?://\S+$", url):
            bits.append(f"<{url.replace('>', '%3E').replace('<', '%3C')}>")
        else:
            bits.append(code_span(url))
    return "▣ " + (" · ".join(bits) or "data")
