"""The fast path of validation must never hide a finding or change a digest.

A dialect's ``fast_digest`` may answer only for records on which the full path
(``read``, the dialect's checks, the shared per-record checks) finds nothing,
and its digest must be the one the full path makes. Checked on every message
record the fixtures hold, and on real records with values deleted or replaced.
"""

from __future__ import annotations

import orjson
import pytest
from conftest import FIXTURES, examples, log_files
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import JSON_VALUES, mutated

from msgcli.checks import check_message, digest
from msgcli.dialects import DIALECTS, MESSAGE, classify
from msgcli.schemas import compiled


def _message_records():
    out = []
    for path in log_files(FIXTURES):
        if path.suffix != ".jsonl":
            continue
        for raw in path.read_bytes().splitlines():
            try:
                obj = orjson.loads(raw)
            except orjson.JSONDecodeError:
                continue
            found = classify(obj) if isinstance(obj, dict) else None
            if found is not None and found[1] == MESSAGE:
                out.append((found[0].name, obj))
    return out


RECORDS = _message_records()


def _full_path(dialect, obj):
    """(findings, variant, digest) as the full path makes them."""
    found = []
    msg = dialect.read(obj)
    dialect.check(obj, msg, lambda *args, **kwargs: found.append(args[0]))
    check_message(dialect, msg, obj, lambda *args, **kwargs: found.append(args[0]))
    return found, msg.variant, digest(dialect, msg)


def _agrees(name: str, obj) -> bool | None:
    """Whether the fast path agrees with the full path (None: it did not answer)."""
    dialect = DIALECTS[name]
    if not compiled(f"{name}/message").is_valid(obj):
        return None
    fast = dialect.fast_digest(obj)
    if fast is None:
        return None
    found, variant, item = _full_path(dialect, obj)
    assert found == [], f"the fast path passed a record the full path faults: {found}"
    assert fast == (variant, item)
    return True


@pytest.mark.parametrize("name", ["agentscope-py", "agentscope-java", "loongflow"])
def test_fast_path_agrees_on_every_fixture_record(name):
    answered = [_agrees(n, obj) for n, obj in RECORDS if n == name]
    # the fast path is there for the records the frameworks write: it must take most of them
    assert answered.count(True) >= 40


def test_fast_path_takes_every_record_of_the_real_transcript():
    path = FIXTURES / "real" / "agentscope-py" / "transcript.jsonl"
    dialect = DIALECTS["agentscope-py"]
    for raw in path.read_bytes().splitlines():
        assert dialect.fast_digest(orjson.loads(raw)) is not None


GOOD = {
    name: [obj for n, obj in RECORDS if n == name and DIALECTS[n].fast_digest(obj) is not None]
    for name in ("agentscope-py", "agentscope-java", "loongflow")
}
TOKENS = st.sampled_from(
    [
        "",
        " ",
        "__fragment__",
        "{}",
        "[]",
        '{"a": 1}',
        "not json",
        "error",
        "USER",
        "TOOL",
        "user",
        "system",
        "text",
        "data",
        "hint",
        "tool_call",
        "tool_use",
        "tool_result",
        "2026-11-22T11:54:32.302881",
        "2026-11-22 11:54:32.302",
        "2026-13-22T11:54:32",
        "call_1",
        "x" * 40,
    ]
)


@pytest.mark.parametrize("name", ["agentscope-py", "agentscope-java", "loongflow"])
@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_fast_path_agrees_on_mutated_records(name, data):
    record = mutated(data, GOOD[name], JSON_VALUES | TOKENS)
    _agrees(name, record)


def test_typed_event_check_agrees_with_the_whole_schema():
    # is_valid_typed checks an event against its own type's branch only
    import json

    seen = 0
    for name in ("agentscope-py", "agentscope-java"):
        schema = compiled(f"{name}/event")
        folder = FIXTURES / "cases" / f"{name}-events"
        for path in sorted(folder.glob("*.jsonl")):
            for raw in path.read_text(encoding="utf-8").splitlines():
                event = json.loads(raw)["event"]
                if isinstance(event, dict):
                    assert schema.is_valid_typed(event) == schema.is_valid(event), raw
                    seen += 1
        for path in log_files(FIXTURES / "events"):
            for raw in path.read_bytes().splitlines():
                try:
                    obj = orjson.loads(raw)
                except orjson.JSONDecodeError:
                    continue
                if isinstance(obj, dict) and classify(obj) == (DIALECTS[name], "event"):
                    assert schema.is_valid_typed(obj) == schema.is_valid(obj), (path, raw[:80])
                    seen += 1
    assert seen > 1000
