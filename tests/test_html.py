"""``show --export-html``, ``show --export-markdown`` and ``msgcli view``, read as files.

What the browser sees is checked in test_browser.py; here the pages are parsed
with the standard library's HTML parser, and the Markdown with markdown-it (the
CommonMark parser GitHub's is built on), and compared with what the raw JSON of
the real logs says a reader must find.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import os
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from conftest import FIXTURES, ROOT, examples
from hypothesis import given, settings
from hypothesis import strategies as st
from test_show import _NO_RESULT, _blocks, expectations, raw_messages

REAL = FIXTURES / "real"
#: every real log, with the messages its framework built (event logs: from the events)
REAL_LOGS = [
    (REAL / "agentscope-py" / "transcript.jsonl",) * 2,
    (REAL / "agentscope-py" / "v1" / "transcript-v1.jsonl",) * 2,
    (REAL / "loongflow" / "transcript.jsonl",) * 2,
    (REAL / "agentscope-py" / "events.jsonl", REAL / "agentscope-py" / "events-final.jsonl"),
    (REAL / "agentscope-py" / "events.sse", REAL / "agentscope-py" / "events-final.jsonl"),
    (REAL / "agentscope-py" / "events-final.jsonl",) * 2,
    (
        REAL / "agentscope-py" / "events-data.jsonl",
        REAL / "agentscope-py" / "events-data-final.jsonl",
    ),
    (REAL / "agentscope-py" / "events-data-final.jsonl",) * 2,
]
REAL_IDS = [str(p.relative_to(FIXTURES)) for p, _ in REAL_LOGS]
GOLDEN = FIXTURES / "markdown"
ROLES = ("SYSTEM", "USER", "ASSISTANT", "TOOL")

PWNED = "window.__pwned=1"
#: text that would run script, load from the network or break the page, were it markup
HOSTILE = [
    f"<script>{PWNED}</script>",
    f'<img src=x onerror="{PWNED}">',
    f"[click me](javascript:{PWNED})",
    f'<a href="javascript:{PWNED}">link</a>',
    f"<javascript:{PWNED}>",
    "![tracker](https://example.invalid/pixel.png)",
    f'"><svg onload="{PWNED}">',
    f"</pre></details></article><script>{PWNED}</script>",
    "<style>body{display:none}</style>",
    f'<iframe src="javascript:{PWNED}"></iframe>',
    f'<meta http-equiv="refresh" content="0;url=javascript:{PWNED}">',
    "<!-- an unclosed comment",
    f"```\n<script>{PWNED}</script>",
]
SURROGATE = "SURROGATE-MARK"


def hostile_log(folder: Path) -> Path:
    """The real AgentScope Python transcript with hostile text in every place a log has
    text: message text, thinking, hints, names, ids, tool names, arguments and results,
    metadata keys and values, media URLs, types and data; and a lone UTF-16 surrogate."""
    lines = [
        json.loads(x)
        for x in (REAL / "agentscope-py" / "transcript.jsonl").read_text("utf-8").splitlines()
    ]
    evil = "\n\n".join(HOSTILE)
    system, user, reply, media = lines[0], lines[1], lines[2], lines[3]
    user["content"][0]["text"] = evil
    broken = json.loads(json.dumps(user))
    broken["content"][0]["text"] = f"broken {SURROGATE} surrogate"
    user["name"] = f'<b onmouseover="{PWNED}">Mallory</b>'
    user["metadata"] = {f'<img src=x onerror="{PWNED}">': f"javascript:{PWNED}"}
    user["id"] = f'"><script>{PWNED}</script>'
    for block in reply["content"]:
        kind = block["type"]
        if kind == "hint":
            block["hint"] = evil
            block["source"] = f"<script>{PWNED}</script>"
        elif kind == "thinking":
            block["thinking"] = evil
        elif kind == "text":
            block["text"] = evil
        elif kind == "tool_call":
            block["name"] = f'<svg onload="{PWNED}">'
            block["input"] = json.dumps({"q": evil, f"<script>{PWNED}</script>": 1})
        elif kind == "tool_result":
            block["name"] = f'<svg onload="{PWNED}">'
            block["output"][0]["text"] = evil
    url, inline = media["content"][1], media["content"][2]
    url["source"]["url"] = f"javascript:{PWNED}"
    inline["source"]["media_type"] = f'image/png" onerror="{PWNED}'
    inline["name"] = f'"><script>{PWNED}</script>.png'
    page = base64.b64encode(f"<script>{PWNED}</script>".encode()).decode()
    media["content"].append(
        {
            "type": "data",
            "id": "html-data",
            "source": {"type": "base64", "data": page, "media_type": "text/html"},
            "name": f"<script>{PWNED}</script>.html",
        }
    )
    media["content"].append(
        {
            "type": "data",
            "id": "bad-base64",
            "source": {
                "type": "base64",
                "data": f'AAAA" onerror="{PWNED}',
                "media_type": "image/png",
            },
            "name": "bad.png",
        }
    )
    media["content"][0]["text"] = f"<img src=https://example.invalid/x.png onerror={PWNED}>"
    out = folder / "hostile.jsonl"
    text = "\n".join(json.dumps(x) for x in (system, user, reply, media, broken)) + "\n"
    out.write_text(text.replace(SURROGATE, "\\ud800"), encoding="utf-8")
    return out


class Page(HTMLParser):
    """Every element with its attributes, and the text of script and style elements."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[str] = []
        self.styles: list[str] = []
        self._in: str | None = None
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))
        if tag in ("script", "style"):
            self._in = tag
            (self.scripts if tag == "script" else self.styles).append("")

    def handle_endtag(self, tag):
        self._in = None

    def handle_data(self, data):
        if self._in == "script":
            self.scripts[-1] += data
        elif self._in == "style":
            self.styles[-1] += data
        else:
            self.text.append(data)

    def tags(self, name):
        return [attrs for tag, attrs in self.elements if tag == name]


