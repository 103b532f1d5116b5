"""``msgcli query``: each filter gives the records a user expects from the real logs.

Expected records are picked from the raw JSON of the fixtures, the way a user
reading the log would pick them, never from what the filter code computes.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest
from conftest import FIXTURES

REAL = FIXTURES / "real"
PY = REAL / "agentscope-py" / "transcript.jsonl"
PY1 = REAL / "agentscope-py" / "v1" / "transcript-v1.jsonl"
LOONG = REAL / "loongflow" / "transcript.jsonl"


def raw(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def records(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def ids(messages) -> list:
    return [m["id"] for m in messages]


def query(run_cli, *args):
    code, out = run_cli("query", *map(str, args))
    return code, records(out)


# -- each filter ---------------------------------------------------------------------------------


def _tool_names(message: dict) -> set[str]:
    """The tools a raw record calls or answers, in whichever dialect's keys."""
    names = set()
    content = message.get("content")
    for block in content if isinstance(content, list) else ():
        if block.get("type") in ("tool_call", "tool_use"):
            names.add(block.get("name") or block.get("target"))
        elif block.get("type") in ("tool_result", "tool_output"):
            names.add(block.get("name") or block.get("tool_name"))
    return names


@pytest.mark.parametrize("path", [PY, PY1, LOONG], ids=["agentscope-py", "py-1.x", "loongflow"])
def test_tool_gives_the_call_and_the_message_holding_its_result(run_cli, path):
    code, got = query(run_cli, path, "--tool", "get_weather")
    assert code == 0
    expected = [m for m in raw(path) if "get_weather" in _tool_names(m)]
    assert ids(got) == ids(expected)
    # the reply that calls it, and the message with its result (the same one in 2.x)
    kinds = {b["type"] for m in got for b in m["content"]}
    assert (
        {"tool_call", "tool_result"} <= kinds
        or {"tool_use", "tool_result"} <= kinds
        or {
            "tool_call",
            "tool_output",
        }
        <= kinds
    )


def test_tool_on_the_real_agentscope_python_transcript_is_friday_s_reply(run_cli):
    code, got = query(run_cli, PY, "--tool", "get_weather")
    assert code == 0
    [reply] = got
    assert reply["name"] == "Friday"
    call = next(b for b in reply["content"] if b["type"] == "tool_call")
    result = next(b for b in reply["content"] if b["type"] == "tool_result")
    assert call["name"] == "get_weather" and result["id"] == call["id"]
    assert "7 °C" in result["output"][0]["text"]


def test_tool_matches_a_result_by_its_call_id(run_cli, tmp_path):
    """A result that does not name its tool still belongs to the call it answers."""
    lines = LOONG.read_text(encoding="utf-8").splitlines()
    result = json.loads(lines[3])
    del result["content"][0]["tool_name"]
    log = tmp_path / "log.jsonl"
    log.write_text("\n".join([lines[2], json.dumps(result), lines[4]]) + "\n", encoding="utf-8")
    _code, got = query(run_cli, log, "--tool", "get_weather")
    assert ids(got) == [json.loads(lines[2])["id"], result["id"]]
    # with a filter that leaves the call out: the call is still what the result answers
    _code, got = query(run_cli, log, "--tool", "get_weather", "--role", "tool")
    assert ids(got) == [result["id"]]


@pytest.mark.parametrize(
    ("option", "value", "pick"),
    [
        ("--role", "user", lambda m: m["role"] == "user"),
        ("--role", "ASSISTANT", lambda m: m["role"] == "assistant"),
        ("--name", "Alice", lambda m: m["name"] == "Alice"),
        ("--finish", "completed", lambda m: m.get("finished_reason") == "completed"),
        ("--id", "8d05451a", lambda m: m["id"].startswith("8d05451a")),
        ("--session", "ad5e2adbd54c43338193380add8a16bb",
         lambda m: m["metadata"].get("session_id") == "ad5e2adbd54c43338193380add8a16bb"),
    ],
)  # fmt: skip
def test_filters_on_the_agentscope_python_transcript(run_cli, option, value, pick):
    code, got = query(run_cli, PY, option, value)
    expected = [m for m in raw(PY) if pick(m)]
    assert expected, "the fixture has such records"
    assert code == 0
    assert ids(got) == ids(expected)


