"""diff, export, query and the HTML / Markdown exports on the provider dialects' real files.

Every expectation is computed from the raw JSON of the file in the test (how many
messages a conversation line holds, how many tool calls, what ``usage`` says), never
copied from msgcli's own output.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from conftest import FIXTURES, resolve_pointer

REAL = FIXTURES / "real"
STREAMS = FIXTURES / "provider-streams"

CONVERSATIONS = {
    "openai-chat": REAL / "openai-chat" / "conversations.jsonl",
    "openai-responses": REAL / "openai-responses" / "conversations.jsonl",
    "anthropic": REAL / "anthropic" / "conversations.jsonl",
}
FINETUNE = REAL / "openai-chat" / "finetune.jsonl"


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


# -- what the raw JSON holds ------------------------------------------------------------


def _raw_messages(dialect: str, record: dict) -> list[dict]:
    """The messages of one conversation line, the system prompt as a message of its own."""
    if dialect == "openai-responses":
        out = (
            [{"role": "system", "content": record["instructions"]}]
            if record.get("instructions")
            else []
        )
        return out + record["input"]
    out = [{"role": "system", "content": record["system"]}] if record.get("system") else []
    return out + record["messages"]


def _raw_calls(dialect: str, record: dict) -> list[tuple[str, str, dict]]:
    """``(id, name, arguments)`` of every tool call of a conversation line."""
    calls = []
    for m in _raw_messages(dialect, record):
        if dialect == "openai-chat":
            for c in m.get("tool_calls") or ():
                calls.append(
                    (c["id"], c["function"]["name"], json.loads(c["function"]["arguments"]))
                )
        elif dialect == "openai-responses":
            if m.get("type") == "function_call":
                calls.append((m["call_id"], m["name"], json.loads(m["arguments"])))
        elif isinstance(m.get("content"), list):
            for b in m["content"]:
                if b.get("type") == "tool_use":
                    calls.append((b["id"], b["name"], b["input"]))
    return calls


def _raw_texts(dialect: str, record: dict) -> list[str]:
    """Every text of a conversation line (messages and tool results)."""
    texts = []
    for m in _raw_messages(dialect, record):
        content = m.get("content", m.get("output"))
        if isinstance(content, str):
            texts.append(content)
        elif isinstance(content, list):
            for b in content:
                if isinstance(b.get("text"), str):
                    texts.append(b["text"])
                elif isinstance(b.get("content"), str):  # an Anthropic tool_result
                    texts.append(b["content"])
    return [t for t in texts if t.strip()]


def _leaves(value):
    """The scalar values inside a JSON value."""
    if isinstance(value, dict):
        for v in value.values():
            yield from _leaves(v)
    elif isinstance(value, list):
        for v in value:
            yield from _leaves(v)
    else:
        yield value


def _usage_of_stream(path: Path) -> dict[str, int]:
    """The token counts a stream's ``usage`` reports, read from the events themselves."""
    events = _lines(path)
    if events[0].get("object") == "chat.completion.chunk":
        usage = next(e["usage"] for e in reversed(events) if e.get("usage"))
        return {
            "input": usage["prompt_tokens"],
            "output": usage["completion_tokens"],
            "cached": usage["prompt_tokens_details"]["cached_tokens"],
            "reasoning": usage["completion_tokens_details"]["reasoning_tokens"],
        }
    if events[0]["type"].startswith("response."):
        usage = next(e for e in events if e["type"] == "response.completed")["response"]["usage"]
        return {
            "input": usage["input_tokens"],
            "output": usage["output_tokens"],
            "cached": usage["input_tokens_details"]["cached_tokens"],
            "reasoning": usage["output_tokens_details"]["reasoning_tokens"],
        }
    start = next(e for e in events if e["type"] == "message_start")["message"]["usage"]
    delta = [e for e in events if e["type"] == "message_delta"][-1]["usage"]
    return {
        "input": start["input_tokens"],
        "output": delta["output_tokens"],
        "cached": start.get("cache_read_input_tokens") or 0,
    }


# -- export: every table format -----------------------------------------------------------


