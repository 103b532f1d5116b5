"""The progress bar: only on a terminal, only for the text report, counts what was read."""

from __future__ import annotations

import sys
import threading

import pytest
from conftest import FIXTURES

from msgcli import parallel, progress
from msgcli.pipeline import Options, validate_paths

LOGS = [FIXTURES / "valid" / "agentscope-java", FIXTURES / "real" / "agentscope-py"]


@pytest.fixture
def terminal(monkeypatch):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    monkeypatch.setattr(progress, "LARGE_BYTES", 1)


def _bar_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "msgcli-progress"]


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_tracker_counts_every_byte_and_record(terminal, monkeypatch, jobs):
    monkeypatch.setattr(parallel, "SPLIT_BYTES", 1)
    monkeypatch.setattr(parallel, "PART_BYTES", 2048)  # parts too: each counted as it arrives
    with progress.progress([str(p) for p in LOGS], enabled=True):
        state = progress.tracker()
        assert state is not None and _bar_threads()
        run = validate_paths(LOGS, Options(jobs=jobs))
        assert state.position() == (progress.input_bytes(LOGS), run.summary.records)
    assert progress.tracker() is None and not _bar_threads()


def test_no_bar_off_a_terminal_for_other_formats_or_small_inputs(monkeypatch):
    with progress.progress([str(LOGS[0])], enabled=True):
        assert progress.tracker() is None  # stderr is not a terminal here
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    with progress.progress([str(LOGS[0])], enabled=False):  # --format json or github
        assert progress.tracker() is None
    with progress.progress([str(LOGS[0])], enabled=True):  # a few KB: done before it helps
        assert progress.tracker() is None
    monkeypatch.setattr(progress, "LARGE_BYTES", 1)
    with progress.progress(["-"], enabled=True):  # standard input has no size
        assert progress.tracker() is None


def test_no_drawing_thread_while_workers_are_forked(terminal):
    with progress.progress([str(LOGS[0])], enabled=True):
        assert _bar_threads()
        with progress.drawing_paused():
            assert not _bar_threads()
        assert _bar_threads()
