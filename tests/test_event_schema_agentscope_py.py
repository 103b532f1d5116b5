"""The AgentScope Python event schema (``schemas/agentscope-py/event.schema.json``).

Three tables recorded from agentscope 2.0.11 itself drive it
(``fixtures/cases/agentscope-py-events``, see its README): events the framework reads, events
it rejects (with its errors and where msgcli's S001 finding must point), and the few events on
which the schema differs from the framework on purpose. Every event the framework wrote for the
bundled logs passes, and an upper-case type the schema does not know passes too: msgcli skips
such an event with a warning (E009) instead of failing the log.
"""

from __future__ import annotations

import copy

import jsonschema
import orjson
import pytest
from conftest import FIXTURES, resolve_pointer, values_of
from samples import lines

from msgcli.schemas import compiled, explain, load_schema

NAME = "agentscope-py/event"
MESSAGE_ID = "urn:msgcli:schema:agentscope-py:message"
CASES = FIXTURES / "cases" / "agentscope-py-events"
ACCEPTED = {c["case"]: c for c in lines(CASES / "accepted.jsonl")}
REJECTED = {c["case"]: c for c in lines(CASES / "rejected.jsonl")}
DIVERGENT = {c["case"]: c for c in lines(CASES / "divergent.jsonl")}

#: EventType of agentscope 2.0.x, in declaration order (spec §5)
EVENT_TYPES = (
    "REPLY_START",
    "REPLY_END",
    "MODEL_CALL_START",
    "MODEL_CALL_END",
    "TEXT_BLOCK_START",
    "TEXT_BLOCK_DELTA",
    "TEXT_BLOCK_END",
    "DATA_BLOCK_START",
    "DATA_BLOCK_DELTA",
    "DATA_BLOCK_END",
    "THINKING_BLOCK_START",
    "THINKING_BLOCK_DELTA",
    "THINKING_BLOCK_END",
    "HINT_BLOCK",
    "TOOL_CALL_START",
    "TOOL_CALL_DELTA",
    "TOOL_CALL_END",
    "TOOL_RESULT_START",
    "TOOL_RESULT_TEXT_DELTA",
    "TOOL_RESULT_DATA_DELTA",
    "TOOL_RESULT_END",
    "EXCEED_MAX_ITERS",
    "REQUIRE_USER_CONFIRM",
    "REQUIRE_EXTERNAL_EXECUTION",
    "USER_CONFIRM_RESULT",
    "USER_INTERRUPT",
    "EXTERNAL_EXECUTION_RESULT",
    "CUSTOM",
)


def _framework_events() -> list[tuple[str, dict]]:
    """Every event agentscope wrote for the bundled logs: ``fixtures/real`` and the scenario
    logs of ``fixtures/events`` (their ``-final`` files are messages, ``invalid/`` is edited
    by hand, and a line cut short on purpose is no event)."""
    paths = sorted((FIXTURES / "real" / "agentscope-py").glob("events*.jsonl"))
    paths += sorted((FIXTURES / "events" / "agentscope-py").glob("*.jsonl"))
    out = []
    for path in paths:
        if path.name.endswith("-final.jsonl"):
            continue
        for number, raw in enumerate(path.read_bytes().splitlines(), 1):
            try:
                value = orjson.loads(raw)
            except orjson.JSONDecodeError:
                continue
            out.append((f"{path.parent.name}/{path.name}:{number}", value))
    return out


FRAMEWORK_EVENTS = _framework_events()


@pytest.fixture(scope="module")
def schema():
    return compiled(NAME)


# -- the schema itself -----------------------------------------------------------------


