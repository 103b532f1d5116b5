"""``convert --to otel`` and ``export --otlp``: a real log of every other dialect written
as OTLP JSON reads back to the same conversation (every message, tool call id and token
count), parses into the ``opentelemetry-proto`` message types, and reaches a real OTLP/HTTP
receiver on loopback as JSON and as protobuf."""

from __future__ import annotations

import contextlib
import http.server
import json
import subprocess
import sys
import threading
from typing import ClassVar

import orjson
import pytest
from conftest import FIXTURES

from msgcli.converters import Converter
from msgcli.engine import Options
from msgcli.model import (
    DataBlock,
    HintBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    ValueBlock,
)
from msgcli.pipeline import validate_paths
from msgcli.stream import open_log

REAL = FIXTURES / "real"
#: a real session of every other dialect (message logs and event logs)
SESSIONS = [
    *sorted((REAL / "claude-code").glob("*/session.jsonl")),
    REAL / "agentscope-py" / "transcript.jsonl",
    REAL / "agentscope-py" / "events.jsonl",
    *sorted((REAL / "agentscope-py" / "runs").glob("*-context.jsonl")),
    REAL / "agentscope-java" / "transcript.jsonl",
    REAL / "agentscope-java" / "transcript-hitl.jsonl",
    REAL / "agentscope-java" / "events.jsonl",
    REAL / "loongflow" / "transcript.jsonl",
    REAL / "openai-chat" / "conversations.jsonl",
    REAL / "openai-chat" / "events.jsonl",
    REAL / "anthropic" / "conversations.jsonl",
    REAL / "anthropic" / "events.jsonl",
    REAL / "openai-responses" / "conversations.jsonl",
    REAL / "openai-responses" / "events.jsonl",
    # the coding agents: a Codex rollout (a tool call and its output), a Gemini CLI session
    # (thoughts and tool calls), an OpenCode database (a session's messages and parts)
    *sorted((REAL / "codex" / "04-write-edit-read" / "sessions").rglob("rollout-*.jsonl")),
    *sorted((REAL / "gemini-cli" / "04-write-replace-read").rglob("session-*.jsonl")),
    REAL / "opencode" / "02-bash" / "data" / "opencode" / "opencode.db",
    REAL / "opencode" / "21-reasoning-parallel" / "data" / "opencode" / "opencode.db",
]


def ids(paths):
    return [str(p.relative_to(REAL)) for p in paths]


def conversation(source):
    log = open_log(str(source), Options(), name=str(source))
    out = []
    for item in log:
        if item.message is None or (log.dialect is not None and log.dialect.aside(item.message)):
            continue
        out.append((item.line, item.message))
    return out


def _args(block):
    value = block.arguments if block.arguments is not None else block.input
    if isinstance(value, str):
        with contextlib.suppress(ValueError):
            value = json.loads(value)
    return json.dumps(value, sort_keys=True)


def _text(block):
    """What a block says (a hint and a structured value have no GenAI part of their own:
    they are written as text parts, so they are compared by their text)."""
    if isinstance(block, TextBlock):
        return block.text
    if isinstance(block, HintBlock):
        return block.hint if isinstance(block.hint, str) else orjson.dumps(block.hint).decode()
    if isinstance(block, ValueBlock):
        return block.value if isinstance(block.value, str) else orjson.dumps(block.value).decode()
    return None


def summary(messages):
    """Every message as a user would check it: role, its blocks' text, tool calls (id, name,
    arguments), tool results (id, output), media, and its token counts."""
    out = []
    for _, msg in messages:
        blocks = []
        for block in msg.content:
            if isinstance(block, ToolCallBlock):
                blocks.append(("call", block.id, block.name, _args(block)))
            elif isinstance(block, ToolResultBlock):
                output = block.output
                if isinstance(output, list):
                    output = [_text(b) if _text(b) is not None else b.type for b in output]
                blocks.append(("result", block.id, output))
            elif isinstance(block, ThinkingBlock):
                blocks.append(("thinking", block.thinking))
            elif isinstance(block, DataBlock):
                source = block.source
                blocks.append(("data", source.url or source.data if source else None))
            elif _text(block) is not None:
                blocks.append(("text", _text(block)))
            else:
                blocks.append((block.type,))
        usage = msg.usage
        tokens = None
        if usage is not None:
            tokens = (usage.input_tokens, usage.output_tokens, usage.cached_tokens)
        out.append((msg.role, blocks, tokens))
    return out


def to_otel(messages):
    converter = Converter("otel")
    lines = []
    for line, message in messages:
        lines.extend(converter.feed(line, message, {}))
    lines.extend(converter.finish())
    return lines


@pytest.mark.parametrize("path", SESSIONS, ids=ids(SESSIONS))
def test_a_real_session_reads_back_the_same(path, tmp_path):
    source = conversation(path)
    assert source, "a session with messages"
    lines = to_otel(source)
    out = tmp_path / "trace.jsonl"
    out.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    back = conversation(out)
    assert summary(back) == summary(source)
    # the file is valid OTLP under the GenAI conventions: no finding but the info ones,
    # and a warning for each tool call the session itself leaves unanswered
    blocks = [b for _, m in source for b in m.content]
    answered = {b.id for b in blocks if isinstance(b, ToolResultBlock)}
    open_calls = [b.id for b in blocks if isinstance(b, ToolCallBlock) and b.id not in answered]
    run = validate_paths([out])
    found = [f.code for f in run.files[0].findings if f.severity.value != "info"]
    assert found == ["O010"] * len(open_calls)


