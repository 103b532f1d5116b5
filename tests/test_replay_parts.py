"""``msgcli replay -j N``: a large log of Anthropic streams cut where a stream starts, its
parts replayed side by side, gives exactly what one pass gives: the same messages written
in the same order and bytes, the same findings, counts and exit status, however the log is
cut and whatever is wrong with its streams.

The part size is made tiny here, so that a log of a few kilobytes is cut into many parts
and every kind of stream border (a stream cut before the next one starts, an error, a
block that never stopped) falls on a part border somewhere.
"""

from __future__ import annotations

import gc
import io
import json
import weakref
from concurrent.futures import Future

import orjson
import pytest
from conftest import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_provider_streams import _STREAMS, ROOT, _mutated
from typer.testing import CliRunner

import msgcli
from msgcli import parallel
from msgcli.cli import app
from msgcli.dialects import get_dialect
from msgcli.pipeline import Options, validate_paths
from msgcli.writer import JsonlOutput

_ANTHROPIC = [events for dialect, events in _STREAMS if dialect == "anthropic"]
_FILES = sorted((ROOT / "anthropic-messages").glob("*/events*.jsonl"))


class _HereExecutor:
    """Runs each task at once in this process (the parts' logic without the processes).
    What the process held before is set aside from the cycle collector meanwhile, as a
    worker sets aside what it was forked with: each part's collection walks only what the
    parts made, not the whole test session."""

    def __init__(self):
        gc.freeze()

    def submit(self, fn, *args):
        done: Future = Future()
        done.set_result(fn(*args))
        return done

    def shutdown(self, cancel_futures=False):
        gc.unfreeze()


@pytest.fixture
def cut(monkeypatch):
    """Cut every event log that can be cut into parts of about ``size`` bytes; returns the
    ranges planned, one list per file."""
    planned: list = []
    plan = parallel._plan_replay_parts

    def spy(*args):
        result = plan(*args)
        if result is not None:
            planned.append(result[1])
        return result

    monkeypatch.setattr(parallel, "_plan_replay_parts", spy)
    monkeypatch.setattr(parallel, "SPLIT_BYTES", 1)

    def set_size(size: int, here: bool = False) -> list:
        monkeypatch.setattr(parallel, "PART_BYTES", size)
        if here:
            monkeypatch.setattr(parallel, "_pool", lambda jobs, tracker: _HereExecutor())
        planned.clear()
        return planned

    return set_size


def _replayed(path, jobs: int, output: bool = True):
    """What a user of ``replay`` sees: the bytes written (through a JSONL output, or each
    message as a generic sink takes it), the findings, the summaries, the exit status."""
    buffer = io.BytesIO()
    kept: list = []
    out = JsonlOutput(buffer, close=False)
    sink = out.message if output else lambda name, line, message: kept.append((line, message))
    run = validate_paths([str(path)], Options(jobs=jobs, events_only=True), sink=sink)
    findings = [(f.path, f.line, f.code, f.severity, f.message, f.pointer) for f in run.findings()]
    summaries = [fr.summary.to_dict() for fr in run.files]
    orders = [list(fr.summary.replay.by_type) for fr in run.files if fr.summary.replay]
    return buffer.getvalue(), kept, findings, summaries, orders, run.exit_code


def _same_both_ways(path, output: bool = True):
    single = _replayed(path, 1, output)
    parts = _replayed(path, 2, output)
    assert parts == single
    return single


def _log(tmp_path, streams: list[list], name: str = "streams.jsonl"):
    path = tmp_path / name
    path.write_bytes(b"".join(orjson.dumps(e) + b"\n" for events in streams for e in events))
    return path


def test_real_streams_in_many_parts_replay_as_one_pass(cut, tmp_path):
    """Every shared Anthropic stream, both dump forms, one after another three times: cut
    into parts of 1 KB, each part replayed by a worker process."""
    path = tmp_path / "all.jsonl"
    path.write_bytes(b"".join(p.read_bytes() for p in _FILES) * 3)
    planned = cut(1024)
    written, _, _, summaries, _, _ = _same_both_ways(path)
    (ranges,) = planned
    assert len(ranges) > 20  # cut for real, at many stream starts
    with path.open("rb") as stream:
        for start, _ in ranges[1:]:
            stream.seek(start)
            assert json.loads(stream.readline())["type"] == "message_start"
    assert summaries[0]["replay"]["messages"] == written.count(b"\n") > 20