def test_filters_on_the_loongflow_transcript(run_cli):
    messages = raw(LOONG)
    _, got = query(run_cli, LOONG, "--name", "actor")
    assert ids(got) == ids(m for m in messages if m["sender"] == "actor")
    _, got = query(run_cli, LOONG, "--conversation", "conv-7f3a9c")
    assert ids(got) == ids(m for m in messages if m["conversation_id"] == "conv-7f3a9c")
    _, got = query(run_cli, LOONG, "--role", "tool", "--role", "user")
    assert ids(got) == ids(m for m in messages if m["role"] in ("tool", "user"))


def test_errors_gives_failed_tool_results(run_cli):
    code, got = query(run_cli, LOONG, "--errors")
    expected = [
        m
        for m in raw(LOONG)
        if any(b.get("status") == "error" for b in m["content"] if isinstance(b, dict))
    ]
    assert len(expected) == 1
    assert code == 0 and ids(got) == ids(expected)
    # the clean AgentScope transcript has none: exit 1 as grep
    code, got = query(run_cli, PY, "--errors")
    assert (code, got) == (1, [])


def test_errors_gives_records_validate_finds_errors_in(run_cli, tmp_path):
    messages = raw(PY)
    broken = dict(messages[2], finished_reason="stop")  # not a ReplyFinishedReason
    log = tmp_path / "log.jsonl"
    log.write_text(
        "\n".join(json.dumps(m, ensure_ascii=False) for m in [messages[1], broken, messages[3]])
        + "\n",
        encoding="utf-8",
    )
    code, out = run_cli("validate", "--format", "json", str(log))
    bad = {f["line"] for f in json.loads(out)["findings"] if f["severity"] == "error"}
    assert bad == {2}
    code, got = query(run_cli, log, "--errors")
    assert code == 0 and ids(got) == [broken["id"]]


def test_errors_gives_replies_that_ended_in_error(run_cli):
    """The real stream with a rate-limit error ends its reply with finished_reason error."""
    finals = [
        m
        for path in sorted((FIXTURES / "events" / "agentscope-py").glob("*.jsonl"))
        for m in records(run_cli("query", str(path), "--finish", "error")[1])
    ]
    for m in finals:
        assert m["finished_reason"] == "error"
    errors = records(run_cli("query", str(FIXTURES / "events" / "agentscope-py"), "--errors")[1])
    assert {m["id"] for m in finals} <= {m["id"] for m in errors}


def test_grep_and_ignore_case(run_cli):
    def mentions(m, word):
        return word.lower() in json.dumps(m["content"], ensure_ascii=False).lower()

    code, got = query(run_cli, PY, "--grep", "ZÜRICH")
    assert (code, got) == (1, [])
    code, got = query(run_cli, PY, "--grep", "ZÜRICH", "-i")
    assert ids(got) == ids(m for m in raw(PY) if mentions(m, "zürich"))
    # a word of a tool result (LoongFlow keeps the output in a content element)
    code, got = query(run_cli, LOONG, "--grep", "timed out")
    assert ids(got) == ids(m for m in raw(LOONG) if mentions(m, "timed out"))
    # repeated: all must match
    _, got = query(run_cli, PY, "-g", "Zürich", "-g", "中文")
    assert ids(got) == ids(m for m in raw(PY) if mentions(m, "zürich") and mentions(m, "中文"))


def test_since_and_until(run_cli):
    messages = raw(LOONG)
    middle = messages[5]["timestamp"]
    _, got = query(run_cli, LOONG, "--since", middle)
    assert ids(got) == ids(m for m in messages if m["timestamp"] >= middle)
    _, got = query(run_cli, LOONG, "--until", middle)
    assert ids(got) == ids(m for m in messages if m["timestamp"] <= middle)
    # durations count back from now: the fixtures are older than a minute, and not from
    # the future
    assert query(run_cli, LOONG, "--since", "1m") == (1, [])
    assert len(query(run_cli, LOONG, "--until", "1m")[1]) == len(messages)
    code, out, err = run_cli("query", str(LOONG), "--since", "yesterday", stderr=True)
    assert code == 2 and "--since" not in out and "ISO time" in err