def parse(text: str) -> Page:
    page = Page()
    page.feed(text)
    page.close()
    return page


def csp_of(page: Page) -> dict[str, list[str]]:
    (meta,) = [
        a
        for a in page.tags("meta")
        if (a.get("http-equiv") or "").lower() == "content-security-policy"
    ]
    policy: dict[str, list[str]] = {}
    for part in (meta.get("content") or "").split(";"):
        words = part.split()
        if words:
            policy[words[0]] = words[1:]
    return policy


def sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def check_inert(page: Page) -> None:
    """Nothing in the page can run but its one script, nothing loads from the network."""
    policy = csp_of(page)
    assert policy["default-src"] == ["'none'"]
    assert set(policy["img-src"]) <= {"data:"} and set(policy["media-src"]) <= {"data:"}
    assert len(page.scripts) == 1 and len(page.styles) == 1
    assert policy["script-src"] == [sha256(page.scripts[0])]
    assert policy["style-src"] == [sha256(page.styles[0])]
    for tag, attrs in page.elements:
        assert tag not in ("iframe", "object", "embed", "svg", "form", "base"), tag
        for name, value in attrs.items():
            assert not name.startswith("on"), (tag, name)
            assert name != "style", tag
            if name in ("href", "src", "action", "formaction", "srcset"):
                scheme = (value or "").split(":", 1)[0].lower() if ":" in (value or "") else ""
                assert scheme in ("", "http", "https", "mailto", "data"), (tag, name, value)
                if scheme == "data":
                    assert re.match(r"data:[a-z]+/[a-z0-9.+-]+;base64,[A-Za-z0-9+/=]*$", value)
                if tag in ("img", "audio", "video", "source"):
                    assert scheme == "data", (tag, value)
        if tag == "meta":
            assert set(attrs) <= {"charset", "http-equiv", "content", "name"}
            if "http-equiv" in attrs:
                assert attrs["http-equiv"].lower() == "content-security-policy"


