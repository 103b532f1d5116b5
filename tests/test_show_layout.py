"""What ``msgcli show`` lays out without rich is what rich lays out, and what it reads for the
short ids is what the whole reading gives.

The view lays out some things itself where no colour is drawn, for speed: LoongFlow's
``evolve_result`` table, texts of printable one-cell characters. Each is held here to rich's
own layout on drawn examples; the short ids, read from each message's id alone past the first
message, to those of a reading of every message whole, on every bundled log and on logs with
lines of every kind the reader meets.
"""

from __future__ import annotations

import io
import json
import re

from conftest import FIXTURES, examples, log_files
from hypothesis import given, settings
from hypothesis import strategies as st

from msgcli.engine import Options
from msgcli.guard import deep_recursion
from msgcli.render.thread import ShowOptions, Unit, render_unit, short_ids
from msgcli.render.view import View, console_for
from msgcli.stream import Item, open_log
from msgcli.textsafe import lines, visible

_CELL = st.sampled_from(
    ["a", "b", " ", "  ", "-", "Zürich", "x" * 12, "1.5", "日本", "😀", "\t", "é"]
)


def _evolve_unit(fields: dict) -> Unit:
    """A LoongFlow message holding one ``evolve_result`` block with these fields."""
    from msgcli.dialects import get_dialect

    record = {
        "id": "5501cbfd-a37e-4868-a4b9-ed6383d25c8e",
        "timestamp": "2026-11-22T11:52:09.564105",
        "trace_id": "",
        "conversation_id": "",
        "role": "assistant",
        "sender": "LoongFlowFinalizer",
        "metadata": {},
        "content": [{"type": "evolve_result", **fields}],
    }
    msg = get_dialect("loongflow").read(record)
    return Unit(Item("x.jsonl", 1, msg, record))


def _through_rich(unit: Unit, width: int) -> str:
    """The unit printed through rich itself (a recording console writes nothing directly)."""
    out = io.StringIO()
    console = console_for(out, colour=False, width=width, record=True)
    View(console, ShowOptions())._print(unit)
    return out.getvalue()


def _direct(unit: Unit, width: int) -> str:
    out = io.StringIO()
    View(console_for(out, colour=False, width=width), ShowOptions())._print(unit)
    return out.getvalue()


@settings(max_examples=examples(500), deadline=None)
@given(
    rows=st.dictionaries(
        st.lists(_CELL, min_size=1, max_size=3).map("".join),
        st.one_of(
            st.lists(_CELL, max_size=8).map("".join),
            st.integers(),
            st.floats(allow_nan=False),
            st.lists(st.integers(), max_size=4),
        ),
        max_size=6,
    ),
    width=st.integers(min_value=20, max_value=120),
)
def test_the_evolve_table_is_laid_out_as_rich_lays_it_out(rows, width):
    """LoongFlow's ``evolve_result`` is written as rich's table writes it, wherever the view
    lays it out itself (rows of one line that fit) and wherever it leaves it to rich."""
    rows.pop("type", None)
    unit = _evolve_unit(rows)
    assert _direct(unit, width) == _through_rich(unit, width)


def test_a_real_evolve_result_is_laid_out_as_rich_lays_it_out():
    path = FIXTURES / "real" / "loongflow"
    units = []
    for file in log_files(path):
        for item in open_log(file, Options(None)):
            msg = item.message
            if msg is not None and any(b.type == "evolve_result" for b in msg.content):
                units.append(Unit(item))
    assert units, "the real LoongFlow runs hold an evolve_result"
    from msgcli.render.thread import _evolve

    blocks = [b for u in units for b in u.item.message.content if b.type == "evolve_result"]
    # (laid out by the view itself at 100 columns, not left to rich)
    assert all(_evolve(b).plain_lines(96) is not None for b in blocks)
    for unit in units:
        for width in (20, 40, 60, 100, 200):
            assert _direct(unit, width) == _through_rich(unit, width)


