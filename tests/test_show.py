"""``msgcli show``: every bundled log read as a chat, checked for what a reader must see.

What a reader must see is worked out here from the raw JSON, per dialect, with
no msgcli code: every sender's name, every tool call followed (before the next
message) by the state of the result that answers it, and a media line for every
image. Event logs are checked against the messages their framework built from
them (``*-final.jsonl``, ``*-expected.jsonl``).
"""

from __future__ import annotations

import io
import json
import re
import threading
import time

import pytest
from conftest import FIXTURES, document_messages, examples, log_files

from msgcli.render.thread import ShowOptions
from msgcli.render.view import View, console_for, open_pager

HEADER_ROLES = ("SYSTEM", "USER", "ASSISTANT", "TOOL")


def raw_messages(path):
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        return document_messages(json.loads(text))
    # (split at newlines only: a record may hold U+2028 or U+0085 unescaped, as JSON allows)
    return [json.loads(x) for x in text.split("\n") if x.strip()]


def expectations(messages):
    """``(names, calls, media)`` a reader must see: sender names; ``(tool name, result
    state or None)`` per tool call; the media type (or kind) of every image."""
    names, calls, media = set(), [], []
    results = {}
    for m in messages:
        name = m.get("name", m.get("sender"))
        if isinstance(name, str) and name:
            names.add(name)
        for block in _blocks(m.get("content")):
            kind = block.get("type")
            if kind == "tool_result" or kind == "tool_output":
                results[block.get("id", block.get("call_id"))] = block.get(
                    "state", block.get("status")
                )
    paired = set()
    for m in messages:
        for block in _blocks(m.get("content")):
            kind = block.get("type")
            if kind in ("tool_call", "tool_use", "function"):
                cid = block.get("id", block.get("call_id"))
                if cid in paired:  # a second call with the same id: its result is shown once
                    cid = object()
                paired.add(cid)
                tool = block.get("name")
                if tool is None:
                    tool = (block.get("arguments") or {}).get("name") or block.get("target")
                calls.append((tool, results.get(cid, _NO_RESULT)))
            for inner in [block, *_blocks(block.get("output") or block.get("result"))]:
                mt = _image_type(inner)
                if mt:
                    media.append(mt)
    return names, calls, media


_NO_RESULT = object()


def _blocks(content):
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _image_type(block):
    kind = block.get("type")
    source = block.get("source") if isinstance(block.get("source"), dict) else {}
    mt = source.get("media_type") or source.get("mime_type") or block.get("mime_type")
    if kind == "image" or (isinstance(mt, str) and mt.startswith("image/")):
        return mt or "image"
    return None


def render(path, **options):
    out = io.StringIO()
    console = console_for(out, colour=False, width=120)
    code = View(console, ShowOptions(**options)).run([str(path)], None)
    return code, out.getvalue()


def sections(text):
    """The rendered messages: blocks of lines that start with a role badge."""
    out, current = [], []
    for line in text.splitlines():
        if line.startswith(" ") and line.strip().split(" ")[0] in HEADER_ROLES and "line " in line:
            if current:
                out.append(current)
            current = [line]
        elif current:
            current.append(line)
    if current:
        out.append(current)
    return out


MESSAGE_LOGS = [
    p
    for folder in ("real", "valid")
    for p in log_files(FIXTURES / folder)
    if ("events" not in p.name or p.name.endswith("-final.jsonl"))
    and not p.name.endswith(".schema.json")
    # provider conversations hold many messages per line: see test_provider_streams.py;
    # Claude Code sessions, Codex rollouts, Gemini CLI sessions and OTLP exports are records,
    # not messages (a Gemini CLI session is a journal of patches, an OTLP batch holds spans):
    # see test_dialect_claude_code, test_codex, test_gemini_cli and test_otel
    and p.relative_to(FIXTURES).parts[1]
    not in ("openai-chat", "openai-responses", "anthropic", "codex", "otel")
    and "claude-code" not in p.parts
    and "opencode" not in p.parts
    and "gemini-cli" not in p.parts
    # ATIF trajectories hold steps, each read into several messages: see test_atif
    and p.relative_to(FIXTURES).parts[1] != "atif"
]
PAIRS = [
    (p, p.with_name(p.stem + suffix))
    for p in log_files(FIXTURES / "events")
    for suffix in ("-final.jsonl", "-expected.jsonl")
    if p.with_name(p.stem + suffix).is_file()
] + [
    (FIXTURES / "real" / "agentscope-py" / "events.jsonl",) * 1
    + (FIXTURES / "real" / "agentscope-py" / "events-final.jsonl",),
    (
        FIXTURES / "real" / "agentscope-py" / "events.sse",
        FIXTURES / "real" / "agentscope-py" / "events-final.jsonl",
    ),
]