def test_where_over_the_neutral_fields(run_cli):
    _, got = query(run_cli, PY, "--where", "role == 'assistant' && usage.output_tokens > `100`")
    expected = [
        m
        for m in raw(PY)
        if m["role"] == "assistant" and (m["usage"] or {}).get("output_tokens", 0) > 100
    ]
    assert expected and ids(got) == ids(expected)
    # the same keys in every dialect: LoongFlow's sender is `name`, its usage in metadata
    _, got = query(run_cli, LOONG, "--where", "contains(content[].type, 'tool_call')")
    assert ids(got) == ids(
        m for m in raw(LOONG) if any(b["type"] == "tool_call" for b in m["content"])
    )
    code, _out, err = run_cli("query", str(PY), "--where", "role ==", stderr=True)
    assert code == 2 and "--where" in err and "Traceback" not in err


def test_count_and_exit_status(run_cli, tmp_path):
    assert run_cli("query", str(PY), "-c") == (0, f"{len(raw(PY))}\n")
    assert run_cli("query", str(PY), "-c", "--name", "nobody") == (1, "0\n")
    code, _out, err = run_cli("query", str(tmp_path / "missing.jsonl"), stderr=True)
    assert code == 2 and "missing.jsonl" in err
    code, _, err = run_cli("query", str(PY), "--grep", "(", stderr=True)
    assert code == 2 and "regular expression" in err


def test_neutral_form_has_the_same_keys_in_every_dialect(run_cli):
    outs = [records(run_cli("query", "--neutral", str(p))[1]) for p in (PY, PY1, LOONG)]
    keys = {frozenset(m) for out in outs for m in out}
    assert len(keys) == 1
    loong = outs[2]
    assert [m["name"] for m in loong] == [m["sender"] for m in raw(LOONG)]
    assert [m["line"] for m in loong] == list(range(1, len(raw(LOONG)) + 1))
    reply = outs[0][2]
    result = next(b for b in reply["content"] if b["type"] == "tool_result")
    assert result["output"][0]["type"] == "text"  # nested blocks, neutral too


def test_event_logs_give_the_replayed_message(run_cli):
    final = raw(REAL / "agentscope-py" / "events-final.jsonl")
    for name in ("events.jsonl", "events.sse"):
        _, got = query(run_cli, REAL / "agentscope-py" / name, "--tool", "get_weather")
        assert ids(got) == ids(final)


def _msgcli() -> list[str]:
    return [sys.executable, "-m", "msgcli"]


@pytest.mark.parametrize("path", [PY, PY1, LOONG], ids=["agentscope-py", "py-1.x", "loongflow"])
def test_output_pipes_into_jq_and_back_into_validate(path):
    """msgcli query | jq -c . | msgcli validate -: the records are the log's own, clean.
    Without jq the same round trip goes through Python's json."""
    query = subprocess.run(
        [*_msgcli(), "query", str(path), "--tool", "get_weather"], capture_output=True, check=True
    )
    if shutil.which("jq"):
        piped = subprocess.run(
            ["jq", "-c", "."], input=query.stdout, capture_output=True, check=True
        ).stdout
    else:
        piped = b"".join(
            json.dumps(json.loads(line), ensure_ascii=False).encode() + b"\n"
            for line in query.stdout.splitlines()
        )
    assert len(piped.splitlines()) == sum(1 for m in raw(path) if "get_weather" in _tool_names(m))
    check = subprocess.run([*_msgcli(), "validate", "-"], input=piped, capture_output=True)
    assert check.returncode == 0, check.stdout + check.stderr
    assert b"0 errors, 0 warnings" in check.stdout


def test_show_takes_the_same_filters(run_cli):
    code, out = run_cli("show", "--no-pager", "--tool", "get_air_quality", str(LOONG))
    assert code == 0
    assert "get_air_quality" in out and "upstream AQI service timed out" in out
    assert "get_weather" not in out
    code, out = run_cli("query", "--show", "--errors", str(LOONG))
    assert code == 0 and "timed out" in out and "sunny" not in out
    code, out = run_cli("show", "--no-pager", "--where", "bad((", str(LOONG))
    assert code == 2


def test_library_query():
    import msgcli

    got = list(msgcli.query([str(LOONG)], tools=["get_weather"]))
    assert [m.line for m in got] == [3, 4]
    assert [m.raw["id"] for m in got] == [raw(LOONG)[2]["id"], raw(LOONG)[3]["id"]]
