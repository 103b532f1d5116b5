"""The library API, used the way a user's own test suite would use it."""

from __future__ import annotations

import io
import subprocess
import sys

from conftest import FIXTURES

import msgcli

REAL_PY = FIXTURES / "real" / "agentscope-py" / "transcript.jsonl"
REAL_LF = FIXTURES / "real" / "loongflow" / "transcript.jsonl"
DEMO = FIXTURES / "invalid" / "mixed-problems" / "agentscope-py-run.jsonl"


def test_validate_a_clean_folder_and_a_broken_file():
    assert msgcli.validate(FIXTURES / "real").errors() == []
    run = msgcli.validate(DEMO)
    assert run.exit_code == 1
    assert {f.code for f in run.errors()} == {"T001", "T004", "S002", "M001", "P004"}
    assert str(run.errors()[0]).startswith(f"{DEMO}:3: ")


def test_select_ignore_and_streams():
    run = msgcli.validate(DEMO, select=["T"], ignore=["T002"])
    assert sorted({f.code for f in run.findings()}) == ["T001", "T004"]
    stream = io.BytesIO(REAL_LF.read_bytes())
    assert msgcli.validate(stream).exit_code == 0
    codes = [f.code for f in msgcli.iter_findings(DEMO, strict=True)]
    assert codes.count("T002") == 2


def test_read_messages_gives_the_neutral_model():
    messages = list(msgcli.read_messages(REAL_PY))
    assert [line for line, _ in messages] == [1, 2, 3, 4, 5, 6, 7]
    roles_and_names = [(m.role, m.name) for _, m in messages]
    assert roles_and_names[:3] == [("system", "system"), ("user", "user"), ("assistant", "Friday")]
    reply = messages[2][1]
    assert [b.type for b in reply.content] == [
        "hint",
        "thinking",
        "text",
        "tool_call",
        "tool_result",
        "thinking",
        "text",
    ]
    assert reply.usage.input_tokens == 910 and reply.usage.output_tokens == 121
    call, result = reply.content[3], reply.content[4]
    assert call.id == result.id and call.name == "get_weather"


def test_detect_dialect():
    assert msgcli.detect_dialect(REAL_PY) == ("agentscope-py", "message")
    assert msgcli.detect_dialect(REAL_LF) == ("loongflow", "message")
    events = FIXTURES / "real" / "agentscope-py" / "events.sse"
    assert msgcli.detect_dialect(events) == ("agentscope-py", "event")


def test_records_keep_their_lines():
    lines = [
        r.line for r in msgcli.read_records(FIXTURES / "real" / "agentscope-py" / "events.sse")
    ]
    assert lines[:3] == [1, 3, 5]


def test_import_is_light():
    # `import msgcli` must not pay for rich, jsonschema or the schemas
    code = (
        "import sys, msgcli; "
        "heavy = [m for m in ('rich', 'jsonschema', 'jsonschema_rs', 'typer') "
        "if m in sys.modules]; "
        "print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_replay_rebuilds_messages_and_reports_like_the_command(tmp_path):
    events = FIXTURES / "real" / "agentscope-py" / "events.jsonl"
    result = msgcli.replay(events)
    (msg,) = result.messages
    assert msg["id"] == "83cf2b3013784b90837f1cce3f71c1bc"
    assert result.report.exit_code == 0
    stats = result.report.files[0].summary.replay
    assert stats.events == 33 and stats.completed == 1
    # a stream, and a sink instead of a list
    seen = []
    with open(events, "rb") as stream:
        streamed = msgcli.replay(stream, sink=lambda path, line, m: seen.append(line))
    assert streamed.messages == [] and seen == [33]  # completed by REPLY_END on line 33