@pytest.fixture
def export(run_cli, tmp_path):
    def run(path, *options, suffix="html"):
        target = tmp_path / f"{Path(path).name}.{suffix}"
        flag = "--export-html" if suffix == "html" else "--export-markdown"
        code, _ = run_cli("show", flag, str(target), *options, str(path))
        return code, target.read_text(encoding="utf-8")

    return run


# -- the page -----------------------------------------------------------------------------


@pytest.mark.parametrize("log, final", REAL_LOGS, ids=REAL_IDS)
def test_every_real_log_becomes_a_page_with_every_message_and_call(export, log, final):
    code, text = export(log)
    assert code == 0
    page = parse(text)
    check_inert(page)
    messages = raw_messages(final)
    names, calls, _media = expectations(messages)
    cards = [a for a in page.tags("article") if "msg" in (a.get("class") or "").split()]
    assert len(cards) == expected_cards(messages)
    body = "".join(page.text)
    for name in names:  # a card's sender, or "from NAME" under the call a result answers
        assert name in body, name
    tools = [a["data-tool"] for a in page.tags("div") if a.get("class") == "call"]
    assert tools == [str(tool) for tool, _ in calls]
    for _tool, state in calls:
        if state is not _NO_RESULT and state is not None:
            assert state in body
    images = [a for a in page.tags("img")]
    inline = [
        b
        for m in messages
        for b in _all_blocks(m)
        if str(b.get("data", "")).startswith("data:image/")  # LoongFlow
        or (isinstance(b.get("source"), dict) and b["source"].get("type") == "base64")
    ]
    assert len(images) == len(inline)
    assert page.tags("title") and "<title>" in text


def expected_cards(messages):
    """A card per message, but for a message of tool results only that answers calls
    made before it: its results are shown under those calls."""
    called, cards = set(), 0
    for m in messages:
        blocks = _blocks(m.get("content"))
        results = [b for b in blocks if b.get("type") in ("tool_result", "tool_output")]
        if (
            results
            and len(results) == len(m.get("content"))
            and all(b.get("id", b.get("call_id")) in called for b in results)
        ):
            continue
        cards += 1
        for b in blocks:
            if b.get("type") in ("tool_call", "tool_use", "function"):
                called.add(b.get("id", b.get("call_id")))
    return cards


def _all_blocks(message):
    out = []
    stack = list(message.get("content") or []) if isinstance(message.get("content"), list) else []
    while stack:
        block = stack.pop()
        if isinstance(block, dict):
            out.append(block)
            for key in ("output", "result"):
                if isinstance(block.get(key), list):
                    stack.extend(block[key])
    return out


def test_hostile_text_stays_text(export, tmp_path):
    code, text = export(hostile_log(tmp_path))
    assert code == 0
    page = parse(text)
    check_inert(page)
    shown = "".join(page.text)
    # shown literally, as the log has it
    assert f"<script>{PWNED}</script>" in shown
    assert f'<img src=x onerror="{PWNED}">' in shown
    assert "Mallory" in shown
    # a lone surrogate is not JSON: the line is a located notice, the rest is shown
    assert "line 5: P001" in shown
    # links only where the log gave an http(s) URL; the javascript: ones are text
    for attrs in page.tags("a"):
        href = attrs.get("href") or ""
        assert not href.lower().startswith("javascript"), href
    assert f"javascript:{PWNED}" in shown
    # media of a type that is not a plain media type, and HTML "media", are downloads,
    # never drawn; the broken base64 is not used at all
    downloads = [a for a in page.tags("a") if "download" in a]
    assert [a["href"].split(";")[0] for a in downloads] == [
        "data:application/octet-stream",
        "data:text/html",
    ]
    assert not any("AAAA" in (a.get("src") or "") for a in page.tags("img"))