def _check(text, messages):
    names, calls, media = expectations(messages)
    for name in names:
        assert name in text, name
    # each tool call is followed, inside the same rendered message, by its result's state
    rendered_calls = []
    for section in sections(text):
        lines = section
        for i, line in enumerate(lines):
            stripped = line.strip()
            if stripped.startswith("→ "):
                tool = stripped[2:].split("  ")[0]
                state = None
                for later in lines[i + 1 :]:
                    if later.strip().startswith("→ "):
                        break
                    if later.strip().startswith("← "):
                        # (a tool may report progress first: the last state is the result's)
                        state = later.strip()[2:].split("  ")[0]
                rendered_calls.append((tool, state))
    assert [tool for tool, _ in rendered_calls] == [str(tool) for tool, _ in calls]
    for (tool, shown), (_, state) in zip(rendered_calls, calls, strict=True):
        if state is _NO_RESULT:
            assert shown is None, f"{tool}: a result is shown, but the log holds none"
        elif state is not None:  # (AgentScope 1.x results carry no state)
            assert shown == state, f"{tool}: {shown!r} shown, the result says {state!r}"
        else:
            assert shown is not None, f"{tool}: its result is not shown under it"
    media_lines = [line.strip() for line in text.splitlines() if line.strip().startswith("▣")]
    for mt in media:
        assert any(mt in line for line in media_lines), (mt, media_lines)
    assert len(media_lines) >= len(media)


@pytest.mark.parametrize(
    "path", MESSAGE_LOGS, ids=[str(p.relative_to(FIXTURES)) for p in MESSAGE_LOGS]
)
def test_every_message_log_reads_as_a_chat(path):
    code, text = render(path)
    assert code == 0
    _check(text, raw_messages(path))
    assert "\x1b" not in text


@pytest.mark.parametrize(
    "events, final", PAIRS, ids=[str(p[0].relative_to(FIXTURES)) for p in PAIRS]
)
def test_event_logs_read_as_the_messages_their_framework_built(events, final):
    code, text = render(events)
    assert code == 0
    _check(text, raw_messages(final))


ALL = log_files(FIXTURES)


@pytest.mark.parametrize("path", ALL, ids=[str(p.relative_to(FIXTURES)) for p in ALL])
def test_every_fixture_renders(path):
    """Broken logs included: whatever is in them, show prints what it can and says
    where a line could not be read."""
    code, text = render(path)
    assert code == 0
    assert "Traceback" not in text


def test_broken_lines_are_shown_where_they_are():
    _code, text = render(FIXTURES / "invalid" / "bad-input" / "invalid-json.jsonl")
    assert "line 2: P001" in text
    assert " USER " in text  # the lines around it still show


def test_a_cut_stream_says_so_on_the_message():
    _, text = render(
        FIXTURES / "events" / "agentscope-py" / "invalid" / "stream-cut-mid-reply.jsonl"
    )
    assert "line 29: E007" in text
    assert "incomplete: the stream stopped here" in text