@settings(max_examples=examples(500), deadline=None)
@given(
    text=st.lists(
        st.sampled_from(["a", "bc", " ", "\n", "Zürich", "日本語", "😀", "☂️", "\t", "x" * 30, "…"]),
        max_size=30,
    ).map("".join),
    width=st.integers(min_value=20, max_value=60),
)
def test_texts_are_laid_out_as_rich_lays_them_out(text, width):
    """A tool result's text, whatever characters it holds, is written as rich writes it."""
    record = {
        "name": "Friday",
        "role": "assistant",
        "id": "m1",
        "content": [
            {"type": "tool_call", "id": "c1", "name": "t", "input": "{}", "state": "finished"},
            {"type": "tool_result", "id": "c1", "name": "t", "output": text, "state": "success"},
        ],
        "metadata": {},
        "created_at": "2026-11-22T11:54:32.303653",
        "finished_at": None,
        "usage": None,
        "finished_reason": None,
        "structured_output": None,
        "error": None,
    }
    from msgcli.dialects import get_dialect

    unit = Unit(Item("x.jsonl", 1, get_dialect("agentscope-py").read(record), record))
    options = ShowOptions(full=True)
    direct, rich = io.StringIO(), io.StringIO()
    View(console_for(direct, colour=False, width=width), options)._print(unit)
    View(console_for(rich, colour=False, width=width, record=True), options)._print(unit)
    assert direct.getvalue() == rich.getvalue()
    assert render_unit(unit, options) is not None


def _short_ids_read_whole(path) -> dict[str, str] | None:
    with deep_recursion():
        ids = [
            str(item.message.id)
            for item in open_log(path, Options(None))
            if item.message is not None and item.message.id
        ]
    return short_ids(ids)


def test_the_short_ids_are_those_of_every_message_read_whole():
    """On every bundled log, the ids read alone give the short ids the messages give."""
    for path in log_files(FIXTURES):
        assert View._short_ids(str(path), path, None) == _short_ids_read_whole(path), path


def test_the_ids_read_alone_skip_what_the_reading_skips(tmp_path):
    """Lines that are no message of the log (broken, blank, NaN recovered, not an object,
    another dialect's record, an event in a message log) give the ids the whole reading gives,
    wherever they come past the first message."""
    real = (FIXTURES / "real" / "agentscope-py" / "transcript.jsonl").read_text(encoding="utf-8")
    first, *rest = real.splitlines()
    java = (FIXTURES / "real" / "agentscope-java").rglob("*.jsonl")
    foreign = next(iter(sorted(java))).read_text(encoding="utf-8").splitlines()[0]
    odd = [
        "",
        "{broken",
        "[1, 2]",
        re.sub(r'"usage":null', '"usage":NaN', rest[0]),
        foreign,
        json.dumps({"reply_id": "r1", "type": "TEXT_BLOCK_DELTA", "id": "e1"}),
        json.dumps({"role": "user", "content": "hi", "id": "aaaaaaaa-1"}),
    ]
    log = tmp_path / "odd.jsonl"
    log.write_text("\n".join([first, *odd, *rest, '{"cut off']) + "\n", encoding="utf-8")
    assert View._short_ids(str(log), log, None) == _short_ids_read_whole(log)


def test_a_claude_code_sessions_ids_read_alone_are_those_of_its_joined_messages(tmp_path):
    """A session's records are joined into one message per response (the records of one
    response apart, results between them, a copy of it further down); read alone, each record
    gives the id of the message it is joined into, and lines that are no message of the
    session give none, as the whole reading joins and skips them."""
    real = FIXTURES / "real" / "claude-code" / "03-parallel-read" / "session.jsonl"
    records = real.read_text(encoding="utf-8").splitlines()
    responses = [line for line in records if json.loads(line).get("type") == "assistant"]
    assert len({json.loads(line)["message"]["id"] for line in responses}) < len(responses)
    first = json.loads(responses[0])
    odd = [
        "",
        "{broken",
        "[1, 2]",
        json.dumps({**first, "message": "not an object", "uuid": "0f0f0f0f-odd"}),
        json.dumps({**first, "message": {**first["message"], "id": 12345678901}}),
        json.dumps({**first, "message": {**first["message"], "id": ""}}),
        json.dumps({k: v for k, v in json.loads(records[2]).items() if k != "uuid"}),
        (FIXTURES / "real" / "agentscope-py" / "transcript.jsonl")
        .read_text(encoding="utf-8")
        .splitlines()[0],
    ]
    log = tmp_path / "session.jsonl"
    lines = [*records[:3], *odd, *records[3:], *responses[:2], '{"type": "assistant", "cut']
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    expected = _short_ids_read_whole(log)
    assert expected is not None and str(first["message"]["id"]) in expected
    assert View._short_ids(str(log), log, None) == expected