def test_media_can_be_left_out_or_limited(export):
    log = REAL / "agentscope-py" / "transcript.jsonl"
    _, whole = export(log)
    assert len(parse(whole).tags("img")) == 1
    _, none = export(log, "--no-media")
    assert not parse(none).tags("img") and "left out (--no-media)" in none
    _, small = export(log, "--media-limit", "10")
    assert not parse(small).tags("img") and "larger than 10 B" in small
    # a URL is a link to click, never loaded by the page
    link = (
        "https://upload.wikimedia.org/wikipedia/commons/4/47/PNG_transparency_demonstration_1.png"
    )
    assert [a["href"] for a in parse(whole).tags("a") if a.get("class") == "media-url"] == [link]


INVALID = sorted(p for p in (FIXTURES / "invalid").rglob("*.jsonl") if "bad-input" not in p.parts)


@pytest.mark.parametrize("log", INVALID, ids=[str(p.relative_to(FIXTURES)) for p in INVALID])
def test_findings_are_shown_beside_the_message(export, log):
    """Every finding once; one at the line of a message (or of a result shown under a call)
    is in that message's card."""
    code, text = export(log, "--findings")
    assert code == 0
    from msgcli.api import iter_findings

    found = list(iter_findings(str(log)))

    class Where(HTMLParser):
        def __init__(self):
            super().__init__()
            self.card: list[str] = []  # the card's lines ("line N" texts)
            self.depth = 0
            self.items: list[tuple[bool, str]] = []
            self.li = False

        def handle_starttag(self, tag, attrs):
            if tag == "article":
                self.depth += 1
            if tag == "li" and (dict(attrs).get("class") or "").startswith("f-"):
                self.li = True
                self.items.append((self.depth > 0, ""))

        def handle_endtag(self, tag):
            if tag == "article":
                self.depth -= 1
            if tag == "li":
                self.li = False

        def handle_data(self, data):
            if self.li:
                inside, seen = self.items[-1]
                self.items[-1] = (inside, seen + data)

    where = Where()
    where.feed(text)
    assert len(where.items) == len(found)
    message_lines = {
        i
        for i, line in enumerate(log.read_text(encoding="utf-8").splitlines(), 1)
        if line.strip().startswith("{")
    }
    page = parse(text)
    card_lines = {
        int(m.group(1)) for m in re.finditer(r'class="line" href="#m\d+">line (\d+)<', text)
    }
    result_lines = {int(m.group(1)) for m in re.finditer(r'class="tag">line (\d+)', text)}
    for finding in found:
        shown = [i for i in where.items if i[1].startswith(f"line {finding.line}: {finding.code}")]
        assert shown, finding
        if finding.line in (card_lines | result_lines) & message_lines:
            assert any(inside for inside, _ in shown), finding
    assert page.tags("article")


def test_an_export_never_overwrites_its_input(run_cli, tmp_path):
    log = tmp_path / "chat.jsonl"
    original = (REAL / "loongflow" / "transcript.jsonl").read_bytes()
    log.write_bytes(original)
    for flag in ("--export-html", "--export-markdown"):
        code, _ = run_cli("show", flag, str(log), str(log))
        assert code == 2
        assert log.read_bytes() == original


def test_view_writes_a_page_per_log_and_an_index(run_cli, tmp_path):
    site = tmp_path / "site"
    code, _ = run_cli("view", str(REAL), "-o", str(site))
    assert code == 0
    index = parse((site / "index.html").read_text(encoding="utf-8"))
    check_inert(index)
    links = [a["href"] for a in index.tags("a")]
    # every log: JSONL and SSE, and the JSON documents that are logs (state files, Claude
    # Code's subagent records), not the JSON schema beside a state file; and the logs kept in
    # no JSON text, which the folder scan takes too: OpenCode's databases (not SQLite's -wal
    # and -shm files beside them) and OTLP protobuf bodies
    logs = sorted(
        str(p.relative_to(REAL))
        for p in REAL.rglob("*")
        if p.suffix in (".jsonl", ".sse", ".pb")
        or p.name == "opencode.db"
        or (p.suffix == ".json" and not p.name.endswith(".schema.json"))
    )
    assert sorted(links) == sorted(f"{name}.html" for name in logs)
    for name in logs:
        page = parse((site / f"{name}.html").read_text(encoding="utf-8"))
        check_inert(page)
        # (a Claude Code subagent's .meta.json is one record outside the conversation)
        assert page.tags("article") or name.endswith(".meta.json")
    # a missing path is a row that says so, and exit status 2
    code, _ = run_cli("view", str(REAL / "loongflow"), str(tmp_path / "nope"), "-o", str(site))
    assert code == 2
    assert "cannot read" in (site / "index.html").read_text(encoding="utf-8")