def _export_sqlite(run_cli, tmp_path: Path, log: Path) -> sqlite3.Connection:
    target = tmp_path / f"{log.parent.name}-{log.stem}.sqlite"
    code, _ = run_cli("export", "--to", str(target), str(log))
    assert code == 0
    return sqlite3.connect(target)


@pytest.mark.parametrize("dialect", sorted(CONVERSATIONS))
def test_export_counts_the_messages_and_tool_calls_of_every_conversation_line(
    run_cli, tmp_path, dialect
):
    log = CONVERSATIONS[dialect]
    records = _lines(log)
    db = _export_sqlite(run_cli, tmp_path, log)
    per_line = dict(db.execute("SELECT line, count(*) FROM messages GROUP BY line").fetchall())
    raw_per_line = {n: len(_raw_messages(dialect, r)) for n, r in enumerate(records, 1)}
    assert per_line == raw_per_line
    calls = db.execute(
        "SELECT call_id, name, arguments, call_line, status, result_line FROM tool_calls"
    )
    rows = calls.fetchall()
    raw = {
        (c[0], c[1], json.dumps(c[2], sort_keys=True))
        for r in records
        for c in _raw_calls(dialect, r)
    }
    got = {(r[0], r[1], json.dumps(json.loads(r[2]), sort_keys=True)) for r in rows}
    assert got == raw
    assert len(rows) == len(raw)
    # every call of these conversations is answered, on the line of its conversation
    assert all(r[5] == r[3] for r in rows)
    # the messages table counts the same calls
    assert db.execute("SELECT sum(tool_calls) FROM messages").fetchone()[0] == len(raw)
    # every block's pointer is into its conversation line
    for line, where in db.execute("SELECT line, pointer FROM blocks"):
        resolve_pointer(records[line - 1], where)


def test_export_of_a_finetuning_file(run_cli, tmp_path):
    records = _lines(FINETUNE)
    db = _export_sqlite(run_cli, tmp_path, FINETUNE)
    assert db.execute("SELECT count(*) FROM messages").fetchone()[0] == sum(
        len(r["messages"]) for r in records
    )
    assert db.execute("SELECT count(*) FROM tool_calls").fetchone()[0] == sum(
        len(_raw_calls("openai-chat", r)) for r in records
    )
    roles = {r for (r,) in db.execute("SELECT DISTINCT role FROM messages")}
    assert roles == {m["role"] for r in records for m in r["messages"]}


STREAM_LOGS = [
    REAL / "openai-chat" / "events.jsonl",
    REAL / "openai-responses" / "events.jsonl",
    REAL / "anthropic" / "events.jsonl",
    STREAMS / "openai-responses" / "reasoning" / "events.jsonl",
    STREAMS / "openai-chat" / "tool-call" / "sse.txt",
]