@settings(max_examples=examples(1000), deadline=None)
@given(ids=st.lists(st.text(alphabet="ab1-", max_size=12), max_size=12))
def test_short_ids_are_the_shortest_unique_prefixes(ids):
    """Each id's short id is its shortest prefix of 8 or more characters no other id starts
    with (the whole id when another is the same or starts with it)."""
    got = short_ids(ids)
    unique = set(ids)
    for i in unique:
        others = unique - {i}
        want = next(
            (i[:n] for n in range(8, len(i) + 1) if not any(o.startswith(i[:n]) for o in others)),
            i,
        )
        assert got[i] == want


@settings(max_examples=examples(1000), deadline=None)
@given(
    text=st.lists(
        st.sampled_from(
            ["a", " ", "\n", "\r\n", "\r", "\u2028", "\x85", "\t", "\x1b", "é", "\u202e"]
        ),
        max_size=20,
    ).map("".join)
)
def test_texts_are_made_visible_and_split_as_the_rule_says(text):
    """The quick answers of ``visible`` and ``lines`` for common texts are the rule's own."""
    from msgcli import textsafe

    breaks = re.compile("\r\n|[\n\u2028\u2029\x85]")
    assert lines(text) == breaks.split(text)
    # the rule: every line separator a newline, then every other control an escape
    joined = "\n".join(breaks.split(text))
    assert visible(text, multiline=True) == textsafe._CONTROL.sub(textsafe._escape, joined)


def test_no_printable_character_is_changed_by_the_rule():
    """``visible`` gives a printable text back as it is, unread: every character the rule
    escapes or breaks at is one Python counts as not printable."""
    from msgcli import textsafe

    patterns = (textsafe._CONTROL_AND_BREAKS, textsafe._CHANGED_MULTILINE, textsafe._BREAK)
    changed = [
        c
        for c in map(chr, range(0x110000))
        if c.isprintable() and any(p.search(c) for p in patterns)
    ]
    assert changed == []


def test_a_file_gets_what_a_stream_gets(tmp_path, monkeypatch):
    """Written to a regular file, where the view holds its text back and writes it in large
    pieces, the output is what a stream gets message by message: notices, rules between logs,
    unreadable inputs and the held text in their order, with ``--tail`` too."""
    from conftest import ROOT

    big = tmp_path / "big.jsonl"
    real = (FIXTURES / "real" / "agentscope-py" / "transcript.jsonl").read_bytes()
    big.write_bytes(real * 60 + b"{broken\n" + real * 20)
    paths = [
        str(big),
        "fixtures/invalid/bad-input",
        "fixtures/real/claude-code",
        "fixtures/real/loongflow/transcript.jsonl",
        str(tmp_path / "missing.jsonl"),
    ]
    monkeypatch.chdir(ROOT)
    for tail in (None, 5):
        stream = io.StringIO()
        code = View(console_for(stream, colour=False, width=100), ShowOptions(), tail=tail).run(
            paths, None
        )
        target = tmp_path / "out.txt"
        with target.open("w", encoding="utf-8") as out:
            view = View(console_for(out, colour=False, width=100), ShowOptions(), tail=tail)
            assert not view._flush  # (the file is written in pieces)
            assert view.run(paths, None) == code
        assert target.read_text(encoding="utf-8") == stream.getvalue()
        assert len(stream.getvalue()) > 200_000 or tail
