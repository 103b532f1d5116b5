"""The conversation as one self-contained HTML page (``show --export-html``, ``msgcli view``).

One card per message (role, sender, time, copyable id, line), Markdown
rendered, thinking, hints, long tool results and metadata folded into
``<details>``, each tool call with its arguments as highlighted JSON and the
result that answers it right under it (paired as ``msgcli show`` pairs them),
inline media drawn, a search box and filters by role, sender and tool.

Safety: everything from the log is escaped before it is written: Markdown is
rendered with raw HTML turned off, links only to ``http(s)``/``mailto``, and
Markdown images become links. The page carries a Content-Security-Policy that
allows no network access at all and runs only the page's own script and style
(by hash), so even a mistake here could not run script from a log or load
anything from the network. Media the page shows are ``data:`` URLs of the
log's own bytes, after checking that they are base64 of a plain media type.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
from dataclasses import dataclass, field
from typing import IO, Any

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
from ..textsafe import named, visible
from .thread import Unit, call_key, decoded_size, footer_parts, human_size

__all__ = ["CSP", "HtmlOptions", "HtmlWriter", "page_head", "page_tail"]

#: a tool result longer than this (characters or lines) is folded
_FOLD_CHARS = 1_500
_FOLD_LINES = 12
_SURROGATE = re.compile("[\ud800-\udfff]")
_MEDIA_TYPE = re.compile(r"^[a-z]+/[a-z0-9][a-z0-9.+-]*$")
_BASE64 = re.compile(r"^[A-Za-z0-9+/]*={0,2}$")
_DRAWN = {
    "image": {
        "image/png",
        "image/jpeg",
        "image/jpg",
        "image/gif",
        "image/webp",
        "image/avif",
        "image/bmp",
        "image/svg+xml",  # drawn by <img>: an SVG image runs no script there
        "image/x-icon",
        "image/vnd.microsoft.icon",
    },
    "audio": {
        "audio/mpeg",
        "audio/mp3",
        "audio/wav",
        "audio/x-wav",
        "audio/wave",
        "audio/ogg",
        "audio/webm",
        "audio/flac",
        "audio/aac",
        "audio/mp4",
    },
    "video": {"video/mp4", "video/webm", "video/ogg"},
}


@dataclass(slots=True)
class HtmlOptions:
    title: str = "msgcli"
    #: draw inline media (False: a line per item, as ``show`` prints)
    media: bool = True
    #: the largest item drawn, in decoded bytes; larger ones are a line saying so
    media_limit: int = 2 * 1024 * 1024
    #: cut longer texts, visibly (0: never)
    max_chars: int = 200_000
    #: findings per ``(path, line)``, shown in the card of the message at that line
    findings: dict[tuple[str, int], list[Any]] | None = None


def clean(value: Any) -> str:
    """A value from the log as text fit for the page: control characters as escapes,
    lone surrogates (broken UTF-16 in a log) as U+FFFD. Not yet escaped."""
    text = value if isinstance(value, str) else str(value)
    if _SURROGATE.search(text):
        text = _SURROGATE.sub("\ufffd", text)
    return visible(text, multiline=True)


def esc(value: Any) -> str:
    """A value from the log as escaped HTML text (also fit for a quoted attribute)."""
    return html.escape(clean(value), quote=True)


def flat(value: Any) -> str:
    """A value from the log as one line of text (newlines and tabs as escapes too), not
    yet escaped."""
    text = value if isinstance(value, str) else str(value)
    if _SURROGATE.search(text):
        text = _SURROGATE.sub("\ufffd", text)
    return visible(text)


def one_line(value: Any) -> str:
    """Escaped, on one line (newlines and tabs as escapes too)."""
    return html.escape(flat(value), quote=True)


def _cut(text: str, limit: int) -> tuple[str, int]:
    if limit and len(text) > limit:
        return text[:limit], len(text) - limit
    return text, 0


# -- Markdown ---------------------------------------------------------------------------

_md: Any = None


def _markdown() -> Any:
    """markdown-it (CommonMark, tables, strikethrough) with raw HTML off, safe links,
    and images as links (the page loads nothing from the network)."""
    global _md
    if _md is not None:
        return _md
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable(["table", "strikethrough"])

    def validate(url: str) -> bool:
        return url.strip().lower().startswith(("http://", "https://", "mailto:"))

    md.validateLink = validate  # type: ignore[method-assign]

    def link_open(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        tokens[idx].attrSet("rel", "noopener noreferrer nofollow")
        tokens[idx].attrSet("target", "_blank")
        return str(self.renderToken(tokens, idx, options, env))

    def image(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        token = tokens[idx]
        alt = self.renderInlineAsText(token.children or [], options, env) or "image"
        src = token.attrGet("src") or ""
        return (
            f'<a class="img-link" href="{html.escape(str(src), quote=True)}" '
            f'rel="noopener noreferrer nofollow" target="_blank">'
            f"🖼 {html.escape(alt, quote=True)}</a>"
        )

    md.add_render_rule("link_open", link_open)
    md.add_render_rule("image", image)
    _md = md
    return md


#: text that Markdown would turn into one plain paragraph: nothing to parse
_SYNTAX = re.compile(r"[\\`*_\[\]<>#!|~&=+\-:]|^\s|\s$|\n\s*\n|\n\s|\s\n|^\d+[.)]", re.M)


def render_markdown(text: str) -> str:
    """``text`` as HTML: a plain paragraph directly, anything else through markdown-it."""
    if not text.strip():
        return ""
    if not _SYNTAX.search(text):
        return f"<p>{html.escape(text, quote=False)}</p>\n"
    return str(_markdown().render(text))


# -- JSON ---------------------------------------------------------------------------------

_TOKENS = re.compile(
    r'("(?:\\.|[^"\\])*")(\s*:)?|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|\b(true|false|null)\b'
)


def json_html(value: Any, limit: int = 0, marked: bool = True) -> str:
    """A value as indented JSON, escaped, with keys, strings, numbers and literals marked
    (``marked=False``: plain, fewer elements for a page of many messages)."""
    try:
        dumped = json.dumps(value, ensure_ascii=False, indent=2)
    except (TypeError, ValueError):
        dumped = repr(value)
    dumped, more = _cut(clean(dumped), limit)
    if not marked:
        tail = f'<span class="cut">… {more:,} more characters</span>' if more else ""
        return f'<pre class="json">{html.escape(dumped, quote=False)}{tail}</pre>'
    out: list[str] = []
    pos = 0
    for match in _TOKENS.finditer(dumped):
        out.append(html.escape(dumped[pos : match.start()], quote=False))
        string, colon, number, literal = match.groups()
        if string is not None:
            kind = "k" if colon else "s"
            out.append(f'<span class="j{kind}">{html.escape(string, quote=False)}</span>')
            if colon:
                out.append(html.escape(colon, quote=False))
        elif number is not None:
            out.append(f'<span class="jn">{number}</span>')
        else:
            out.append(f'<span class="jl">{literal}</span>')
        pos = match.end()
    out.append(html.escape(dumped[pos:], quote=False))
    if more:
        out.append(f'<span class="cut">… {more:,} more characters</span>')
    return '<pre class="json">' + "".join(out) + "</pre>"


def _pre(text: Any, limit: int) -> str:
    body, more = _cut(clean(text if isinstance(text, str) else json.dumps(text)), limit)
    tail = f'<span class="cut">… {more:,} more characters</span>' if more else ""
    return f"<pre>{html.escape(body, quote=False)}{tail}</pre>"


# -- the page -------------------------------------------------------------------------------


def _asset(name: str) -> str:
    """A file of the page (style, script) shipped beside this module."""
    from importlib.resources import files

    return files(__package__).joinpath(name).read_text(encoding="utf-8")


CSS = _asset("page.css")

# The page's own script: search, filters, copy an id. Reads the page's text with
# textContent and writes only attributes and textContent: it never builds markup.
JS = _asset("page.js")

INDEX_JS = _asset("index.js")


def _hash(source: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(source.encode()).digest()).decode() + "'"


def csp(script: str) -> str:
    """No network, no plugins, no forms; only this page's own style and script, by hash;
    images and media only from ``data:`` URLs inside the page."""
    return (
        "default-src 'none'; img-src data:; media-src data:; "
        f"style-src {_hash(CSS)}; script-src {_hash(script)}; "
        "base-uri 'none'; form-action 'none'"
    )


CSP = csp(JS)


def page_head(title: str, script: str = JS) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{csp(script)}">\n'
        '<meta name="referrer" content="no-referrer">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="generator" content="msgcli">\n'
        f"<title>{one_line(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n<main>\n"
    )


def page_tail(bar: str, script: str = JS) -> str:
    # the bar comes last in the file (its filters are known once every message is
    # written) and first on the screen (CSS order)
    return f"</main>\n{bar}<script>{script}</script>\n</body>\n</html>\n"


def _options(label: str, ident: str, values: set[str]) -> str:
    if not values:
        return ""
    opts = "".join(
        f'<option value="{html.escape(v, quote=True)}">{html.escape(v, quote=False)}</option>'
        for v in sorted(values, key=str.lower)
    )
    return (
        f'<select id="{ident}" aria-label="{label}">'
        f'<option value="">every {label}</option>{opts}</select>'
    )


@dataclass(slots=True)
class Tally:
    """What a page holds (the index page lists it)."""

    messages: int = 0
    tool_calls: int = 0
    notices: int = 0
    unreadable: int = 0
    first_time: str | None = None
    last_time: str | None = None
    roles: set[str] = field(default_factory=set)
    names: set[str] = field(default_factory=set)
    tools: set[str] = field(default_factory=set)


class HtmlWriter:
    """A :class:`~msgcli.render.export.Sink` that writes the page to ``out`` as it goes."""

    def __init__(self, out: IO[str], options: HtmlOptions):
        self.out = out
        self.options = options
        self.tally = Tally()
        self.count = 0
        self.placed: set[tuple[str, int]] = set()  # findings shown in a card
        self.files: list[str] = []
        out.write(page_head(options.title))

    # -- the sink ---------------------------------------------------------------------
    def begin_file(self, name: str, several: bool) -> None:
        self.files.append(name)
        if several:
            self.out.write(f'<h2 class="file">{one_line(name)}</h2>\n')

    def end_file(self, name: str) -> None:
        findings = self.options.findings
        if not findings:
            return
        rest = [
            f
            for (path, line), found in sorted(findings.items(), key=lambda kv: kv[0][1])
            if path == name and (path, line) not in self.placed
            for f in found
        ]
        if rest:
            self.out.write(
                '<section class="other-findings"><h2 class="file">findings not at a message'
                f"{' of ' + one_line(name) if len(self.files) > 1 else ''}</h2>"
                + self._findings(rest)
                + "</section>\n"
            )

    def unreadable(self, name: str, why: str) -> None:
        self.tally.unreadable += 1
        self.out.write(
            f'<p class="unreadable">{one_line(name)}: cannot read: {one_line(why)}</p>\n'
        )

    def notice(self, item: Item) -> None:
        self.tally.notices += 1
        self.out.write(
            f'<p class="notice">line {item.line}: {one_line(item.code)} '
            f"{one_line(item.notice)}</p>\n"
        )

    def unit(self, unit: Unit) -> None:
        self.out.write(self.card(unit))

    def begin_nested(self, title: str, path: str) -> None:
        self.out.write(
            f'<section class="nested" data-path="{one_line(path)}">'
            f'<h3 class="nested">{one_line(title)}</h3>\n'
        )

    def end_nested(self, title: str, path: str) -> None:
        self.out.write("</section>\n")

    def close(self) -> None:
        t = self.tally
        bar = (
            '<div id="bar" role="search">'
            f"<h1>{one_line(self.options.title)}</h1>"
            '<input id="q" type="search" placeholder="Search messages" '
            'aria-label="Search messages">'
            + _options("role", "f-role", t.roles)
            + _options("sender", "f-name", t.names)
            + _options("tool", "f-tool", t.tools)
            + f'<span id="count">{t.messages} messages</span></div>\n'
        )
        self.out.write(page_tail(bar))

    # -- a card -------------------------------------------------------------------------
    def card(self, unit: Unit) -> str:
        msg = unit.item.message
        assert msg is not None
        self.count += 1
        t = self.tally
        t.messages += 1
        role = str(msg.role).lower() if msg.role is not None else "?"
        role_text = one_line(role)
        t.roles.add(flat(role))
        name = one_line(msg.name) if msg.name is not None else ""
        if msg.name is not None:
            t.names.add(flat(msg.name))
        if msg.timestamp:
            stamp = str(msg.timestamp)
            t.first_time = t.first_time or stamp
            t.last_time = stamp
        tools: list[str] = []
        body = self._body(msg, unit, tools)
        for tool in tools:
            t.tools.add(tool)
        t.tool_calls += len(tools)
        anchor = f"m{self.count}"
        role_class = role if re.fullmatch(r"[a-z]+", role) else "other"
        attrs = (
            f' data-role="{role_text}"'
            + (f' data-name="{name}"' if msg.name is not None else "")
            + (' data-tools="' + html.escape("\n".join(tools), quote=True) + '"' if tools else "")
        )
        head = [f'<span class="role">{html.escape(visible(role.upper()), quote=False)}</span>']
        if name:
            head.append(f'<span class="name">{name}</span>')
        if msg.timestamp:
            head.append(f"<time>{one_line(msg.timestamp)}</time>")
        if msg.id:
            full = one_line(msg.id)
            short = one_line(str(msg.id)[:8])
            head.append(
                f'<button class="id" type="button" data-id="{full}" '
                f'title="copy the id {full}">#{short}</button>'
            )
        head.append(f'<a class="line" href="#{anchor}">line {unit.item.line}</a>')
        if len(self.files) > 1 or (self.files and unit.item.path != self.files[-1]):
            head.append(f'<span class="tag">{one_line(unit.item.path)}</span>')
        parts = [
            f'<article class="msg r-{role_class}" id="{anchor}"{attrs}>',
            '<div class="head">' + "".join(head) + "</div>",
            '<div class="body">',
            body,
            "</div>",
        ]
        foot = _footer(msg)
        if foot:
            parts.append(f'<div class="foot">{foot}</div>')
        if msg.metadata:
            parts.append(
                '<details class="meta"><summary>metadata</summary>'
                + json_html(msg.metadata, self.options.max_chars, marked=False)
                + "</details>"
            )
        findings = self.options.findings
        if findings:
            # the message's own line, and the lines of the results shown under its calls
            keys = [(unit.item.path, unit.item.line)]
            keys += [
                (src.path, src.line) for answers in unit.results.values() for _, src in answers
            ]
            found = []
            for key in dict.fromkeys(keys):
                if key in findings and key not in self.placed:
                    self.placed.add(key)
                    found.extend(findings[key])
            if found:
                parts.append(self._findings(found))
        parts.append("</article>\n")
        return "".join(parts)

    def _findings(self, found: list[Any]) -> str:
        items = []
        for f in found:
            severity = str(getattr(f.severity, "value", f.severity))
            at = f' <span class="tag">at {one_line(f.pointer)}</span>' if f.pointer else ""
            items.append(
                f'<li class="f-{one_line(severity)}">line {f.line}: '
                f"<code>{one_line(f.code)}</code> "
                f"{one_line(severity)}: {one_line(f.message)}{at}</li>"
            )
        return '<ul class="findings">' + "".join(items) + "</ul>"

    def _body(self, msg: Message, unit: Unit, tools: list[str]) -> str:
        out: list[str] = []
        mark = msg.metadata.get(MARK_KEY) if isinstance(msg.metadata, dict) else None
        if isinstance(mark, dict):
            out.append(f'<div class="mark">⚠ {one_line(mark_text(mark))}</div>')
        inline = {call_key(b.id): b for b in msg.content if isinstance(b, ToolResultBlock)}
        calls = {call_key(b.id) for b in msg.content if isinstance(b, ToolCallBlock)}
        for block in msg.content:
            if isinstance(block, ToolResultBlock) and call_key(block.id) in calls:
                continue  # shown under its call
            if isinstance(block, ToolCallBlock):
                tools.append(flat(block.name))
                answers: list[tuple[ToolResultBlock, Item | None]] = []
                cid = call_key(block.id)
                if cid in inline:
                    answers.append((inline.pop(cid), None))
                answers.extend(unit.results.get(cid, ()))
                out.append(self._call(block, answers))
            else:
                out.append(self._block(block, standalone=True))
        return "".join(out)

    def _block(self, block: Any, standalone: bool = False) -> str:
        limit = self.options.max_chars
        if isinstance(block, TextBlock):
            if isinstance(block.text, str):
                text, more = _cut(clean(block.text), limit)
                cut = f'<p class="cut">… {more:,} more characters</p>' if more else ""
                return f'<div class="md">{render_markdown(text)}{cut}</div>'
            return _pre(block.text, limit)
        if isinstance(block, ThinkingBlock):
            return _folded("thinking", block.thinking, limit)
        if isinstance(block, HintBlock):
            label = "hint" + (f" ({clean(str(block.source))})" if block.source else "")
            return _folded(label, block.hint, limit, kind="hint")
        if isinstance(block, ToolCallBlock):
            return self._call(block, [])
        if isinstance(block, ToolResultBlock):
            return self._result(block, None, standalone=standalone)
        if isinstance(block, DataBlock):
            return self._media(block)
        if isinstance(block, ValueBlock):
            kind = one_line(block.mime_type or "json")
            return f'<div class="value"><div class="tag">value ({kind})</div>' + (
                json_html(block.value, limit) + "</div>"
            )
        if isinstance(block, EvolveResultBlock):
            rows = []
            for key, value in block.fields.items():
                if key == "type":
                    continue
                shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
                rows.append(f"<dt>{one_line(key)}</dt><dd>{esc(_cut(shown, 2_000)[0])}</dd>")
            return (
                '<div class="evolve"><div class="tag">evolve_result</div>'
                f'<dl class="fields">{"".join(rows)}</dl></div>'
            )
        if isinstance(block, UnknownBlock):
            return (
                f'<details class="unknown"><summary>block of unknown type '
                f"{one_line(block.type)}</summary>{json_html(block.raw, limit)}</details>"
            )
        return f'<div class="tag">{one_line(getattr(block, "type", "?"))} block</div>'

    def _call(
        self, block: ToolCallBlock, answers: list[tuple[ToolResultBlock, Item | None]]
    ) -> str:
        name = flat(block.name)
        shown = html.escape(name, quote=False) if name else "<em>(no name)</em>"
        head = [f'→ <span class="tool">{shown}</span>']
        if block.id is not None:
            head.append(f'<span class="tag">{one_line(block.id)}</span>')
        if block.state:
            head.append(f'<span class="tag">{one_line(block.state)}</span>')
        args: Any = block.arguments
        text = block.fields.get("as_text")
        if isinstance(text, str):  # input a person reads as text (a patch)
            shown = _pre(text, self.options.max_chars)
        elif args is None and isinstance(block.input, str):
            try:
                args = json.loads(block.input) if block.input.strip() else {}
                shown = json_html(args, self.options.max_chars)
            except ValueError:
                shown = _pre(block.input, self.options.max_chars)
        else:
            shown = json_html(block.input if args is None else args, self.options.max_chars)
        results = "".join(self._result(r, source) for r, source in answers)
        return (
            f'<div class="call" data-tool="{html.escape(name, quote=True)}">'
            f'<div class="call-head">{" ".join(head)}</div>{shown}{results}</div>'
        )

    def _result(self, block: ToolResultBlock, source: Item | None, standalone: bool = False) -> str:
        state = str(block.state) if block.state is not None else "no state"
        state_class = state.lower() if re.fullmatch(r"[A-Za-z_]+", state) else "other"
        head = ["←"]
        if standalone:
            head.append(f'result of <span class="tool">{one_line(block.name)}</span>')
            if block.id is not None:
                head.append(f'<span class="tag">{one_line(block.id)}</span>')
        head.append(f'<span class="state s-{state_class}">{one_line(state)}</span>')
        if source is not None:
            msg = source.message
            who = f" from {one_line(msg.name)}" if msg is not None and msg.name else ""
            head.append(f'<span class="tag">line {source.line}{who}</span>')
        output = block.output
        body = ""
        size = 0
        first = ""
        if isinstance(output, list):
            body = "".join(self._block(inner) for inner in output)
            texts = [b.text for b in output if isinstance(b, TextBlock) and isinstance(b.text, str)]
            size = sum(len(t) for t in texts)
            lines = sum(t.count("\n") + 1 for t in texts)
            first = texts[0] if texts else ""
        elif output is not None and output != "":
            text = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False)
            size, lines, first = len(text), text.count("\n") + 1, text
            body = _result_text(text, self.options.max_chars)
        else:
            lines = 0
        head_html = " ".join(head)
        if size > _FOLD_CHARS or lines > _FOLD_LINES:
            peek = one_line(first.strip().split("\n", 1)[0][:80])
            return (
                f'<details class="result"><summary class="result-head">{head_html} '
                f'<span class="tag">{size:,} characters, {lines:,} lines</span> '
                f'<span class="peek">{peek}</span></summary>{body}</details>'
            )
        return f'<div class="result"><div class="result-head">{head_html}</div>{body}</div>'

    def _media(self, block: DataBlock) -> str:
        source = block.source
        kind = str(block.kind) if block.kind not in (None, "content", "data") else ""
        media_type = str(source.media_type).lower() if source and source.media_type else ""
        bits = [one_line(x) for x in (kind, media_type) if x]
        name = one_line(block.name) if block.name else ""
        if source is not None and source.kind == "base64" and isinstance(source.data, str):
            size = decoded_size(source.data)
            bits.append(human_size(size))
            if name:
                bits.append(name)
            caption = " · ".join(bits)
            data = re.sub(r"\s+", "", source.data)
            valid_type = bool(_MEDIA_TYPE.match(media_type))
            if not self.options.media:
                return f'<div class="medialine">▣ {caption} · left out (--no-media)</div>'
            if size > self.options.media_limit:
                return (
                    f'<div class="medialine">▣ {caption} · left out: larger than '
                    f"{human_size(self.options.media_limit)} (--media-limit)</div>"
                )
            if not _BASE64.match(data) or len(data) % 4 == 1:
                return f'<div class="medialine">▣ {caption} · not valid base64</div>'
            family = media_type.split("/", 1)[0] if valid_type else ""
            url = f"data:{media_type if valid_type else 'application/octet-stream'};base64,{data}"
            if media_type in _DRAWN["image"]:
                tiny = ' class="tiny"' if size < 2048 else ""
                alt = html.escape(clean(block.name or f"{family} ({media_type})"), quote=True)
                return (
                    f'<figure class="media"><img{tiny} src="{url}" alt="{alt}" loading="lazy" '
                    f'decoding="async"><figcaption>▣ {caption}</figcaption></figure>'
                )
            if family in ("audio", "video") and media_type in _DRAWN[family]:
                return (
                    f'<figure class="media"><{family} controls preload="metadata" src="{url}">'
                    f"</{family}><figcaption>▣ {caption}</figcaption></figure>"
                )
            filename = html.escape(
                re.sub(r"[\\/:\x00-\x1f]", "_", clean(block.name or "data")), quote=True
            )
            return (
                f'<div class="medialine">▣ <a download="{filename}" href="{url}">download</a> '
                f"{caption}</div>"
            )
        if name:
            bits.append(name)
        caption = " · ".join(bits) or "data"
        if source is not None and source.kind == "url" and source.url:
            url_text = clean(str(source.url))
            if re.match(r"(?i)^https?://", url_text) and not re.search(r"\s", url_text):
                link = html.escape(url_text, quote=True)
                shown = html.escape(url_text if len(url_text) <= 120 else url_text[:119] + "…")
                return (
                    f'<div class="medialine">▣ {caption} · <a class="media-url" href="{link}" '
                    f'rel="noopener noreferrer nofollow" target="_blank">{shown}</a></div>'
                )
            return f'<div class="medialine">▣ {caption} · {one_line(url_text)}</div>'
        return f'<div class="medialine">▣ {caption}</div>'


def _result_text(text: str, limit: int) -> str:
    stripped = text.strip()
    if stripped[:1] in ("{", "[") and stripped[-1:] in ("}", "]"):
        try:
            return json_html(json.loads(stripped), limit)
        except ValueError:
            pass
    return _pre(text, limit)


def _folded(label: str, body: Any, limit: int, kind: str = "thinking") -> str:
    text = body if isinstance(body, str) else json.dumps(body, ensure_ascii=False)
    first = text.strip().split("\n", 1)[0]
    peek = one_line(first if len(first) <= 100 else first[:99] + "…")
    lines = text.count("\n") + 1
    size = f"{lines} line{'' if lines == 1 else 's'}"
    return (
        f'<details class="{kind}"><summary>{one_line(label)} <span class="tag">{size}</span> '
        f'<span class="peek">{peek}</span></summary>{_pre(text, limit)}</details>'
    )


def mark_text(mark: dict) -> str:
    state = mark.get("state")
    # (a log may hold any value here: what is no text is named short)
    opened = ", ".join(named(x) for x in listed(mark.get("open")))
    what = {
        "cut": "incomplete: the stream stopped here",
        "open": "unfinished at the point the replay stopped",
        "orphan": "rebuilt from events of a reply that never started",
    }.get(state if type(state) is str else "", f"replay state {named(state)}")
    if opened:
        what += f" (open: {opened})"
    return what


def footer_bits(msg: Message) -> list[str]:
    """The footer's parts as plain text (not escaped): tokens, time, finish, error."""
    return footer_parts(msg, flat)


def _footer(msg: Message) -> str:
    return " · ".join(
        f'<span class="error">{html.escape(bit)}</span>'
        if bit.startswith("error")
        else html.escape(bit)
        for bit in footer_bits(msg)
    )