@pytest.mark.parametrize("log", STREAM_LOGS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_export_token_columns_come_from_the_streams_usage(run_cli, tmp_path, log):
    if not log.exists():
        pytest.skip(f"{log} is not in the fixtures")
    source = log
    if log.suffix == ".txt":  # the raw SSE body: the same usage as the parsed events beside it
        source = log.with_name("events.jsonl")
    want = _usage_of_stream(source)
    db = _export_sqlite(run_cli, tmp_path, log)
    got = db.execute(
        "SELECT sum(input_tokens), sum(output_tokens), sum(cached_tokens), sum(reasoning_tokens) "
        "FROM messages"
    ).fetchone()
    assert got[:3] == (want["input"], want["output"], want["cached"])
    if "reasoning" in want:
        assert got[3] == want["reasoning"]


@pytest.mark.parametrize("suffix", [".csv", ".sqlite", ".parquet", ".duckdb"])
def test_export_every_table_format_holds_the_same_rows(run_cli, tmp_path, suffix):
    log = CONVERSATIONS["openai-chat"]
    records = _lines(log)
    target = tmp_path / f"out{suffix}"
    code, _ = run_cli("export", "--to", str(target), str(log))
    assert code == 0
    messages = sum(len(r["messages"]) for r in records)
    calls = sum(len(_raw_calls("openai-chat", r)) for r in records)
    if suffix == ".csv":
        import csv

        with open(target / "messages.csv", encoding="utf-8", newline="") as f:
            assert len(list(csv.DictReader(f))) == messages
        with open(target / "tool_calls.csv", encoding="utf-8", newline="") as f:
            assert len(list(csv.DictReader(f))) == calls
    elif suffix == ".sqlite":
        db = sqlite3.connect(target)
        assert db.execute("SELECT count(*) FROM messages").fetchone()[0] == messages
        assert db.execute("SELECT count(*) FROM tool_calls").fetchone()[0] == calls
    elif suffix == ".parquet":
        pq = pytest.importorskip("pyarrow.parquet")
        assert pq.read_table(target / "messages.parquet").num_rows == messages
        assert pq.read_table(target / "tool_calls.parquet").num_rows == calls
    else:
        duckdb = pytest.importorskip("duckdb")
        con = duckdb.connect(str(target), read_only=True)
        assert con.execute("SELECT count(*) FROM messages").fetchone()[0] == messages
        assert con.execute("SELECT count(*) FROM tool_calls").fetchone()[0] == calls


# -- query ----------------------------------------------------------------------------------


@pytest.mark.parametrize("dialect", sorted(CONVERSATIONS))
def test_query_by_tool_finds_every_call_and_its_result(run_cli, dialect):
    log = CONVERSATIONS[dialect]
    records = _lines(log)
    calls = [c for r in records for c in _raw_calls(dialect, r)]
    name = calls[0][1]
    ids = {c[0] for c in calls if c[1] == name}
    code, out = run_cli("query", "--tool", name, "--neutral", str(log))
    assert code == 0
    found = [json.loads(line) for line in out.splitlines()]
    called = {b["id"] for m in found for b in m["content"] if b["type"] == "tool_call"}
    answered = {b["id"] for m in found for b in m["content"] if b["type"] == "tool_result"}
    assert ids <= called
    assert ids <= answered


def test_query_writes_provider_messages_that_validate(run_cli, tmp_path):
    log = CONVERSATIONS["openai-chat"]
    code, out = run_cli("query", "--role", "assistant", str(log))
    assert code == 0
    found = [json.loads(line) for line in out.splitlines()]
    raw = [m for r in _lines(log) for m in r["messages"] if m["role"] == "assistant"]
    assert found == raw


# -- diff -----------------------------------------------------------------------------------


def _convert(run_cli, tmp_path: Path, log: Path, target: str) -> Path:
    code, out = run_cli("convert", "--to", target, str(log))
    assert code == 0
    path = tmp_path / f"{log.parent.name}-to-{target}.jsonl"
    path.write_text(out, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("source", "target"),
    [
        ("anthropic", "openai-chat"),
        ("openai-chat", "anthropic"),
        ("openai-responses", "anthropic"),
        ("openai-responses", "openai-chat"),
        ("openai-chat", "openai-responses"),
        ("anthropic", "openai-responses"),
    ],
)
def test_diff_of_a_conversation_and_its_conversion_finds_no_difference(
    run_cli, tmp_path, source, target
):
    log = CONVERSATIONS[source]
    converted = _convert(run_cli, tmp_path, log, target)
    code, out, err = run_cli("diff", str(log), str(converted), stderr=True)
    assert code == 0, out + err
    assert "no differences" in out


def test_openai_chat_to_anthropic_keeps_the_system_prompts_as_the_requests_system(
    run_cli, tmp_path
):
    """Anthropic has no system message (a request's ``system`` is outside its messages):
    ``convert`` writes each system prompt as a line of its own, ``{"system": ...}``, without
    a warning; diff finds no difference, and converting back gives the system messages."""
    log = CONVERSATIONS["openai-chat"]
    code, out, err = run_cli("convert", "--to", "anthropic", str(log), stderr=True)
    assert code == 0
    assert "X001" not in err
    written = [json.loads(line) for line in out.splitlines()]
    systems = [m["content"] for r in _lines(log) for m in r["messages"] if m["role"] == "system"]
    assert systems
    assert [r["system"] for r in written if "system" in r] == systems
    assert all(r.keys() == {"system"} for r in written if "role" not in r)
    converted = tmp_path / "anthropic.jsonl"
    converted.write_text(out, encoding="utf-8")
    code, out = run_cli("validate", "--format", "json", str(converted))
    assert code == 0, out
    assert json.loads(out)["files"][0]["dialect"] == "anthropic"
    code, out = run_cli("diff", "--format", "json", str(log), str(converted))
    assert code == 0, out
    assert json.loads(out)["differences"] == []

    back = _convert(run_cli, tmp_path, converted, "openai-chat")
    code, out = run_cli("diff", str(log), str(back))
    assert code == 0, out
    again = [json.loads(line) for line in back.read_text(encoding="utf-8").splitlines()]
    assert [m["content"] for m in again if m["role"] == "system"] == systems


@pytest.mark.parametrize("via", ["openai-chat", "openai-responses"])
def test_anthropic_round_trip_keeps_the_system_prompt(run_cli, tmp_path, via):
    """The real Anthropic conversations (a request's ``system`` and its messages) through
    another provider form and back: diff finds no difference, the system prompt included."""
    log = CONVERSATIONS["anthropic"]
    there = _convert(run_cli, tmp_path, log, via)
    back = _convert(run_cli, tmp_path, there, "anthropic")
    for path in (there, back):
        code, out, err = run_cli("diff", str(log), str(path), stderr=True)
        assert code == 0, out + err
    systems = [r["system"] for r in _lines(log) if r.get("system") is not None]
    written = [json.loads(line) for line in back.read_text(encoding="utf-8").splitlines()]
    assert [r["system"] for r in written if "system" in r] == systems


@pytest.mark.parametrize("dialect", sorted(CONVERSATIONS))
def test_diff_finds_a_changed_tool_argument_at_its_line(run_cli, tmp_path, dialect):
    log = CONVERSATIONS[dialect]
    records = _lines(log)
    line = len(records)  # the last conversation
    record = records[line - 1]
    _, _, arguments = _raw_calls(dialect, record)[0]
    key = next(iter(arguments))
    changed = dict(arguments, **{key: "Atlantis"})
    text = json.dumps(record, ensure_ascii=False)
    old = json.dumps(arguments, ensure_ascii=False)
    if dialect != "anthropic":  # the arguments are a JSON text inside the JSON
        old = json.dumps(
            json.dumps(arguments, ensure_ascii=False, separators=(",", ":")), ensure_ascii=False
        )[1:-1]
        new = json.dumps(
            json.dumps(changed, ensure_ascii=False, separators=(",", ":")), ensure_ascii=False
        )[1:-1]
    else:
        new = json.dumps(changed, ensure_ascii=False)
    assert text.count(old) >= 1, (old, text[:300])
    edited = tmp_path / "edited.jsonl"
    lines = log.read_text(encoding="utf-8").splitlines()
    lines[line - 1] = text.replace(old, new, 1)
    edited.write_text("\n".join(lines) + "\n", encoding="utf-8")

    code, out = run_cli("diff", "--format", "json", str(log), str(edited))
    assert code == 1
    result = json.loads(out)
    assert result["stat"]["tool_calls_changed"] == 1
    (difference,) = result["differences"]
    assert difference["kind"] == "changed"
    assert difference["a"]["line"] == difference["b"]["line"] == line
    assert difference["old"] == arguments[key]
    assert difference["new"] == "Atlantis"
    assert difference["field"].endswith(f"/arguments/{key}")
    # the pointer is into the conversation line: to the call's arguments, then the key
    where, _, last = difference["a"]["pointer"].rpartition("/")
    assert last == key
    found = resolve_pointer(record, where)
    assert (json.loads(found) if isinstance(found, str) else found) == arguments

    code, out = run_cli("diff", str(log), str(edited))
    assert code == 1
    assert f"line {line}" in out and "Atlantis" in out


def test_diff_of_an_event_log_and_its_replay(run_cli, tmp_path):
    for log in (REAL / "openai-chat" / "events.jsonl", REAL / "anthropic" / "events.sse"):
        code, out = run_cli("replay", str(log))
        assert code == 0
        replayed = tmp_path / f"{log.parent.name}-replayed.jsonl"
        replayed.write_text(out, encoding="utf-8")
        code, out = run_cli("diff", str(log), str(replayed))
        assert code == 0, out


# -- HTML and Markdown ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dialect", "log"), [*sorted(CONVERSATIONS.items()), ("openai-chat", FINETUNE)]
)
@pytest.mark.parametrize("form", ["html", "markdown"])
def test_exports_hold_every_message_text_and_tool_call(run_cli, tmp_path, dialect, log, form):
    import html as html_module

    records = _lines(log)
    target = tmp_path / ("out.html" if form == "html" else "out.md")
    code, _ = run_cli("show", f"--export-{form}", str(target), str(log))
    assert code == 0
    page = target.read_text(encoding="utf-8")
    if form == "html":
        page = html_module.unescape(page)
    for record in records:
        for text in _raw_texts(dialect, record):
            try:  # a tool result that is JSON is shown as JSON, indented: its values are there
                pieces = [str(v) for v in _leaves(json.loads(text))]
            except ValueError:
                pieces = [p.strip() for p in text.splitlines() if p.strip()]
            for piece in pieces:
                assert piece in page, piece
        for call_id, name, arguments in _raw_calls(dialect, record):
            assert call_id in page
            assert name in page
            for value in _leaves(arguments):
                assert str(value) in page