def test_schema_is_valid_draft_2020_12_with_its_id():
    raw = load_schema(NAME)
    jsonschema.Draft202012Validator.check_schema(raw)
    assert raw["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert raw["$id"] == "urn:msgcli:schema:agentscope-py:event"


def test_schema_dispatches_exactly_the_28_event_types():
    raw = load_schema(NAME)
    chosen = []
    for branch in raw["allOf"]:
        chosen.append(branch["if"]["properties"]["type"]["const"])
        assert branch["if"]["required"] == ["type"]
        assert set(branch["then"]) == {"$ref"}
    assert sorted(chosen) == sorted(EVENT_TYPES)
    assert len(set(chosen)) == 28


def test_every_event_but_custom_requires_reply_id():
    raw = load_schema(NAME)
    for branch in raw["allOf"]:
        kind = branch["if"]["properties"]["type"]["const"]
        target = resolve_pointer(raw, branch["then"]["$ref"][1:])
        assert ("reply_id" in target["required"]) == (kind != "CUSTOM"), kind


def test_nested_structures_refer_to_the_message_schema_by_absolute_uri():
    raw = load_schema(NAME)
    message = load_schema("agentscope-py/message")
    outside = {ref for ref in values_of(raw, "$ref") if not ref.startswith("#")}
    assert outside == {
        f"{MESSAGE_ID}#/$defs/tool_call_v2",
        f"{MESSAGE_ID}#/$defs/tool_result_v2",
        f"{MESSAGE_ID}#/$defs/nested_block_v2",
        f"{MESSAGE_ID}#/$defs/error_info",
        f"{MESSAGE_ID}#/$defs/permission_rule",
    }
    for ref in outside:
        resolve_pointer(message, ref.partition("#")[2])  # every target exists
    for ref in values_of(raw, "$ref"):
        if ref.startswith("#"):
            resolve_pointer(raw, ref[1:])


def test_patterns_have_descriptions():
    """A failed pattern's message quotes the description of the schema holding it."""
    raw = load_schema(NAME)
    found = 0
    for where, sub in [("properties/type", raw["properties"]["type"]), *raw["$defs"].items()]:
        if "pattern" in sub:
            found += 1
            assert sub.get("description"), where
            assert sub["pattern"].endswith("$(?!\\n)"), where
    assert found == 3


# -- events the framework wrote --------------------------------------------------------


def test_the_framework_events_cover_most_types():
    seen = {event["type"] for _, event in FRAMEWORK_EVENTS}
    assert len(FRAMEWORK_EVENTS) >= 400
    assert len(seen) >= 18 and seen <= set(EVENT_TYPES)


@pytest.mark.parametrize(
    "event", [e for _, e in FRAMEWORK_EVENTS], ids=[i for i, _ in FRAMEWORK_EVENTS]
)
def test_every_framework_event_passes(schema, event):
    assert schema.is_valid(event), explain(schema, event)


# -- the case tables -------------------------------------------------------------------


def test_case_tables_are_well_formed():
    assert len(ACCEPTED) >= 80 and len(REJECTED) >= 100 and len(DIVERGENT) >= 5
    for case in ACCEPTED.values():
        assert set(case) == {"case", "event", "dump"}
    for case in REJECTED.values():
        assert {"case", "event", "errors"} <= set(case)
        assert set(case) <= {"case", "event", "errors", "pointer", "plain_union"}
        assert case["errors"]
    for case in DIVERGENT.values():
        assert case["library"] != case["schema"]
        assert ("dump" in case) == (case["library"] == "accepts")
        assert case["why"]


def test_every_event_type_has_a_full_and_a_minimal_accepted_example():
    for kind in EVENT_TYPES:
        assert ACCEPTED[f"{kind}, as the framework writes it"]["event"]["type"] == kind
        assert ACCEPTED[f"{kind}, only the keys without a default"]["event"]["type"] == kind


def test_an_event_as_the_framework_writes_it_is_its_own_dump():
    for kind in EVENT_TYPES:
        case = ACCEPTED[f"{kind}, as the framework writes it"]
        assert list(case["event"].items()) == list(case["dump"].items()), kind


@pytest.mark.parametrize("name", list(ACCEPTED))
def test_accepted_case_passes_in_both_engines(schema, name):
    event = ACCEPTED[name]["event"]
    assert schema.is_valid(event)
    assert list(schema.errors(event)) == []


@pytest.mark.parametrize("name", list(ACCEPTED))
def test_accepted_dump_passes_too(schema, name):
    """What the framework makes of an accepted event is itself accepted."""
    assert schema.is_valid(ACCEPTED[name]["dump"])


@pytest.mark.parametrize("kind", EVENT_TYPES)
def test_no_key_of_a_minimal_event_can_go(schema, kind):
    """The minimal events hold only keys without a default: each one is required (for the
    DATA deltas, the one data source is)."""
    event = ACCEPTED[f"{kind}, only the keys without a default"]["event"]
    for key in event:
        if key != "type":
            smaller = {k: v for k, v in event.items() if k != key}
            assert not schema.is_valid(smaller), key


@pytest.mark.parametrize("name", list(REJECTED))
def test_rejected_case_fails_with_located_findings(schema, name):
    case = REJECTED[name]
    event = case["event"]
    assert not schema.is_valid(event)
    findings = explain(schema, event)
    assert findings, "the explaining engine found nothing the fast engine rejected"
    assert any(code == "S001" for code, _, _ in findings)
    for code, message, pointer in findings:
        assert code == "S001" and message
        resolve_pointer(event, pointer)  # names the bad value, or the object that lacks a key
    if "pointer" in case:
        at = [message for code, message, pointer in findings if pointer == case["pointer"]]
        assert at, findings
        first = case["errors"][0]
        if first["type"] == "missing":
            assert any(repr(first["loc"][-1]) in message for message in at), at


def test_most_rejected_cases_have_a_predicted_pointer():
    assert sum("pointer" in c for c in REJECTED.values()) >= 0.9 * len(REJECTED)


#: case -> (pointer, a piece of the message) of a finding it must give
EXPLAINED = {
    "no type": ("", "'type' is a required property"),
    "type in lower case": ("/type", "upper-case event name"),
    "type is a number": ("/type", "expected string, got an integer"),
    "TEXT_BLOCK_DELTA without reply_id": ("", "'reply_id' is a required property"),
    "camelCase replyId instead of reply_id": ("", "'reply_id' is a required property"),
    "metadata null": ("/metadata", "expected object, got null"),
    "REPLY_START role tool": ("/role", '"tool" is not one of "user", "assistant", "system"'),
    "REPLY_END finished_reason stop": ("/finished_reason", '"stop" is not one of'),
    "REPLY_END error type quota": ("/error/type", '"quota" is not one of'),
    "MODEL_CALL_END tokens as words": ("/output_tokens", "a whole number"),
    "MODEL_CALL_END tokens with a fraction": ("/input_tokens", "not a multiple of 1"),
    "MODEL_CALL_END finished_reason error (only completed or interrupted)": (
        "/finished_reason",
        '"error" is not one of "completed", "interrupted"',
    ),
    "DATA_BLOCK_DELTA with both data and url": ("", "and both are"),
    "DATA_BLOCK_DELTA with neither data nor url": ("", "and neither is"),
    "TOOL_RESULT_DATA_DELTA with both data and url": ("", "and both are"),
    "TOOL_RESULT_END state in upper case": ("/state", '"SUCCESS" is not one of'),
    "REQUIRE_USER_CONFIRM tool call input as an object": (
        "/tool_calls/0/input",
        "expected string, got an object",
    ),
    "REQUIRE_USER_CONFIRM a text block among the tool calls": (
        "/tool_calls/0/type",
        '"text" is not "tool_call"',
    ),
    "USER_CONFIRM_RESULT confirmed as text maybe": ("/confirm_results/0/confirmed", "true or"),
    "HINT_BLOCK hint list with a thinking block": ("/hint/0/type", '"thinking" is not one of'),
    "CUSTOM value a list": ("/value", "expected object, got an array"),
}


@pytest.mark.parametrize("name", list(EXPLAINED))
def test_explained_findings(schema, name):
    pointer, piece = EXPLAINED[name]
    findings = explain(schema, REJECTED[name]["event"])
    assert any(p == pointer and piece in m for _, m, p in findings), findings


def test_an_event_without_type_is_guessed_by_the_plain_union_only():
    """The channels' plain TypeAdapter(AgentEvent) guesses a class for an event without
    ``type``; the middleware's discriminated reader rejects it, and so does the schema."""
    assert REJECTED["no type"]["plain_union"] == "TextBlockDeltaEvent"
    assert REJECTED["no type"]["errors"][0]["type"] == "union_tag_not_found"


@pytest.mark.parametrize("name", list(DIVERGENT))
def test_divergent_case_gets_the_schema_verdict_it_lists(schema, name):
    case = DIVERGENT[name]
    want = case["schema"] == "accepts"
    assert schema.is_valid(case["event"]) is want
    assert (list(schema.errors(case["event"])) == []) is want


# -- event types -----------------------------------------------------------------------


def _event(kind: str, **keys) -> dict:
    base = copy.deepcopy(ACCEPTED["TEXT_BLOCK_DELTA, as the framework writes it"]["event"])
    return {**base, "type": kind, **keys}


@pytest.mark.parametrize(
    "kind", ["BRAND_NEW_EVENT", "AGENT_START", "REPLY_START2", "X", "TOOL_RESULT_BINARY_DELTA"]
)
def test_unknown_upper_case_type_passes(schema, kind):
    assert schema.is_valid(_event(kind))
    assert schema.is_valid({"type": kind})
    # the type's own keys are unknown, the keys every event has are still checked
    assert schema.is_valid({"type": kind, "reply_id": 5, "name": None})
    assert not schema.is_valid({"type": kind, "metadata": "not an object"})


@pytest.mark.parametrize(
    "kind",
    ["text_block_delta", "Text_Block_Delta", "TEXT-BLOCK-DELTA", "_TEXT", "1TEXT", "", " X", "X\n"],
)
def test_type_not_in_upper_case_fails(schema, kind):
    event = _event(kind)
    assert not schema.is_valid(event)
    assert ("S001", "/type") in {(code, pointer) for code, _, pointer in explain(schema, event)}


@pytest.mark.parametrize("kind", [None, 1, True, ["TEXT_BLOCK_DELTA"], {"name": "X"}])
def test_type_not_a_string_fails(schema, kind):
    event = _event("TEXT_BLOCK_DELTA")
    event["type"] = kind
    assert not schema.is_valid(event)
    findings = explain(schema, event)
    assert any(p == "/type" and m.startswith("expected string") for _, m, p in findings)


def test_type_missing_fails(schema):
    event = _event("TEXT_BLOCK_DELTA")
    del event["type"]
    assert not schema.is_valid(event)
    assert explain(schema, event) == [("S001", "'type' is a required property", "")]


def test_known_type_checks_its_keys_but_unknown_keys_are_free(schema):
    event = _event("TEXT_BLOCK_DELTA", seq=3, replyId=None, nested={"a": [1]})
    assert schema.is_valid(event)
    del event["reply_id"]
    assert not schema.is_valid(event)
