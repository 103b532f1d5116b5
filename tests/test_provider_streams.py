"""Provider wire forms (openai-chat, openai-responses, anthropic) against the real SDK corpus.

Every scenario in ``fixtures/provider-streams`` was recorded with the providers' own SDKs:
``final.json`` is what the SDK's accumulator returned. A replay of the scenario's event log,
in each of its three forms, must equal it on every field that carries meaning (fields the
SDK sets to null, and the helper-only ``parsed`` / ``parsed_arguments`` / ``parsed_output``,
aside). Where the SDK raised, the replay must fail (exit 1) with a located finding and still
write the text that arrived.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from msgcli.cli import app
from msgcli.engine import Options, validate_file

ROOT = Path(__file__).resolve().parent.parent / "fixtures" / "provider-streams"
DIALECT = {
    "openai-chat": "openai-chat",
    "openai-responses": "openai-responses",
    "anthropic-messages": "anthropic",
}
FORMS = ("events.jsonl", "events-model_dump_json.jsonl", "sse.txt")
HELPER_ONLY = frozenset({"parsed", "parsed_arguments", "parsed_output"})


def meaningful(value):
    """``value`` without null fields and helper-only fields (what carries no meaning)."""
    if isinstance(value, dict):
        return {
            k: meaningful(v) for k, v in value.items() if v is not None and k not in HELPER_ONLY
        }
    if isinstance(value, list):
        return [meaningful(v) for v in value]
    return value


def scenarios(with_final: bool):
    out = []
    for api in sorted(DIALECT):
        for folder in sorted((ROOT / api).iterdir()):
            if folder.name == "conversations" or not folder.is_dir():
                continue
            if (folder / "final.json").exists() == with_final:
                out.append(folder)
    return out


def replay(path: Path):
    written: list[dict] = []
    report = validate_file(
        path, options=Options(), sink=lambda _name, _line, msg: written.append(msg)
    )
    return report, written


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("folder", scenarios(True), ids=lambda f: f"{f.parent.name}/{f.name}")
def test_replay_equals_the_sdk_final(folder: Path, form: str):
    report, written = replay(folder / form)
    assert report.summary.dialect == DIALECT[folder.parent.name]
    assert [meaningful(m) for m in written] == [
        meaningful(json.loads((folder / "final.json").read_text()))
    ]
    errors = [f for f in report.findings if f.severity.name == "ERROR"]
    assert errors == []


def _texts(obj) -> list[str]:
    """Every text a response holds (content, tool arguments), in order."""
    out: list[str] = []

    def walk(value):
        if isinstance(value, dict):
            for key in (
                "text",
                "content",
                "arguments",
                "thinking",
                "refusal",
                "msgcli_partial_json",
            ):
                if isinstance(value.get(key), str) and value[key]:
                    out.append(value[key])
            for v in value.values():
                if isinstance(v, (dict, list)):
                    walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    walk(obj)
    return out


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("folder", scenarios(False), ids=lambda f: f"{f.parent.name}/{f.name}")
def test_broken_streams_fail_at_a_line_and_keep_the_partial_text(folder: Path, form: str):
    path = folder / form
    result = CliRunner().invoke(app, ["replay", "--no-config", str(path)])
    written = [orjson.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    assert len(written) == 1, result.output
    snapshot = json.loads((folder / "snapshot.json").read_text())
    # every text the SDK had accumulated when it stopped is in what msgcli wrote
    replayed = "\n".join(_texts(written[0]))
    for text in _texts(snapshot):
        assert text in replayed
    if folder.name == "stop-length":
        # not broken: the SDK withholds a completion that stopped at the token limit
        assert result.exit_code == 0
        assert "E017" in result.stderr and "LengthFinishReasonError" in result.stderr
        assert written[0]["choices"][0]["finish_reason"] == "length"
        return
    if folder.name.startswith("incomplete"):
        # an incomplete response is an outcome, not a broken stream: kept with its reason
        assert result.exit_code == 0
        assert written[0]["status"] == "incomplete"
        assert written[0]["incomplete_details"]["reason"] == "max_output_tokens"
        assert "E019" in result.stderr
        return
    assert result.exit_code == 1, result.output
    assert written[0]["msgcli_replay"]["state"] in ("cut", "error")
    # the finding names the file and a line of it
    located = [
        line
        for line in result.stderr.splitlines()
        if f"{path}:" in line and (" E0" in line or " P0" in line)
    ]
    assert located, result.stderr


CONVERSATION_FILES = (
    [
        pytest.param(path, DIALECT[path.parts[-3]], id=str(path.relative_to(ROOT)))
        for path in sorted(ROOT.glob("*/conversations/*.jsonl"))
    ]
    + [
        pytest.param(path, DIALECT[path.parts[-4]], id=str(path.relative_to(ROOT)))
        for path in sorted(ROOT.glob("*/conversations/*/conversation.json"))
    ]
    + [
        pytest.param(path, DIALECT[path.parts[-3]], id=str(path.relative_to(ROOT)))
        for path in sorted(ROOT.glob("*/*/request.json"))
    ]
)


@pytest.mark.parametrize(("path", "dialect"), CONVERSATION_FILES)
def test_the_shared_conversations_validate_clean_as_their_dialect(path: Path, dialect: str):
    result = CliRunner().invoke(app, ["validate", "--no-config", "--format", "json", str(path)])
    assert result.exit_code == 0, result.output
    report = orjson.loads(result.stdout)
    (file,) = report["files"]
    assert file["dialect"] == dialect
    assert file["errors"] == 0 and file["warnings"] == 0


def test_fine_tuning_defects_are_found_on_exactly_their_lines():
    """Each line of the file is a real fine-tuning example with one planted defect (lines 1
    and 10 are clean); every defect is an error on its own line, and only there."""
    path = ROOT.parent / "invalid" / "openai-chat" / "finetune-defects.jsonl"
    report = validate_file(path)
    errors = {f.line for f in report.findings if f.severity.name == "ERROR"}
    assert errors == {2, 3, 4, 5, 6, 7, 8, 9, 11}
    by_line = {}
    for f in report.findings:
        by_line.setdefault(f.line, set()).add(f.code)
    assert "B006" in by_line[2]  # no assistant message
    assert "B007" in by_line[3]  # unknown role
    assert "B008" in by_line[4]  # missing content
    assert "T004" in by_line[5]  # arguments not JSON
    assert "T001" in by_line[6]  # a tool message answering no call
    assert by_line[7] == by_line[8] == {"B009"}  # weight 0.5; weight on a user message
    assert "B010" in by_line[9]  # empty messages
    assert "P003" in by_line[11]  # not an object
    assert by_line[12] == {"B011"}  # over the token limit: a warning only
    assert 1 not in by_line and 10 not in by_line


# -- convert: round trips keep every text, tool call and tool result ------------------

ALL_DIALECTS = (
    "openai-chat",
    "openai-responses",
    "anthropic",
    "agentscope-py",
    "agentscope-java",
    "loongflow",
)


def _content(path: Path, dialect: str):
    """What a user checks survived: texts, tool calls (id, name, arguments) and tool results
    (call id, text), in order."""
    from msgcli.model import TextBlock, ToolCallBlock, ToolResultBlock
    from msgcli.stream import LogReader

    texts, calls, results = [], [], []
    for item in LogReader(str(path), dialect).items(str(path)):
        assert item.message is not None, item.notice
        for block in item.message.content:
            if isinstance(block, TextBlock) and isinstance(block.text, str) and block.text.strip():
                texts.append(block.text)
            elif isinstance(block, ToolCallBlock):
                arguments = (
                    block.arguments if block.arguments is not None else orjson.loads(block.input)
                )
                calls.append((block.id, block.name, arguments))
            elif isinstance(block, ToolResultBlock):
                output = block.output
                if isinstance(output, list):
                    output = "\n".join(b.text for b in output if isinstance(b, TextBlock))
                results.append((block.id, output))
    return texts, calls, results


@pytest.mark.parametrize("via", ALL_DIALECTS)
@pytest.mark.parametrize("source", sorted(DIALECT))
def test_round_trips_keep_text_tool_calls_and_results(tmp_path: Path, source: str, via: str):
    dialect = DIALECT[source]
    if via == dialect:
        pytest.skip("no conversion")
    original = ROOT / source / "conversations" / "conversations.jsonl"
    there, back = tmp_path / "there.jsonl", tmp_path / "back.jsonl"
    runner = CliRunner()
    first = runner.invoke(
        app, ["convert", "--no-config", "-t", via, "-o", str(there), str(original)]
    )
    assert first.exit_code == 0, first.output
    second = runner.invoke(
        app, ["convert", "--no-config", "-t", dialect, "-o", str(back), str(there)]
    )
    assert second.exit_code == 0, second.output
    texts, calls, results = _content(original, dialect)
    assert calls and results and texts
    # the target holds them all ...
    got_texts, got_calls, got_results = _content(there, via)
    assert [c[1:] for c in got_calls] == [c[1:] for c in calls]
    assert [r[1] for r in got_results] == [r[1] for r in results]
    if via in DIALECT.values():
        # between provider forms the ids are kept as they are (a framework may write its own
        # id form, and keeps the original for the way back)
        assert [c[0] for c in got_calls] == [c[0] for c in calls]
        assert [r[0] for r in got_results] == [r[0] for r in results]
    assert all(any(t in g for g in got_texts) for t in texts)
    # ... and so does the way back
    assert _content(back, dialect)[1:] == (calls, results)
    assert all(any(t in g for g in _content(back, dialect)[0]) for t in texts)


# -- show and stats ---------------------------------------------------------------------


@pytest.mark.parametrize("source", sorted(DIALECT))
def test_show_prints_every_message_tool_call_and_result(source: str):
    path = ROOT / source / "conversations" / "conversations.jsonl"
    result = CliRunner().invoke(app, ["show", "--no-pager", str(path)])
    assert result.exit_code == 0, result.output
    texts, calls, results = _content(path, DIALECT[source])
    shown = result.stdout
    for _cid, name, _arguments in calls:
        assert f"→ {name}" in shown
    for _cid, output in results:
        assert output.splitlines()[0][:60] in shown
    for text in texts:
        assert text.splitlines()[0][:60] in shown


def test_stats_count_tokens_apart_cached_and_reasoning():
    reasoning = ROOT / "openai-responses" / "reasoning" / "events.jsonl"
    final = json.loads((reasoning.parent / "final.json").read_text())
    cached = ROOT / "anthropic-messages" / "usage-cache" / "sse.txt"
    cached_final = json.loads((cached.parent / "final.json").read_text())
    result = CliRunner().invoke(app, ["stats", "--format", "json", str(reasoning), str(cached)])
    assert result.exit_code == 0, result.output
    report = orjson.loads(result.stdout)
    by_path = {f["path"]: f for f in report["files"]}
    tokens = by_path[str(reasoning)]["tokens"]
    usage = final["usage"]
    assert tokens["input"] == usage["input_tokens"] and tokens["output"] == usage["output_tokens"]
    assert tokens["reasoning"] == usage["output_tokens_details"]["reasoning_tokens"]
    tokens = by_path[str(cached)]["tokens"]
    assert tokens["cached"] == cached_final["usage"]["cache_read_input_tokens"]
    assert tokens["input"] == cached_final["usage"]["input_tokens"]


def test_stats_count_the_tool_calls_of_a_replayed_stream():
    path = ROOT / "openai-chat" / "parallel-tools-sequential" / "sse.txt"
    final = json.loads((path.parent / "final.json").read_text())
    names = [c["function"]["name"] for c in final["choices"][0]["message"]["tool_calls"]]
    result = CliRunner().invoke(app, ["stats", "--format", "json", str(path)])
    tools = orjson.loads(result.stdout)["files"][0]["tools"]
    assert tools["calls"] == len(names)
    assert {name: tools["by_tool"][name]["calls"] for name in names} == {
        n: names.count(n) for n in names
    }


# -- robustness: whatever a provider stream holds, replay reports and never crashes ------

from conftest import examples  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_STREAMS = [
    (DIALECT[p.parts[-3]], [orjson.loads(x) for x in p.read_bytes().splitlines() if x.strip()])
    for p in sorted(ROOT.glob("*/*/events*.jsonl"))
]
_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_any_provider_stream_is_reported_without_a_crash(data):
    from msgcli.rules import RULES

    dialect, events = data.draw(st.sampled_from(_STREAMS))
    events = [json.loads(json.dumps(e)) for e in events]
    for _ in range(data.draw(st.integers(1, 6))):
        if not events:
            break
        i = data.draw(st.integers(0, len(events) - 1))
        action = data.draw(st.sampled_from(["drop", "repeat", "swap", "mutate", "deep"]))
        if action == "drop":
            events.pop(i)
        elif action == "repeat":
            events.insert(data.draw(st.integers(0, len(events))), json.loads(json.dumps(events[i])))
        elif action == "swap":
            j = data.draw(st.integers(0, len(events) - 1))
            events[i], events[j] = events[j], events[i]
        else:
            target = events[i]
            if action == "deep":  # one level down: a delta, a message, an item
                inner = [v for v in target.values() if isinstance(v, dict)]
                target = data.draw(st.sampled_from(inner)) if inner else target
            keys = list(target) or ["type"]
            key = data.draw(st.sampled_from(keys))
            target[key] = data.draw(_VALUES)
    import io

    import msgcli

    written: list = []
    data_bytes = b"".join(orjson.dumps(e) + b"\n" for e in events)
    result = msgcli.replay(
        io.BytesIO(data_bytes), dialect=dialect, sink=lambda *a: written.append(a[-1])
    )
    for fr in result.report.files:
        for f in fr.findings:
            assert f.code in RULES
            assert 0 <= f.line <= max(len(events), 1)
    assert all(type(m) is dict for m in written)


# -- SSE decoded as the SDKs decode it ----------------------------------------------------


def _reframed(sse: bytes, newline: bytes, ping: bool) -> bytes:
    """The same events with other line ends, comments, a keep-alive (Anthropic's ``ping``) and
    each JSON payload split over two ``data:`` lines (joined with a newline, which JSON takes
    as white space)."""
    out = [b": keep-alive" + newline]
    if ping:
        out.append(b"event: ping" + newline + b'data: {"type": "ping"}' + newline * 2)
    for line in sse.splitlines():
        if line.startswith(b"data: {") and b', "' not in line and b'","' in line:
            head, _, tail = line.partition(b'","')
            out.append(head + b'",' + newline + b'data: "' + tail + newline)
        else:
            out.append(line + newline)
    out.append(b"data: [DONE]" + newline * 2)
    return b"".join(out)


@pytest.mark.parametrize("newline", [b"\r", b"\r\n", b"\n"], ids=["CR", "CRLF", "LF"])
@pytest.mark.parametrize("api", sorted(DIALECT))
def test_sse_line_ends_comments_and_multi_line_data(tmp_path: Path, api: str, newline: bytes):
    folder = ROOT / api / "text-unicode"
    path = tmp_path / "stream.txt"
    sse = (folder / "sse.txt").read_bytes()
    path.write_bytes(_reframed(sse, newline, ping=api == "anthropic-messages"))
    report, written = replay(path)
    assert [meaningful(m) for m in written] == [
        meaningful(json.loads((folder / "final.json").read_text()))
    ]
    assert [f for f in report.findings if f.severity.name == "ERROR"] == []


DISORDER = sorted(
    p
    for d in ("anthropic", "openai-chat", "openai-responses")
    for p in (ROOT.parent / "events" / d / "invalid").glob("*.jsonl")
    if any(
        " E0" in f" {x}"
        for x in p.with_suffix(".expect").read_text().split("\n")
        if not x.startswith("#")
    )
)


@pytest.mark.parametrize("path", DISORDER, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_disordered_streams_fail_and_still_write_what_arrived(path: Path):
    result = CliRunner().invoke(app, ["replay", "--no-config", str(path)])
    errors = [
        x
        for x in path.with_suffix(".expect").read_text().splitlines()
        if x and not x.startswith("#")
    ]
    codes = {x.split()[1] for x in errors}
    from msgcli.rules import RULES

    if any(RULES[c].severity.name == "ERROR" for c in codes):
        assert result.exit_code == 1, result.output
    written = [orjson.loads(x) for x in result.stdout.splitlines() if x.startswith("{")]
    assert len(written) == 1
    assert _texts(written[0])  # the text (or tool input) that arrived is kept


# -- the lean loop: the same as the whole way, whatever the stream holds --------------------


def _replayed(data_bytes: bytes, dialect: str):
    """What a replay gives that a user sees: the messages, the findings, the counts."""
    import io

    import msgcli

    written: list = []
    result = msgcli.replay(
        io.BytesIO(data_bytes), dialect=dialect, sink=lambda *a: written.append(a[-1])
    )
    (file,) = result.report.files
    findings = [(f.line, f.code, f.message, f.pointer) for f in file.findings]
    summary = file.summary
    replay = summary.replay.to_dict() if summary.replay is not None else None
    return written, findings, (summary.records, summary.errors, summary.warnings, replay)


def _mutated(data, events: list) -> list:
    events = [json.loads(json.dumps(e)) for e in events]
    for _ in range(data.draw(st.integers(0, 6))):
        if not events:
            break
        i = data.draw(st.integers(0, len(events) - 1))
        action = data.draw(
            st.sampled_from(["drop", "repeat", "swap", "mutate", "deep", "index", "type"])
        )
        if action == "drop":
            events.pop(i)
        elif action == "repeat":
            events.insert(data.draw(st.integers(0, len(events))), json.loads(json.dumps(events[i])))
        elif action == "swap":
            j = data.draw(st.integers(0, len(events) - 1))
            events[i], events[j] = events[j], events[i]
        elif action == "index" and "index" in events[i]:
            events[i]["index"] = data.draw(st.sampled_from([-1, 0, 1, 2, 5, "0", 1.0, None]))
        elif action == "type":
            kinds = sorted({e["type"] for e in events if type(e.get("type")) is str})
            events[i]["type"] = data.draw(st.sampled_from(kinds or ["ping"]))
        else:
            target = events[i]
            if action == "deep":  # one level down: a delta, a message, an item
                inner = [v for v in target.values() if isinstance(v, dict)]
                target = data.draw(st.sampled_from(inner)) if inner else target
            keys = list(target) or ["type"]
            key = data.draw(st.sampled_from(keys))
            target[key] = data.draw(_VALUES)
    return events


@contextlib.contextmanager
def _whole_way():
    """Provider replays take every event the whole way (schema, then the state machine)."""
    from msgcli.dialects.wire import WireReplayer

    lean = WireReplayer.lean
    WireReplayer.lean = None  # type: ignore[assignment,method-assign]
    try:
        yield
    finally:
        WireReplayer.lean = lean  # type: ignore[method-assign]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_the_lean_loop_replays_as_the_whole_way_does(data):
    """The replay's own loop over a JSONL stream (fast paths per event type) gives exactly
    the messages, findings and counts that checking every event the whole way gives: on
    real streams, one after another, with events dropped, repeated, swapped and changed."""
    dialect, _ = data.draw(st.sampled_from(_STREAMS))
    streams = [s for d, s in _STREAMS if d == dialect]
    events: list = []
    for _ in range(data.draw(st.integers(1, 3))):
        events += _mutated(data, data.draw(st.sampled_from(streams)))
    lines = [orjson.dumps(e) for e in events]
    if data.draw(st.booleans()) and lines:  # a line that is no JSON, or no object
        lines.insert(
            data.draw(st.integers(1, len(lines))), data.draw(st.sampled_from([b"{", b"[1]", b""]))
        )
    data_bytes = b"".join(line + b"\n" for line in lines)
    lean = _replayed(data_bytes, dialect)
    with _whole_way():
        whole = _replayed(data_bytes, dialect)
    assert lean == whole


_EDGES = [
    # numbers past 64 bits (orjson: a float; msgspec would say int), duplicate keys (the last
    # one counts), a tag given twice, values of other types than the common ones, a delta
    # that also carries a value nested past the depth msgcli reads
    b'{"type":"content_block_delta","index":18446744073709551616,'
    b'"delta":{"type":"text_delta","text":"x"}}',
    b'{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a","text":"b"}}',
    b'{"type":"content_block_delta","index":0,"type":"ping","delta":{"type":"text_delta",'
    b'"text":"c"}}',
    b'{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":null}}',
    b'{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":7}}',
    b'{"type":"content_block_delta","index":0,"delta":{"type":"citations_delta",'
    b'"citation":{"cited_text":"d"}}}',
    b'{"type":"content_block_delta","index":0,"extra":' + b"[" * 1015 + b"]" * 1015 + b","
    b'"delta":{"type":"text_delta","text":"deep"}}',
    b'{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_details":null,'
    b'"container":null},"usage":{"output_tokens":99999999999999999999999}}',
    b'{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":null}',
]


@pytest.mark.parametrize("edge", _EDGES, ids=range(len(_EDGES)))
def test_the_lean_loop_reads_numbers_and_keys_as_the_whole_way(edge: bytes):
    """Lines the typed decoder and orjson could read differently replay as the whole way
    replays them, in the middle of a real stream."""
    lines = (ROOT / "anthropic-messages" / "text-unicode" / "events.jsonl").read_bytes()
    head, rest = lines.split(b"\n", 2)[:2], lines.split(b"\n", 2)[2]
    data_bytes = b"\n".join([*head, edge, rest])
    lean = _replayed(data_bytes, "anthropic")
    with _whole_way():
        whole = _replayed(data_bytes, "anthropic")
    assert lean == whole