def test_markdown_of_a_replayed_stream_shows_the_rebuilt_answer(run_cli, tmp_path):
    log = REAL / "anthropic" / "events.sse"
    events = _lines_of_sse(log)
    text = "".join(
        e["delta"]["text"]
        for e in events
        if e.get("type") == "content_block_delta" and e["delta"].get("type") == "text_delta"
    )
    target = tmp_path / "out.md"
    code, _ = run_cli("show", "--export-markdown", str(target), str(log))
    assert code == 0
    page = target.read_text(encoding="utf-8")
    for piece in text.splitlines():
        if piece.strip():
            assert piece.strip() in page


@pytest.mark.parametrize("form", ["html", "markdown"])
def test_exports_of_an_event_log_show_the_streamed_tool_call(run_cli, tmp_path, form):
    import html as html_module

    log = REAL / "anthropic" / "events.jsonl"
    events = _lines(log)
    (start,) = [e for e in events if e["type"] == "content_block_start"]
    call = start["content_block"]
    arguments = json.loads(
        "".join(e["delta"]["partial_json"] for e in events if e["type"] == "content_block_delta")
    )
    target = tmp_path / ("out.html" if form == "html" else "out.md")
    code, _ = run_cli("show", f"--export-{form}", str(target), str(log))
    assert code == 0
    page = html_module.unescape(target.read_text(encoding="utf-8"))
    assert call["id"] in page and call["name"] in page
    for value in _leaves(arguments):
        assert str(value) in page


