"""Real AgentScope Python 2.0.11 runs (``fixtures/real/agentscope-py/runs``, made by
``make/run_more.py``): a streaming tool cut by an interrupt and the work resumed, an omni-style
answer (audio data blocks, signed thinking), a 401 in the middle of the stream closed by the
chat service, three agents in a hub; each also as the service's SSE body, native and AG-UI.
What a user checks with validate, replay and show."""

from __future__ import annotations

import base64
import json

import orjson
import pytest
from conftest import FIXTURES

from msgcli.pipeline import Options, validate_paths

RUNS = FIXTURES / "real" / "agentscope-py" / "runs"
SCENARIOS = ["tool-interrupt", "omni-audio", "error-401", "hub"]


def replay(path):
    messages: list[dict] = []
    run = validate_paths([path], Options(), sink=lambda p, line, m: messages.append(m))
    (fr,) = run.files
    return messages, fr.findings, fr.summary


def read_jsonl(path) -> list[dict]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


def texts(msg, kind="text"):
    return [b[kind] for b in msg["content"] if b["type"] == kind]


FILES = sorted(p for s in SCENARIOS for p in RUNS.glob(f"{s}-*"))


def test_every_scenario_has_all_its_forms():
    for name in SCENARIOS:
        for suffix in (
            "events.jsonl",
            "events.sse",
            "agui-events.jsonl",
            "agui-events.sse",
            "final.jsonl",
        ):
            assert (RUNS / f"{name}-{suffix}").is_file(), f"{name}-{suffix}"


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_validate_accepts_every_file_of_the_framework(run_cli, path):
    code, out = run_cli("validate", str(path))
    assert code == 0, out
    assert "0 errors, 0 warnings" in out


@pytest.mark.parametrize("name", SCENARIOS)
def test_the_sse_bodies_replay_like_the_json_lines(name):
    """The service's SSE body (``data: <json>`` and a blank line per event) and the same
    events as JSON lines give the same messages; so do the two AG-UI forms."""
    for stem in (f"{name}-events", f"{name}-agui-events"):
        lines, findings, _ = replay(RUNS / f"{stem}.jsonl")
        sse, sse_findings, summary = replay(RUNS / f"{stem}.sse")
        assert findings == sse_findings == []
        assert summary.kind == "events" and summary.dialect == "agentscope-py"
        assert sse == lines and lines


def test_sse_findings_name_the_line_of_the_file(tmp_path):
    """A broken event inside the SSE body is reported at its own line of the file."""
    body = (RUNS / "hub-agui-events.sse").read_text().split("\n\n")
    i = next(i for i, frame in enumerate(body) if '"TEXT_MESSAGE_START"' in frame)
    del body[i]  # content for a message that never started
    log = tmp_path / "cut.sse"
    log.write_text("\n\n".join(body))
    _, findings, _ = replay(log)
    assert [f.code for f in findings][:1] == ["E002"]
    line = findings[0].line
    assert '"TEXT_MESSAGE_CONTENT"' in log.read_text().splitlines()[line - 1]


# -- a tool cut by an interrupt, then resumed -------------------------------------------


def test_interrupted_tool_keeps_what_it_streamed_and_the_next_reply_resumes():
    (cut, resumed), findings, _ = replay(RUNS / "tool-interrupt-events.jsonl")
    assert findings == []
    assert cut["finished_reason"] == "interrupted"
    (call,) = [b for b in cut["content"] if b["type"] == "tool_call"]
    (result,) = [b for b in cut["content"] if b["type"] == "tool_result"]
    assert json.loads(call["input"]) == {"files": 4}
    assert result["state"] == "interrupted"
    streamed = result["output"][0]["text"]
    assert streamed.startswith("file 1/4 done\nfile 2/4 done\n")
    assert "3/4" not in streamed
    assert "interrupted by the user" in streamed
    assert resumed["finished_reason"] == "completed"
    (result,) = [b for b in resumed["content"] if b["type"] == "tool_result"]
    assert result["state"] == "success" and result["output"][0]["text"].endswith("all done")
    assert texts(resumed)[-1] == "All four files are downloaded."
    # what the framework kept: the cut reply's result, then the next turn
    context = read_jsonl(RUNS / "tool-interrupt-context.jsonl")
    assert [m["role"] for m in context] == ["user", "assistant", "user", "assistant"]


def test_show_tells_the_interrupted_result(run_cli):
    code, out = run_cli("show", str(RUNS / "tool-interrupt-final.jsonl"))
    assert code == 0
    assert "← interrupted" in out and "finished: interrupted" in out
    assert "file 2/4 done" in out and "interrupted by the user" in out
    assert "All four files are downloaded." in out and "finished: completed" in out


# -- omni audio and signed thinking -----------------------------------------------------