def test_a_stream_cut_off_before_a_part_border_is_reported_there(cut, tmp_path):
    """A stream that stops without message_stop, right before the next part: written as far
    as it came, marked cut at its last line, reported there (E007), as in one pass."""
    lines = (ROOT / "anthropic-messages" / "tool-use" / "events.jsonl").read_bytes().splitlines()
    whole = [orjson.loads(x) for x in lines]
    broken = whole[:-3]  # no block stop, no message_delta, no message_stop
    path = _log(tmp_path, [whole, broken, whole, broken, whole])
    planned = cut(1, here=True)  # a part per stream
    written, _, findings, _, _, code = _same_both_ways(path)
    assert len(planned[0]) == 5
    assert code == 1
    cuts = [f for f in findings if f[2] == "E007"]
    lines = len(whole), 2 * len(whole) + len(broken)
    assert [f[1] for f in cuts] == [lines[0] + len(broken), lines[1] + len(broken)]
    marked = [json.loads(x) for x in written.splitlines() if b"msgcli_replay" in x]
    assert [m["msgcli_replay"]["line"] for m in marked] == [f[1] for f in cuts]
    assert [m["msgcli_replay"]["from"] for m in marked] == [lines[0] + 1, lines[1] + 1]


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_broken_streams_in_any_parts_replay_as_one_pass(tmp_path_factory, data):
    """Real streams, changed as in the provider-stream tests (events dropped, repeated,
    swapped, retyped, their values changed), one after another, cut into parts of any size:
    the parts give what one pass gives, to a JSONL output and to any other sink."""
    streams = [
        _mutated(data, data.draw(st.sampled_from(_ANTHROPIC)))
        for _ in range(data.draw(st.integers(2, 6)))
    ]
    path = _log(tmp_path_factory.mktemp("parts"), streams)
    size = data.draw(st.sampled_from([1, 200, 700, 3000]))
    output = data.draw(st.booleans())
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(parallel, "SPLIT_BYTES", 1)
        patch.setattr(parallel, "PART_BYTES", size)
        patch.setattr(parallel, "_pool", lambda jobs, tracker: _HereExecutor())
        _same_both_ways(path, output)


def _validated(paths, jobs: int):
    run = validate_paths([str(p) for p in paths], Options(jobs=jobs))
    findings = [(f.path, f.line, f.code, f.severity, f.message, f.pointer) for f in run.findings()]
    return findings, [fr.summary.to_dict() for fr in run.files], run.exit_code


def test_validate_cuts_the_same_logs_with_the_same_findings(cut, tmp_path):
    """``validate -j`` replays such a log in parts too (nothing written), beside other files,
    their reports in the order of the inputs."""
    streams = tmp_path / "streams.jsonl"
    streams.write_bytes(b"".join(p.read_bytes() for p in _FILES) * 2)
    other = next((ROOT.parent / "events" / "agentscope-py").rglob("*.jsonl"))
    paths = [other, streams, _FILES[0]]
    planned = cut(1024)
    parts = _validated(paths, 2)
    assert len(planned) == 1 and len(planned[0]) > 10
    assert parts == _validated(paths, 1)
    assert [s["path"] for s in parts[1]] == [str(p) for p in paths]


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_broken_streams_validated_in_any_parts_as_one_pass(tmp_path_factory, data):
    streams = [
        _mutated(data, data.draw(st.sampled_from(_ANTHROPIC)))
        for _ in range(data.draw(st.integers(2, 6)))
    ]
    path = _log(tmp_path_factory.mktemp("parts"), streams)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(parallel, "SPLIT_BYTES", 1)
        patch.setattr(parallel, "PART_BYTES", data.draw(st.sampled_from([1, 500, 3000])))
        patch.setattr(parallel, "_pool", lambda jobs, tracker: _HereExecutor())
        assert _validated([path], 2) == _validated([path], 1)


