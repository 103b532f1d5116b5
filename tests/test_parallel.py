"""``-j N``: the same findings and summaries as one process, whatever the split.

The part size is made tiny here, so that a log of a few kilobytes is cut into
dozens of parts and tool calls and their results, repeated ids and time steps
fall on either side of part borders.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES, examples, log_files
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from msgcli import parallel
from msgcli.pipeline import Options, validate_paths

JAVA_VALID = sorted((FIXTURES / "valid" / "agentscope-java").glob("*.jsonl"))
MESSAGE_LOGS = [
    p
    for p in log_files(FIXTURES)
    if p.suffix == ".jsonl" and "events" not in p.parts and "cases" not in p.parts
]


def _outcome(run):
    return (
        [(f.path, f.line, f.code, f.severity, f.message, f.pointer) for f in run.findings()],
        [fr.summary.to_dict() for fr in run.files],
        run.exit_code,
    )


@pytest.fixture
def parts(monkeypatch):
    """Split every file into parts of about ``size`` bytes; returns the ranges planned."""
    planned: list = []
    plan = parallel._plan_parts

    def spy(*args):
        result = plan(*args)
        if result is not None:
            planned.append(result[1])
        return result

    monkeypatch.setattr(parallel, "_plan_parts", spy)
    monkeypatch.setattr(parallel, "SPLIT_BYTES", 1)

    def set_size(size: int) -> list:
        monkeypatch.setattr(parallel, "PART_BYTES", size)
        planned.clear()
        return planned

    return set_size


def _both(paths, **options):
    single = validate_paths(paths, Options(jobs=1, **options))
    multi = validate_paths(paths, Options(jobs=2, **options))
    return _outcome(single), _outcome(multi)


@pytest.fixture
def crossing_log(tmp_path):
    """AgentScope Java runs, twice over (every id used again, time going back), with
    broken records, a LoongFlow record and the Java problem fixtures in between."""
    chunks = [p.read_bytes() for p in JAVA_VALID]
    problems = sorted((FIXTURES / "invalid" / "agentscope-java").glob("*.jsonl"))
    body = b"".join(chunks)
    body += b"\n{not json\n\n[1, 2]\n"
    body += (FIXTURES / "real" / "loongflow" / "transcript.jsonl").read_bytes()[:600] + b"\n"
    body += b"".join(p.read_bytes() for p in problems)
    body += b"".join(chunks)
    path = tmp_path / "crossing.jsonl"
    path.write_bytes(body)
    return path


def _line_starts(path, ranges):
    """The first line of each part."""
    data = path.read_bytes()
    return [data.count(b"\n", 0, start) + 1 for start, _ in ranges]


def _part_of(line, starts):
    return max(i for i, first in enumerate(starts) if first <= line)


def test_checks_across_part_borders_are_exact(parts, crossing_log):
    planned = parts(1500)
    single, multi = _both([crossing_log])
    assert multi == single
    assert len(planned) == 1 and len(planned[0]) >= 20  # the file was split, finely
    starts = _line_starts(crossing_log, planned[0])
    findings = single[0]
    # repeated ids whose first use lies in an earlier part are found, and named by line
    far = [
        f
        for f in findings
        if f[2] in ("I001", "I002")
        and _part_of(int(re.search(r"on line (\d+)", f[4]).group(1)), starts)
        < _part_of(f[1], starts)
    ]
    assert len(far) >= 20
    # and every call of the clean runs found its result, across borders too
    codes = {f[2] for f in findings}
    assert {"I001", "I002", "C002", "P001", "P003", "D002"} <= codes
    clean_lines = sum(p.read_bytes().count(b"\n") for p in JAVA_VALID)
    assert not [f for f in findings if f[2] in ("T001", "T002") and f[1] <= clean_lines]


def test_calls_answered_in_the_next_part(parts, crossing_log):
    # one record per part: a call and its result can only ever meet across a border
    planned = parts(1)
    single, multi = _both([JAVA_VALID[0]])
    assert multi == single
    lines = JAVA_VALID[0].read_bytes().count(b"\n")
    assert len(planned[0]) == lines
    assert single[2] == 0


@pytest.mark.parametrize("path", MESSAGE_LOGS, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_every_fixture_log_alike_in_parts(parts, path):
    parts(256)
    single, multi = _both([path])
    assert multi == single


def test_many_files_keep_their_order(parts):
    parts(4096)
    paths = [FIXTURES / "valid", FIXTURES / "invalid", FIXTURES / "real", "missing.jsonl"]
    single, multi = _both(paths)
    assert multi == single
    assert len(multi[1]) > 40


def test_options_reach_the_workers(parts, crossing_log):
    parts(2048)
    single, multi = _both(
        [crossing_log], select=frozenset({"I001", "T002", "C002"}), dialect="agentscope-java"
    )
    assert multi == single
    assert {f[2] for f in multi[0]} == {"I001", "T002", "C002"}


@settings(
    max_examples=examples(12),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(size=st.integers(min_value=1, max_value=30_000))
def test_any_part_size_gives_the_same_findings(parts, crossing_log, size):
    parts(size)
    single, multi = _both([crossing_log])
    assert multi == single


def test_small_or_unsplittable_inputs_are_not_split(tmp_path):
    planned = []
    for name, data in {
        "small.jsonl": (FIXTURES / "real" / "agentscope-py" / "transcript.jsonl").read_bytes(),
        "events.jsonl": (FIXTURES / "real" / "agentscope-py" / "events.jsonl").read_bytes() * 2000,
        "array.json": b"[" + b",".join([b'{"a": 1}'] * 2_000_000) + b"]",
    }.items():
        path = tmp_path / name
        path.write_bytes(data)
        planned.append(parallel._plan_parts(path, 2, None, parallel.SPLIT_BYTES, 1 << 20))
    assert planned == [None, None, None]


def test_a_worker_that_dies_fails_the_run_and_does_not_hang(tmp_path):
    # a worker killed (say for memory) must end the run with exit 2, not leave it waiting
    import os
    import subprocess
    import sys

    (tmp_path / "sitecustomize.py").write_text(
        "import os\nimport msgcli.parallel as p\n"
        "def die(*a, **k):\n    os._exit(9)\n"
        "p.check_part = die\n"
    )
    log = tmp_path / "big.jsonl"
    log.write_bytes((FIXTURES / "valid" / "agentscope-java" / "parallel-tools.jsonl").read_bytes())
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    code = (
        "import sys, msgcli.parallel as p; p.SPLIT_BYTES = 1; p.PART_BYTES = 512\n"
        "from msgcli.cli import main; sys.argv = ['msgcli', 'validate', '-j', '2', sys.argv[1]]\n"
        "main()"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, str(log)], env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 2
    assert "BrokenProcessPool" in result.stderr
    assert "Traceback" not in result.stderr


def test_workers_collect_cycles_while_the_owner_waits(monkeypatch):
    """The owner of a run holds the cycle collector off while results come in; the workers
    it forks meanwhile must not inherit that (each part's checking state is a cycle: a
    worker that never collects grows by every part it checks)."""
    import gc

    real = parallel.validate_file

    def marking(*args, **kwargs):
        report = real(*args, **kwargs)
        report.summary.variants = ["collecting" if gc.isenabled() else "not collecting"]
        return report

    monkeypatch.setattr(parallel, "validate_file", marking)
    paths = [p for p in log_files(FIXTURES / "real" / "agentscope-py") if p.suffix == ".jsonl"]
    reports = list(parallel.iter_file_reports_parallel(paths[:4], Options(jobs=2)))
    assert len(reports) == 4
    assert {v for r in reports for v in r.summary.variants} == {"collecting"}
    assert gc.isenabled()  # and the owner collects again once the run is done


@pytest.mark.skipif(sys.platform != "linux", reason="workers are forked on Linux only")
def test_a_worker_sets_aside_the_heap_it_was_forked_with():
    """A program that holds much (a notebook, a test session) and calls msgcli with -j: its
    workers' collections after each part must not walk all the program held at the fork
    (they once did, part after part, in every worker)."""
    import gc

    held = [[n] for n in range(200_000)]  # a program's own objects (each one tracked)
    owners = gc.get_freeze_count()  # (not 0 everywhere: Python 3.12 starts with some)
    pool = parallel._pool(2, None)
    try:
        frozen = [pool.submit(gc.get_freeze_count).result() for _ in range(4)]
        collecting = pool.submit(gc.isenabled).result()
    finally:
        pool.shutdown()
    assert collecting
    assert min(frozen) >= len(held)
    assert gc.get_freeze_count() == owners  # the owner's own collector is left as it was


def test_small_files_go_to_the_workers_together_with_the_same_findings(tmp_path, monkeypatch):
    """A folder of many small logs (every message log of the fixtures, each twice, and a
    log too large to join them in between): the workers get them a batch at a time
    (handing back one small file's report took longer than checking it), and the report
    is the one of a run on one process, file for file, in order."""
    import shutil

    folder = tmp_path / "logs"
    folder.mkdir()
    for i, path in enumerate(MESSAGE_LOGS * 2):
        shutil.copy(path, folder / f"{i:04d}-{path.name}")
    largest = max(path.stat().st_size for path in MESSAGE_LOGS)
    big = folder / "0100-big.jsonl"
    big.write_bytes(MESSAGE_LOGS[0].read_bytes() * (2 * largest // MESSAGE_LOGS[0].stat().st_size))
    monkeypatch.setattr(parallel, "BATCH_BYTES", largest + 1)  # (all but big.jsonl are small)
    monkeypatch.setattr(parallel, "SPLIT_BYTES", 1 << 40)  # (and it goes whole)

    sent: list = []
    original = parallel.batched

    def spy(tasks):
        for task in original(tasks):
            sent.append(task)
            yield task

    monkeypatch.setattr(parallel, "batched", spy)
    single, multi = _both([folder])
    assert multi == single
    files = [[t] if t[0] == "file" else t[1] for t in sent]
    names = [Path(task[2]).name for batch in files for task in batch]
    assert names == sorted(path.name for path in folder.iterdir())  # each once, in order
    assert len(sent) < len(names) / 4
    for batch in files:
        assert len(batch) <= parallel.BATCH_FILES
        assert sum(Path(task[2]).stat().st_size for task in batch[:-1]) < parallel.BATCH_BYTES
    assert [Path(t[2]) for t in sent if t[0] == "file" and Path(t[2]) == big] == [big]
    assert all(Path(task[2]) != big for t in sent if t[0] == "files" for task in t[1])


def test_a_worker_leaves_ctrl_c_to_its_owner():
    """(What the run below depends on: a worker idle when Ctrl-C comes printed its
    traceback; one busy handed the interrupt back as its part's result.)"""
    import signal

    pool = parallel._pool(1, None)
    try:
        assert pool.submit(signal.getsignal, signal.SIGINT).result() == signal.SIG_IGN
    finally:
        pool.shutdown()


@pytest.mark.skipif(sys.platform != "linux", reason="reads a process's children in /proc")
def test_ctrl_c_ends_a_run_with_workers_quietly_and_at_once(tmp_path):
    """Ctrl-C reaches every process of the command. Workers that took it printed their
    tracebacks, and one cut off while handing back a result left the owner waiting for the
    rest for ever. Now: exit status 130 within seconds, nothing on standard error, no
    worker left behind. (A real transcript repeated to 40 MB: checked in parts, on two
    workers.)"""
    import os
    import signal
    import subprocess
    import time

    source = (FIXTURES / "real/agentscope-py/transcript.jsonl").read_bytes()
    log = tmp_path / "big.jsonl"
    log.write_bytes(source * (40_000_000 // len(source)))
    run = subprocess.Popen(
        [sys.executable, "-m", "msgcli", "validate", "-j", "2", "-q", str(log)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,  # (its own process group, as a terminal's job)
    )
    children = f"/proc/{run.pid}/task/{run.pid}/children"
    workers: list[str] = []
    deadline = time.monotonic() + 60
    while len(workers) < 2 and run.poll() is None and time.monotonic() < deadline:
        try:
            with open(children) as f:
                workers = f.read().split()
        except FileNotFoundError:
            pytest.skip("this kernel does not list a process's children")
        time.sleep(0.005)
    assert len(workers) >= 2, "the run ended before its workers could be seen"
    os.killpg(run.pid, signal.SIGINT)
    try:
        _, err = run.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(run.pid, signal.SIGKILL)
        raise AssertionError("the interrupted run did not end") from None
    assert run.returncode == 130
    assert err.decode() == ""
    time.sleep(0.5)
    assert not [pid for pid in workers if os.path.exists(f"/proc/{pid}")]


def test_a_part_s_digests_go_back_marshalled_or_as_they_are():
    digests = [(3, ("m1", "m1", 12, None, (("call", "c1", ("content", 2), "f", "done", "c1"),)))]
    sent = parallel._sent(digests)
    assert type(sent) is bytes  # (what the owner takes back with marshal)
    odd = [(1, (object(),))]  # anything marshal cannot write goes as it is
    assert parallel._sent(odd) is odd