def test_written_otlp_is_what_the_proto_types_take(tmp_path):
    from google.protobuf.json_format import MessageToDict, ParseDict
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    from msgcli.dialects.otel.protobuf import hex_to_base64

    path = REAL / "claude-code" / "03-parallel-read" / "session.jsonl"
    lines = to_otel(conversation(path))
    names = []
    for line in lines:
        request = ParseDict(hex_to_base64(line), ExportTraceServiceRequest())
        for resource in request.resource_spans:
            for scope in resource.scope_spans:
                for span in scope.spans:
                    assert len(span.trace_id) == 16 and len(span.span_id) == 8
                    assert span.start_time_unix_nano > 1_700_000_000 * 10**9
                    names.append(span.name.split()[0])
        again = MessageToDict(request, use_integers_for_enums=True)
        assert len(again["resourceSpans"]) == len(line["resourceSpans"])
    assert names[0] == "invoke_agent"
    assert names.count("chat") == sum(1 for _, m in conversation(path) if m.role == "assistant")
    # ids are lowercase hex, integers strings, enums integers (OTLP JSON)
    span = lines[0]["resourceSpans"][0]["scopeSpans"][0]["spans"][1]
    assert int(span["traceId"], 16) and span["traceId"] == span["traceId"].lower()
    assert isinstance(span["startTimeUnixNano"], str) and isinstance(span["kind"], int)
    attrs = {a["key"]: a["value"] for a in span["attributes"]}
    assert attrs["gen_ai.operation.name"] == {"stringValue": "chat"}
    assert "intValue" in attrs["gen_ai.usage.input_tokens"]
    assert json.loads(attrs["gen_ai.output.messages"]["stringValue"])[0]["role"] == "assistant"


def test_convert_on_the_command_line(tmp_path):
    path = REAL / "agentscope-py" / "transcript.jsonl"
    out = tmp_path / "trace.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "msgcli", "convert", "--to", "otel", str(path), "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert summary(conversation(out)) == summary(conversation(path))


class _Receiver(http.server.BaseHTTPRequestHandler):
    """An OTLP/HTTP traces receiver: decodes each request with opentelemetry-proto."""

    got: ClassVar[list] = []

    def do_POST(self):
        from google.protobuf.json_format import ParseDict
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
            ExportTraceServiceRequest,
        )

        from msgcli.dialects.otel.protobuf import hex_to_base64

        data = self.rfile.read(int(self.headers["Content-Length"]))
        kind = self.headers["Content-Type"]
        request = ExportTraceServiceRequest()
        if kind == "application/x-protobuf":
            request.ParseFromString(data)
        else:
            ParseDict(hex_to_base64(json.loads(data)), request)
        spans = [s for r in request.resource_spans for sc in r.scope_spans for s in sc.spans]
        self.got.append((self.path, kind, self.headers.get("X-Key"), spans))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args):
        pass


@pytest.fixture
def receiver():
    _Receiver.got = []
    server = http.server.HTTPServer(("127.0.0.1", 0), _Receiver)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", _Receiver.got
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("protobuf", [False, True], ids=["json", "protobuf"])
def test_export_otlp_reaches_a_receiver(receiver, protobuf):
    url, got = receiver
    path = REAL / "claude-code" / "03-parallel-read" / "session.jsonl"
    args = ["export", "--otlp", url, "--header", "X-Key=secret", str(path)]
    done = subprocess.run(
        [sys.executable, "-m", "msgcli", *args, *(["--protobuf"] if protobuf else [])],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    ((where, kind, key, spans),) = got
    assert where == "/v1/traces" and key == "secret"
    assert kind == ("application/x-protobuf" if protobuf else "application/json")
    calls = {b.id for _, m in conversation(path) for b in m.content if isinstance(b, ToolCallBlock)}
    tool_ids = {
        a.value.string_value for s in spans for a in s.attributes if a.key == "gen_ai.tool.call.id"
    }
    assert tool_ids == calls and calls
    assert f"sent {len(spans)} spans" in done.stderr


def test_export_otlp_to_nothing_listening_says_so(tmp_path):
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    path = REAL / "claude-code" / "01-plain-markdown" / "session.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "msgcli", "export", "--otlp", f"http://127.0.0.1:{port}", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert "cannot reach" in done.stderr and "Traceback" not in done.stderr


def test_cached_tokens_kept_apart_are_the_conventions_total_and_read_back_as_they_were(tmp_path):
    from msgcli.dialects import get_dialect

    # an Anthropic response that read 256 tokens from the cache: Anthropic counts them apart
    # from its input_tokens (460), the GenAI conventions count them in (716)
    conversations = FIXTURES / "provider-streams/anthropic-messages/conversations"
    path = conversations / "conv-02-docs-refine/turn-2/events.jsonl"
    source = conversation(path)
    (usage,) = [m.usage for _, m in source if m.usage is not None]
    assert (usage.input_tokens, usage.cached_tokens) == (460, 256)
    lines = to_otel(source)
    chat = next(
        s
        for line in lines
        for r in line["resourceSpans"]
        for sc in r["scopeSpans"]
        for s in sc["spans"]
        if s["name"].startswith("chat")
    )
    attrs = {a["key"]: a["value"] for a in chat["attributes"]}
    assert attrs["gen_ai.usage.input_tokens"] == {"intValue": "716"}
    assert attrs["gen_ai.usage.cache_read.input_tokens"] == {"intValue": "256"}
    out = tmp_path / "trace.jsonl"
    out.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    back = conversation(out)
    assert summary(back) == summary(source)
    # one response each, the same as the source's (the cost of the run is the same)
    theirs = [r for _, m in source for r in get_dialect(m.dialect).responses(m)]
    ours = [r for _, m in back for r in get_dialect("otel").responses(m)]
    assert [(r.input, r.cache_read, r.output) for r in ours] == [
        (r.input, r.cache_read, r.output) for r in theirs
    ]