@settings(max_examples=examples(300), deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40))
def test_plain_paragraph_shortcut_renders_as_markdown_would(text):
    from markdown_it import MarkdownIt

    from msgcli.render.html import clean, render_markdown

    text = clean(text)  # as every text from a log is before it is rendered
    full = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])
    ours = html.unescape(render_markdown(text))
    theirs = html.unescape(full.render(text)) if text.strip() else ""
    assert ours == theirs


# -- Markdown -------------------------------------------------------------------------------


def golden_path(log: Path) -> Path:
    return GOLDEN / (str(log.relative_to(FIXTURES)) + ".md")


@pytest.mark.parametrize("log, final", REAL_LOGS, ids=REAL_IDS)
def test_markdown_export_is_the_golden_file(run_cli, monkeypatch, log, final):
    monkeypatch.chdir(ROOT)
    code, out = run_cli("show", "--export-markdown", "-", str(log.relative_to(ROOT)))
    assert code == 0
    golden = golden_path(log)
    if os.environ.get("MSGCLI_UPDATE_GOLDEN"):
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(out, encoding="utf-8")
    assert out == golden.read_text(encoding="utf-8")


@pytest.mark.parametrize("log, final", REAL_LOGS, ids=REAL_IDS)
def test_markdown_reads_as_the_conversation(log, final):
    """Parsed as CommonMark with GitHub's tables: a rule and a header per message, each
    tool call's name, then its arguments as a JSON fence that parses back to the log's,
    then its result's state."""
    from markdown_it import MarkdownIt

    text = golden_path(log).read_text(encoding="utf-8")
    tokens = MarkdownIt("commonmark", {"html": True}).enable("table").parse(text)
    messages = raw_messages(final)
    names, calls, _media = expectations(messages)
    headers = [
        t.content
        for i, t in enumerate(tokens)
        if t.type == "inline" and re.match(r"\*\*(" + "|".join(ROLES) + r")\*\*", t.content)
    ]
    assert len([t for t in tokens if t.type == "hr"]) == expected_cards(messages) == len(headers)
    shown = [html.unescape(re.sub("<[^>]+>", "", MarkdownIt().renderInline(h))) for h in headers]
    for name in names:  # a header's sender, or "from NAME" after a result's state
        assert any(name in h.split(" · ") for h in shown) or f"from {name}" in text, name
    shown_calls = []
    for i, t in enumerate(tokens):
        if t.type == "inline" and t.content.startswith("**→ `"):
            tool = t.content[len("**→ `") :].split("`", 1)[0]
            fence = next(x for x in tokens[i:] if x.type == "fence")
            assert fence.info == "json"
            state = None
            for later in tokens[i + 1 :]:
                if later.type == "inline" and later.content.startswith("**→ "):
                    break
                if later.type == "hr":
                    break
                if later.type == "inline" and later.content.startswith("**← "):
                    state = later.content[len("**← ") :].split("**", 1)[0]
            shown_calls.append((tool, json.loads(fence.content), state))
    raw_args = [
        _arguments(b)
        for m in messages
        for b in _all_blocks(m)
        if b.get("type") in ("tool_call", "tool_use", "function")
    ]
    assert [c[0] for c in shown_calls] == [str(tool) for tool, _ in calls]
    assert [c[1] for c in shown_calls] == raw_args
    for (_tool, _args, shown), (_, state) in zip(shown_calls, calls, strict=True):
        if state is not _NO_RESULT and state is not None:
            assert shown == state


