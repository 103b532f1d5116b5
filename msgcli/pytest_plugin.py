"""The pytest plugin: golden transcripts for agent regression tests.

Installed with msgcli (a ``pytest11`` entry point), it gives every test the
``transcript_snapshot`` fixture::

    def test_weather_agent(transcript_snapshot, tmp_path):
        log = run_my_agent(tmp_path)              # a path, or a list of messages/records
        transcript_snapshot.assert_match(log, "weather")

The first run with ``pytest --msgcli-update-snapshots`` writes
``__snapshots__/weather.jsonl`` beside the test file; later runs compare with it by
the rules of ``msgcli diff`` (ids, times and usage left out) and fail with the diff.
A missing golden file fails unless updating.

Only pytest loads this module; msgcli itself never imports it, and it imports the
rest of msgcli only when a test uses the fixture.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

UPDATE_OPTION = "--msgcli-update-snapshots"


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("msgcli", "msgcli transcript snapshots")
    group.addoption(
        UPDATE_OPTION,
        action="store_true",
        default=False,
        help="Write or refresh the golden transcripts of transcript_snapshot "
        "(__snapshots__/NAME.jsonl beside each test file).",
    )


class TranscriptSnapshot:
    """Compares a conversation with a golden JSONL file under ``__snapshots__/``."""

    def __init__(self, folder: Path, update: bool):
        self.folder = folder
        self.update = update
        #: the golden files this test wrote (when updating)
        self.written: list[Path] = []

    def path(self, name: str) -> Path:
        """The golden file of ``name``."""
        file = name if name.endswith((".jsonl", ".jsonl.gz")) else f"{name}.jsonl"
        return self.folder / file

    def assert_match(
        self,
        messages_or_path: Any,
        name: str,
        *,
        match: str = "strict",
        compare: Iterable[str] = (),
        ignore_paths: Iterable[str] = (),
    ) -> None:
        """Fail the test unless the conversation matches the golden file ``name``.

        ``messages_or_path``: a path to a message or event log (replayed), or a list of
        :class:`msgcli.model.Message` or of dialect records (dicts). ``match``,
        ``compare`` and ``ignore_paths`` as for :func:`msgcli.diff`.
        """
        from .compare import DiffError, diff

        golden = self.path(name)
        try:
            records = _records(messages_or_path)
        except DiffError as exc:
            pytest.fail(f"cannot read the transcript: {exc}", pytrace=False)
        if self.update:
            data = b"".join(_line(r) for r in records)
            if not golden.exists() or golden.read_bytes() != data:
                golden.parent.mkdir(parents=True, exist_ok=True)
                golden.write_bytes(data)
                self.written.append(golden)
            return
        if not golden.exists():
            pytest.fail(
                f"no golden transcript {golden}: run pytest {UPDATE_OPTION} to write it",
                pytrace=False,
            )
        try:
            result = diff(
                golden,
                records,
                match=match,
                compare=compare,
                ignore_paths=ignore_paths,
                names=(str(golden), f"{name} (this run)"),
            )
        except DiffError as exc:
            pytest.fail(str(exc), pytrace=False)
        if result.problems or not result.same:
            pytest.fail(
                f"transcript {name!r} differs from {golden} "
                f"(run pytest {UPDATE_OPTION} to accept it):\n{_text(result)}",
                pytrace=False,
            )


def _records(source: Any) -> list[dict]:
    """The conversation as dialect records: a log's messages (an event log replayed), or
    the messages or records given."""
    from .dialects import DIALECTS
    from .model import Message

    if isinstance(source, (str, Path)):
        from .compare import DiffError
        from .stream import LogReader

        path = Path(source)
        if not path.is_file():
            raise DiffError(f"{source}: no such file")
        records, problems = [], []
        for item in LogReader(str(source)).items(path):
            if item.raw is not None:
                records.append(item.raw)
            elif item.message is None:
                problems.append(f"{source}:{item.line}: {item.code} {item.notice}")
        if problems:  # a transcript with lines that cannot be read is no golden transcript
            raise DiffError("\n".join(problems))
        return records
    out = []
    for entry in source:
        if isinstance(entry, Message):
            out.append(DIALECTS[entry.dialect].write(entry))
        elif isinstance(entry, dict):
            out.append(entry)
        else:
            raise TypeError(f"not a message or a record: {type(entry).__name__}")
    return out


def _line(record: dict) -> bytes:
    from .writer import dumps

    return dumps(record) + b"\n"


def _text(result: Any) -> str:
    import io

    from .render.diff import print_diff
    from .render.view import console_for

    out = io.StringIO()
    console = console_for(out, colour=False, width=100)
    print_diff(console, result, marks=True)
    return out.getvalue()


@pytest.fixture
def transcript_snapshot(request: Any) -> TranscriptSnapshot:
    """Compare a conversation with ``__snapshots__/NAME.jsonl`` beside the test file:
    ``transcript_snapshot.assert_match(messages_or_path, "NAME")``."""
    folder = Path(str(request.node.fspath)).parent / "__snapshots__"
    return TranscriptSnapshot(folder, bool(request.config.getoption(UPDATE_OPTION)))