def test_only_logs_whose_streams_can_be_told_apart_are_cut(cut, tmp_path):
    cut(1)
    anthropic = ROOT / "anthropic-messages" / "tool-use"
    chat = ROOT / "openai-chat"
    uncut = [
        next(chat.glob("*/events.jsonl")),  # its streams have no line that opens one alone
        anthropic / "sse.txt",  # SSE is read whole
        next((ROOT.parent / "events" / "agentscope-py").rglob("*.jsonl")),  # AgentScope
    ]
    for path in uncut:
        assert parallel._plan_replay_parts(path, 2, None) is None, path
    one = anthropic / "events.jsonl"
    assert parallel._plan_replay_parts(one, 2, None) is None  # one stream: nowhere to cut
    two = tmp_path / "two.jsonl"
    two.write_bytes(one.read_bytes() * 2)
    assert parallel._plan_replay_parts(two, 1, None) is None  # -j 1
    assert parallel._plan_replay_parts(two, 2, None) is not None


def test_the_library_replays_in_parts_when_asked(cut, tmp_path):
    path = tmp_path / "all.jsonl"
    path.write_bytes(b"".join(p.read_bytes() for p in _FILES) * 2)
    planned = cut(2048)
    single = msgcli.replay(path)
    parts = msgcli.replay(path, jobs=2)
    assert len(planned) == 1 and len(planned[0]) > 5
    assert parts.messages == single.messages and len(single.messages) > 10
    assert parts.report.findings() == single.report.findings()


def test_a_line_opens_a_stream_only_when_nothing_before_it_matters():
    opens = get_dialect("anthropic").replayer_type().opens_stream
    start = (ROOT / "anthropic-messages" / "tool-use" / "events.jsonl").read_bytes()
    first = start.splitlines()[0]
    assert opens(first) and opens(first + b"\n")
    event = orjson.loads(first)
    assert not opens(orjson.dumps({**event, "type": "message_delta"}))
    message = event["message"]
    for changed in (
        {**message, "content": [{"type": "text", "text": "x"}]},  # not empty
        {**message, "role": "user"},
        {**message, "usage": {"input_tokens": "3"}},
    ):
        assert not opens(orjson.dumps({**event, "message": changed}))
    # nested deeper than a record may be (the reader takes the line, the replay does not)
    deep = b"[" * 1015 + b"1" + b"]" * 1015
    assert not opens(first[:-1] + b',"extra":' + deep + b"}")
    assert opens(first[:-1] + b',"extra":' + deep[10:-10] + b"}")
    assert not opens(first[:-5])


def test_replay_j_on_the_command_line(cut, tmp_path):
    path = tmp_path / "all.jsonl"
    path.write_bytes(b"".join(p.read_bytes() for p in _FILES) * 2)
    cut(2048)
    runner = CliRunner()
    outputs = []
    for jobs in ("1", "2"):
        out = tmp_path / f"out-{jobs}.jsonl"
        result = runner.invoke(app, ["replay", "-j", jobs, "-o", str(out), str(path)])
        outputs.append((out.read_bytes(), result.output, result.exit_code))
    assert outputs[0] == outputs[1]
    written, said, code = outputs[0]
    assert written.count(b"\n") > 10 and "E007" in said and code == 1  # (streams cut short)


def test_a_worker_keeps_nothing_of_a_part_it_has_replayed(cut, tmp_path, monkeypatch):
    """A part's check and bytes are freed as soon as its result is made (a worker replays
    many parts: without it, it grew by every part)."""
    path = tmp_path / "all.jsonl"
    path.write_bytes(b"".join(p.read_bytes() for p in _FILES))
    cut(1024)
    made: list = []
    check = parallel.ReplayPartCheck

    def tracked(*args):
        made.append(weakref.ref(obj := check(*args)))
        return obj

    monkeypatch.setattr(parallel, "ReplayPartCheck", tracked)
    preset, cuts = parallel._plan_replay_parts(path, 2, None)
    tasks = parallel._replay_tasks("x", str(path), Options(), preset, cuts, "lines")
    collecting = gc.isenabled()
    gc.disable()  # (so nothing but the part's own clean-up frees it)
    try:
        parallel.run_task(next(tasks))
    finally:
        if collecting:
            gc.enable()
    assert made and made[0]() is None