def _arguments(block):
    args = block.get("arguments", block.get("input"))
    return json.loads(args) if isinstance(args, str) else args


def test_hostile_text_cannot_reshape_the_markdown(run_cli, tmp_path):
    from markdown_it import MarkdownIt

    code, out = run_cli("show", "--export-markdown", "-", str(hostile_log(tmp_path)))
    assert code == 0
    tokens = MarkdownIt("commonmark", {"html": True}).parse(out)
    # HTML the document carries is only its own <details>/<summary>, never the log's
    for t in tokens:
        if t.type == "html_block":
            assert re.fullmatch(
                r"\s*(</?details>|<details><summary>[^<>]*</summary>)\s*", t.content
            ), t.content
        for child in t.children or ():
            if child.type == "html_inline":
                assert child.content in ("<details>", "</details>", "<summary>", "</summary>")
    assert len([t for t in tokens if t.type == "hr"]) == 4


def test_broken_text_from_the_library_is_written_as_replacement_characters():
    """A message built in Python (not read from JSON) may hold lone surrogates."""
    import io

    from msgcli.model import Message, TextBlock
    from msgcli.render.html import HtmlOptions, HtmlWriter
    from msgcli.render.thread import Unit
    from msgcli.stream import Item

    msg = Message(
        "agentscope-py", role="user", name="a\ud800b", content=[TextBlock(text="x\udc00y")]
    )
    out = io.StringIO()
    writer = HtmlWriter(out, HtmlOptions())
    writer.unit(Unit(Item("log", 1, msg)))
    writer.close()
    text = out.getvalue()
    text.encode("utf-8")  # would fail on a surrogate
    assert "a\ufffdb" in text and "x\ufffdy" in text


def test_exports_read_standard_input_and_several_files(run_cli, tmp_path):
    log = REAL / "loongflow" / "transcript.jsonl"
    code, out = run_cli("show", "--export-markdown", "-", "-", input=log.read_bytes())
    assert code == 0 and out.count("\n---\n") + out.startswith("---\n") == 10
    page = tmp_path / "two.html"
    code, _ = run_cli("show", "--export-html", str(page), str(log), str(REAL / "agentscope-py"))
    assert code == 0
    parsed = parse(page.read_text(encoding="utf-8"))
    headings = [a for a in parsed.tags("h2") if a.get("class") == "file"]
    folder = REAL / "agentscope-py"
    documents = [p for p in folder.rglob("*.json") if not p.name.endswith(".schema.json")]
    # standard input, each JSONL log, the .sse streams and the state files (JSON documents)
    streams = list(folder.rglob("*.jsonl")) + list(folder.rglob("*.sse"))
    assert len(headings) == 1 + len(streams) + len(documents)
    # options that need a file, or the HTML export, say so
    assert run_cli("show", "--findings", str(log))[0] == 2
    assert run_cli("show", "--export-html", str(page), "--findings", "-", input=b"")[0] == 2


def test_hostile_file_names_stay_text_in_the_index(run_cli, tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    name = f'"><img src=x onerror="{PWNED}"> #?%.jsonl'
    (logs / name).write_bytes((REAL / "loongflow" / "transcript.jsonl").read_bytes())
    site = tmp_path / "site"
    code, _ = run_cli("view", str(logs), "-o", str(site))
    assert code == 0
    index = parse((site / "index.html").read_text(encoding="utf-8"))
    check_inert(index)
    assert not index.tags("img")
    (link,) = [a["href"] for a in index.tags("a")]
    from urllib.parse import unquote

    assert (site / unquote(link)).is_file()
    page = parse((site / unquote(link)).read_text(encoding="utf-8"))
    check_inert(page)
    assert name in "".join(page.text)
