"""A cut AgentScope Java stream keeps the tool-call arguments that arrived, as a cut
AgentScope Python stream does, and E007 says where it was cut.

The logs are the real Java weather run (``fixtures/real/agentscope-java/events.jsonl``)
cut after its argument deltas.
"""

from __future__ import annotations

import io

import orjson
from conftest import FIXTURES

import msgcli

EVENTS = (FIXTURES / "real/agentscope-java/events.jsonl").read_bytes().splitlines(keepends=True)


def _delta_line(index: int) -> int:
    """The 1-based line of the ``index``-th TOOL_CALL_DELTA."""
    deltas = [n for n, line in enumerate(EVENTS, 1) if b'"TOOL_CALL_DELTA"' in line]
    return deltas[index]


def _cut_after_two_deltas() -> bytes:
    """The run, ending after two deltas carrying ``{"city":`` and ``"Zürich",``."""
    first, second = _delta_line(0), _delta_line(1)
    assert orjson.loads(EVENTS[first - 1])["delta"] == '{"city":'
    event = orjson.loads(EVENTS[second - 1])
    event["delta"] = '"Zürich",'
    return b"".join(EVENTS[: second - 1]) + orjson.dumps(event) + b"\n"


def _call(message: dict) -> dict:
    (call,) = [b for b in message["content"] if b["type"] == "tool_use"]
    return call


def test_the_replayed_call_keeps_the_argument_text_that_arrived():
    result = msgcli.replay(io.BytesIO(_cut_after_two_deltas()))
    (message,) = result.messages
    call = _call(message)
    assert call["name"] == "get_weather" and call["id"] == "call_Wx81aQ"
    assert call["content"] == '{"city":"Zürich",'
    assert call["input"] == {}  # no object yet: the engine parses only whole arguments
    assert message["metadata"]["msgcli_replay"]["state"] == "cut"
    (finding,) = result.report.findings()
    assert finding.code == "E007"
    assert finding.line == _delta_line(1)
    assert "call_Wx81aQ" in finding.message
    assert '{\\"city\\":\\"Zürich\\",' in finding.message


def test_the_real_stream_cut_in_its_arguments_keeps_them():
    cut = _delta_line(1)  # after '{"city":' and '"Zürich","unit":'
    result = msgcli.replay(io.BytesIO(b"".join(EVENTS[:cut])))
    assert _call(result.messages[0])["content"] == '{"city":"Zürich","unit":'


def test_a_whole_run_still_gets_the_engine_arguments():
    result = msgcli.replay(io.BytesIO(b"".join(EVENTS)))
    assert result.report.findings() == []
    calls = [
        _call(m) for m in result.messages if any(b["type"] == "tool_use" for b in m["content"])
    ]
    assert calls[0]["input"] == {"city": "Zürich", "unit": "celsius"}
    assert calls[0]["content"] == '{"city":"Zürich","unit":"celsius"}'


def test_show_prints_the_argument_text_of_a_cut_call(tmp_path, run_cli):
    log = tmp_path / "cut.jsonl"
    log.write_bytes(_cut_after_two_deltas())
    code, out = run_cli("show", "--no-pager", str(log))
    assert code == 0
    assert '{"city":"Zürich",' in out