def _lines_of_sse(path: Path) -> list[dict]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("data:"):
            out.append(json.loads(line[5:]))
    return out


@pytest.mark.parametrize("api", ["openai-chat", "openai-responses", "anthropic-messages"])
def test_a_whole_conversations_folder_validates_clean(api, run_cli, monkeypatch, tmp_path):
    """Every file of a recorded conversations folder (the streams, requests and answers of
    each turn) is read as what it is. The harness's own ``scenario.json`` keeps the SDK
    objects of earlier turns wrapped (``{"<SDK object>": ..., "to_dict": ...}``) next to plain
    messages: such a list is no conversation of its own, and is not read as one; the request
    body it keeps of a turn whose messages are all plain is read as that API's request."""
    folder = Path(__file__).parent.parent / "fixtures" / "provider-streams" / api / "conversations"
    monkeypatch.chdir(tmp_path)  # (the project's configuration excludes this folder)
    code, out = run_cli("validate", "--format", "json", str(folder))
    assert code == 0, out
    report = json.loads(out)
    dialect = {"anthropic-messages": "anthropic"}.get(api, api)
    read = [f for f in report["files"] if f.get("dialect")]
    assert len(read) >= 40
    for file in read:
        assert file["errors"] == 0 and file["warnings"] == 0, file
        assert file["dialect"] == dialect, file
    # each conversation's first turn at least: its request body holds plain messages only
    firsts = {f["path"] for f in read if f["path"].endswith("turn-1/scenario.json")}
    assert len(firsts) == len(list(folder.glob("*/turn-1/scenario.json"))) >= 3