HOSTILE = {
    "name": "[bold red]Mallory[/]\x1b]0;pwned\x07",
    "content": [
        {
            "type": "text",
            "text": "[link=https://evil.example]click[/link] \x1b[2J\x1b[H cleared? \x07\x08 "
            "\x9b31m C1 \u202etxt.exe",
            "id": "a" * 32,
            "created_at": "2026-11-22T11:54:32.302908",
            "finished_at": None,
        },
        {
            "type": "thinking",
            "thinking": "[dim]hidden[/dim] \x1b[8m",
            "id": "b" * 32,
            "created_at": "2026-11-22T11:54:32.302908",
            "finished_at": None,
        },
        {
            "type": "tool_call",
            "id": "call_\x1b[31m1",
            "name": "[red]rm[/red]\x1b]2;x\x07",
            "input": '{"path": "\\u001b[2J/[b]x[/b]"}',
            "state": "finished",
            "suggested_rules": [],
            "created_at": "2026-11-22T11:54:32.302908",
            "finished_at": None,
        },
        {
            "type": "tool_result",
            "id": "call_\x1b[31m1",
            "name": "rm",
            "output": "done \x1b[1;1H\x1b[J [i]ok[/i]",
            "state": "success",
            "metadata": {},
            "created_at": "2026-11-22T11:54:32.302908",
            "finished_at": None,
        },
    ],
    "role": "assistant",
    "id": "c" * 32,
    "metadata": {"note": "\x1b]8;;http://x\x07link"},
    "created_at": "2026-11-22T11:54:32.302881",
    "usage": None,
    "finished_at": None,
    "finished_reason": None,
    "structured_output": None,
    "error": None,
}


@pytest.mark.parametrize("colour", [False, True])
def test_markup_and_escape_sequences_are_printed_literally(tmp_path, colour):
    log = tmp_path / "hostile.jsonl"
    log.write_text(json.dumps(HOSTILE, ensure_ascii=False) + "\n", encoding="utf-8")
    out = io.StringIO()
    console = console_for(out, colour=colour, width=200)
    View(console, ShowOptions(metadata=True, thinking="full")).run([str(log)], None)
    text = out.getvalue()
    # none of the log's control bytes reach the terminal
    for raw in ("\x1b[2J", "\x1b]0;", "\x1b]2;", "\x1b]8;", "\x1b[H", "\x1b[8m", "\x07", "\x08"):
        assert raw not in text
    assert "\x9b" not in text and "\u202e" not in text
    if not colour:
        assert "\x1b" not in text
    # the markup is text, exactly as written
    for literal in (
        "[bold red]Mallory[/]",
        "[link=https://evil.example]click[/link]",
        "[dim]hidden[/dim]",
        "[red]rm[/red]",
        "[i]ok[/i]",
    ):
        assert literal in text
    # and the escapes are visible
    assert "\\e]0;pwned\\x07" in text
    assert "\\e[2J" in text


def test_filters_head_and_tail():
    path = FIXTURES / "real" / "agentscope-py" / "transcript.jsonl"
    raw = raw_messages(path)
    _, text = render(path)
    assert len(sections(text)) == len(raw)
    out = io.StringIO()
    console = console_for(out, colour=False, width=120)
    from msgcli.render.view import Filters

    View(console, ShowOptions(), Filters(names={"Alice"})).run([str(path)], None)
    assert [s[0].split()[1] for s in sections(out.getvalue())] == [
        m["name"] for m in raw if m["name"] == "Alice"
    ]
    for head, expected in ((2, raw[:2]), (1, raw[:1])):
        out = io.StringIO()
        View(console_for(out, colour=False), ShowOptions(), head=head).run([str(path)], None)
        assert [s[0].split()[1] for s in sections(out.getvalue())] == [m["name"] for m in expected]
    out = io.StringIO()
    View(console_for(out, colour=False), ShowOptions(), tail=2).run([str(path)], None)
    assert [s[0].split()[1] for s in sections(out.getvalue())] == [m["name"] for m in raw[-2:]]


def test_head_stops_reading(run_cli):
    """The first messages are shown without reading the rest: a stream that fails
    after two lines is never read that far with --head 1."""
    lines = (FIXTURES / "real" / "agentscope-py" / "transcript.jsonl").read_bytes().splitlines(True)

    class Stream:
        """Two lines, then a failure: what a reader would hit reading on."""

        def read(self, size=-1):
            raise AssertionError("read as a whole")

        def peek(self, size=1):
            return b""

        def __iter__(self):
            yield from lines[:2]
            raise AssertionError("read past the first two records")

    from msgcli.render.thread import Thread
    from msgcli.stream import LogReader

    seen = []

    class Stop(Exception):
        pass

    def emit(unit):
        seen.append(unit)
        if len(seen) == 1:
            raise Stop

    thread = Thread(emit)
    with pytest.raises(Stop):
        for item in LogReader("x").items(Stream()):
            thread.add(item)
    assert seen[0].item.message.name == "system"