def test_omni_audio_replays_to_one_playable_wav():
    (msg,), findings, _ = replay(RUNS / "omni-audio-events.jsonl")
    assert findings == []
    (audio,) = [b for b in msg["content"] if b["type"] == "data"]
    assert audio["source"]["media_type"] == "audio/wav"
    wav = base64.b64decode(audio["source"]["data"])
    # the streaming WAV header the omni models put before the first PCM chunk, then three
    # chunks of PCM, joined byte for byte
    assert wav[:4] == b"RIFF" and wav[8:12] == b"WAVE" and len(wav) == 44 + 3 * 240
    assert texts(msg) == ["It is 7 °C with light rain in Zürich."]
    assert texts(msg, "thinking")[-1] == "Now say it."


def test_signed_thinking_is_kept_where_the_framework_writes_it():
    # the events carry no signature: the message rebuilt from them has none, the reply the
    # agent returned and its context keep it
    (final,) = read_jsonl(RUNS / "omni-audio-final.jsonl")
    assert all("signature" not in b for b in final["content"])
    (reply,) = read_jsonl(RUNS / "omni-audio-reply.jsonl")
    signed = [b["signature"] for b in reply["content"] if b["type"] == "thinking"]
    assert signed and all(signed)
    for name in ("omni-audio-reply.jsonl", "omni-audio-context.jsonl"):
        run = validate_paths([RUNS / name])
        assert run.files[0].findings == []


def test_show_lists_the_audio_and_the_thinking(run_cli):
    code, out = run_cli("show", str(RUNS / "omni-audio-final.jsonl"))
    assert code == 0
    assert "audio/wav" in out and "764 B" in out
    assert "Now say it." in out and "It is 7 °C with light rain in Zürich." in out
    assert "UklGR" not in out  # no base64 on the screen


# -- a 401 in the middle of the stream ---------------------------------------------------


def test_a_401_closes_the_reply_with_its_error():
    (msg,), findings, summary = replay(RUNS / "error-401-events.jsonl")
    assert findings == []
    assert msg["finished_reason"] == "error"
    assert msg["error"]["type"] == "authentication"
    assert "API key" in msg["error"]["message"]
    assert texts(msg) == ["Let me "]  # what streamed before the failure
    assert texts(msg, "thinking") == ["Look up the weather."]
    assert msg["usage"] is None  # the model call never ended
    assert summary.replay.finished_reasons == {"error": 1}


def test_the_agui_form_of_the_401_is_a_failed_run_not_a_broken_stream():
    """AG-UI has no error on RUN_FINISHED: the run finishes inside the cut model call with the
    text message open, which is how the service's closing of a failed reply reads there."""
    (msg,), findings, _ = replay(RUNS / "error-401-agui-events.jsonl")
    assert findings == []
    assert msg["finished_reason"] == "error" and msg["error"] is None
    assert texts(msg) == ["Let me "]


def test_an_open_message_after_the_model_call_ended_is_still_reported(tmp_path):
    """The run finishing with a message open once the model call is over is no failed reply
    of the framework's: the AG-UI order rule still speaks."""
    events = read_jsonl(RUNS / "error-401-agui-events.jsonl")
    events.insert(-1, {"type": "STEP_FINISHED", "stepName": "scripted-model"})
    log = tmp_path / "agui.jsonl"
    log.write_bytes(b"".join(orjson.dumps(e) + b"\n" for e in events))
    _, findings, _ = replay(log)
    assert (len(events), "E015") in [(f.line, f.code) for f in findings]


def test_show_says_why_the_reply_failed(run_cli):
    code, out = run_cli("show", str(RUNS / "error-401-final.jsonl"))
    assert code == 0
    assert "finished: error" in out and "authentication" in out
    assert "Let me" in out


# -- three agents in a hub ---------------------------------------------------------------


def test_hub_replays_each_agents_turn_in_order():
    messages, findings, _ = replay(RUNS / "hub-events.jsonl")
    assert findings == []
    assert [m["name"] for m in messages] == ["Alice", "Bob", "Carol"] * 2
    assert [texts(m)[-1] for m in messages[3:]] == [
        "Alice: agreed, Lisbon.",
        "Bob: agreed, Lisbon.",
        "Carol: agreed, Lisbon.",
    ]


def test_each_agent_of_the_hub_holds_the_others_replies_under_their_ids():
    finals = read_jsonl(RUNS / "hub-final.jsonl")
    for name in ("alice", "bob", "carol"):
        path = RUNS / f"hub-{name}-context.jsonl"
        assert validate_paths([path]).files[0].findings == []
        context = read_jsonl(path)
        assert context[0]["name"] == "host"
        assert [m["id"] for m in context[1:]] == [m["id"] for m in finals]


def test_show_of_a_hub_context_names_every_speaker(run_cli):
    code, out = run_cli("show", str(RUNS / "hub-bob-context.jsonl"))
    assert code == 0
    for line in ("Alice: I suggest Lisbon.", "Bob: I suggest Oslo.", "Carol: I suggest Rome."):
        assert line in out
    assert out.count("ASSISTANT") == 6 and "host" in out