def test_command_line_plain_output_and_html_export(run_cli, tmp_path, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    path = str(FIXTURES / "real" / "agentscope-py" / "transcript.jsonl")
    code, out = run_cli("show", "--no-pager", path)
    assert code == 0 and "Friday" in out and "\x1b" not in out
    page = tmp_path / "chat.html"
    code, _ = run_cli("show", "--export-html", str(page), path)
    assert code == 0
    html = page.read_text(encoding="utf-8")
    assert html.lstrip().lower().startswith("<!doctype html") and "Friday" in html
    assert "get_weather" in html and "\x1b" not in html
    code, out = run_cli("show", "--head", "1", "--tail", "1", path)
    assert code == 2
    code, out = run_cli("show", "--grep", "(", path)
    assert code == 2


def test_pager_gets_the_output(tmp_path, monkeypatch):
    target = tmp_path / "paged.txt"
    monkeypatch.setenv(
        "MSGCLI_PAGER",
        f"python3 -c \"import sys; open({str(target)!r}, 'w').write(sys.stdin.read())\"",
    )
    with open_pager(None) as (out, is_pager):
        assert is_pager
        out.write("hello pager\n")
    assert target.read_text() == "hello pager\n"


@pytest.mark.parametrize("live", [False, True])
def test_follow_shows_replies_as_the_log_grows(tmp_path, live):
    events = (FIXTURES / "real" / "agentscope-py" / "events.jsonl").read_bytes().splitlines(True)
    log = tmp_path / "live.jsonl"
    log.write_bytes(b"".join(events[:5]))

    def writer():
        with open(log, "ab") as f:
            for line in events[5:]:
                time.sleep(0.002)
                f.write(line)
                f.flush()

    thread = threading.Thread(target=writer)
    thread.start()
    out = io.StringIO()
    console = console_for(out, colour=live, width=120)
    code = View(console, ShowOptions()).follow(str(log), None, idle=0.5, live=live)
    thread.join()
    assert code == 0
    text = out.getvalue()
    if live:  # the reply was drawn while it streamed (erased, redrawn), then printed
        assert "\x1b[2K" in text
        text = re.sub("\x1b\\[[0-9;?]*[A-Za-z]", "", text)
    assert "Friday" in text and "get_weather" in text and "← success" in text


def test_mutated_records_never_break_the_view():
    """Records that fail every schema still render, block by block, without a crash."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    sources = [
        FIXTURES / "real" / "agentscope-py" / "transcript.jsonl",
        FIXTURES / "real" / "loongflow" / "transcript.jsonl",
        FIXTURES / "valid" / "agentscope-java" / "react-weather.jsonl",
    ]
    records = [m for p in sources for m in raw_messages(p)]
    values = st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=12),
        lambda inner: (
            st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
        ),
        max_leaves=8,
    )

    @settings(
        max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow]
    )
    @given(st.integers(0, len(records) - 1), st.data())
    def check(index, data):
        record = json.loads(json.dumps(records[index]))
        targets = [record] + [b for b in record.get("content") or [] if isinstance(b, dict)]
        for _ in range(data.draw(st.integers(1, 4))):
            target = data.draw(st.sampled_from(targets))
            if target:
                key = data.draw(st.sampled_from(sorted(target)))
                target[key] = data.draw(values)
        log = io.BytesIO(json.dumps(record).encode() + b"\n")
        out = io.StringIO()
        from msgcli.render.thread import Thread, render_unit
        from msgcli.stream import LogReader

        console = console_for(out, colour=True, width=80)
        thread = Thread(
            lambda unit: console.print(
                render_unit(unit, ShowOptions(metadata=True)) if unit.item.message else ""
            )
        )
        for item in LogReader("x").items(log):
            thread.add(item)
        thread.close()

    check()
