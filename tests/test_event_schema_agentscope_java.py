"""The AgentScope Java event schema (``schemas/agentscope-java/event.schema.json``).

Two tables drive it (``fixtures/cases/agentscope-java-events``, see its README): events the
schema accepts, one of every event type at least, and events it rejects, one a kind of
mistake. Each case says why; a rejected case says whether Jackson itself fails to read the
event or msgcli is stricter than Jackson (a scalar coercion, the ``createdAt`` form).
"""

from __future__ import annotations

import json
import re

import jsonschema
import pytest
from conftest import FIXTURES, resolve_pointer, values_of
from samples import lines

from msgcli.schemas import compiled, explain, load_schema

NAME = "agentscope-java/event"
MESSAGE_ID = "urn:msgcli:schema:agentscope-java:message"
CASES = FIXTURES / "cases" / "agentscope-java-events"
ACCEPTED = {c["case"]: c for c in lines(CASES / "accepted.jsonl")}
REJECTED = {c["case"]: c for c in lines(CASES / "rejected.jsonl")}

#: AgentEventType at c2d43f86e, in declaration order (spec §3.1)
EVENT_TYPES = (
    "AGENT_START",
    "AGENT_END",
    "AGENT_RESULT",
    "MODEL_CALL_START",
    "MODEL_CALL_END",
    "TEXT_BLOCK_START",
    "TEXT_BLOCK_DELTA",
    "TEXT_BLOCK_END",
    "THINKING_BLOCK_START",
    "THINKING_BLOCK_DELTA",
    "THINKING_BLOCK_END",
    "DATA_BLOCK_START",
    "DATA_BLOCK_DELTA",
    "DATA_BLOCK_END",
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
    "EXTERNAL_EXECUTION_RESULT",
    "REQUEST_STOP",
    "SUBAGENT_EXPOSED",
    "HINT_BLOCK",
    "ALL_TOOLS_DENIED",
    "CUSTOM",
)
CREATED_AT = "2026-08-22T15:15:55.901Z"


@pytest.fixture(scope="module")
def schema():
    return compiled(NAME)


def _python_errors(schema, event) -> list:
    return list(schema.errors(event))


# -- the schema itself -----------------------------------------------------------------


def test_schema_is_valid_draft_2020_12_with_its_id():
    raw = load_schema(NAME)
    jsonschema.Draft202012Validator.check_schema(raw)
    assert raw["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert raw["$id"] == "urn:msgcli:schema:agentscope-java:event"


def test_schema_dispatches_exactly_the_known_event_types():
    raw = load_schema(NAME)
    chosen = []
    for branch in raw["allOf"]:
        match = branch["if"]["properties"]["type"]
        chosen += [match["const"]] if "const" in match else match["enum"]
        assert branch["if"]["required"] == ["type"]
        assert set(branch["then"]) == {"$ref"}
    assert sorted(chosen) == sorted(EVENT_TYPES)
    assert '"oneOf"' not in json.dumps(raw)


def test_nested_structures_refer_to_the_message_schema_by_absolute_uri():
    raw = load_schema(NAME)
    message = load_schema("agentscope-java/message")
    outside = {ref for ref in values_of(raw, "$ref") if not ref.startswith("#")}
    assert outside == {
        MESSAGE_ID,
        f"{MESSAGE_ID}#/$defs/toolUseBlock",
        f"{MESSAGE_ID}#/$defs/toolResultBlock",
        f"{MESSAGE_ID}#/$defs/block",
        f"{MESSAGE_ID}#/$defs/chatUsage",
        f"{MESSAGE_ID}#/$defs/int32",
    }
    for ref in outside:
        resolve_pointer(message, ref.partition("#")[2])  # every target exists
    for ref in values_of(raw, "$ref"):
        if ref.startswith("#"):
            resolve_pointer(raw, ref[1:])


def test_patterns_have_descriptions():
    """A failed pattern's message quotes the description of the schema holding it."""
    raw = load_schema(NAME)
    for key, sub in raw["$defs"].items():
        if "pattern" in sub:
            assert sub.get("description"), key
            assert sub["pattern"].endswith("$(?!\\n)"), key


# -- the case tables -------------------------------------------------------------------


def test_case_tables_are_well_formed():
    assert len(ACCEPTED) + len(REJECTED) >= 80
    for case in [*ACCEPTED.values(), *REJECTED.values()]:
        assert set(case) == {"case", "event", "why"}
        assert case["why"]
    for case in REJECTED.values():
        assert case["why"].startswith(
            ("Jackson rejects it: ", "Jackson reads it, msgcli is stricter: ")
        ), case["case"]


def test_every_event_type_has_an_accepted_example():
    seen = {c["event"].get("type") for c in ACCEPTED.values()}
    assert set(EVENT_TYPES) <= seen


@pytest.mark.parametrize("name", list(ACCEPTED))
def test_accepted_case_passes_in_both_engines(schema, name):
    event = ACCEPTED[name]["event"]
    assert schema.is_valid(event)
    assert _python_errors(schema, event) == []


@pytest.mark.parametrize("name", list(ACCEPTED))
def test_accepted_case_passes_with_the_type_key_written_twice(schema, name):
    """Jackson writes ``type`` first and last; Python's parser keeps the last value."""
    event = ACCEPTED[name]["event"]
    body = json.dumps({k: v for k, v in event.items() if k != "type"})[1:-1]
    kind = json.dumps(event["type"])
    text = f'{{"type": {kind}, {body}, "type": {kind}}}'
    assert schema.is_valid(json.loads(text))


@pytest.mark.parametrize("name", list(REJECTED))
def test_rejected_case_fails_with_located_findings(schema, name):
    event = REJECTED[name]["event"]
    assert not schema.is_valid(event)
    findings = explain(schema, event)
    assert findings, "the explaining engine found nothing the fast engine rejected"
    for code, message, pointer in findings:
        assert code in ("S001", "S002")
        assert message
        # a pointer names the bad value, or the object that lacks a key
        resolve_pointer(event, pointer)


#: case -> (code, pointer, a piece of the message) of the one finding it must give
EXPLAINED = {
    "type missing": ("S001", "", "'type' is a required property"),
    "type lower case": ("S001", "/type", "upper-case event type name"),
    "type not a string": ("S001", "/type", "expected string, got an integer"),
    "createdAt missing": ("S001", "", "'createdAt' is a required property"),
    "createdAt with an offset": ("S001", "/createdAt", "Instant.toString()"),
    "createdAt as epoch millis": ("S001", "/createdAt", "expected string, got an integer"),
    "id a number": ("S001", "/id", "expected string or null, got an integer"),
    "metadata a string": ("S001", "/metadata", "expected object or null"),
    "TOOL_RESULT_END state upper case": ("S001", "/state", '"SUCCESS" is not one of "success"'),
    "EXCEED_MAX_ITERS maxIters a string": ("S001", "/maxIters", "expected integer or null"),
    "MODEL_CALL_END count beyond int": ("S001", "/usage/outputTokens", "out of range"),
    "REQUIRE_USER_CONFIRM null call": ("S001", "/toolCalls/1", "expected object, got null"),
    "REQUIRE_USER_CONFIRM text block": ("S001", "/toolCalls/0/type", '"text" is not "tool_use"'),
    "REQUIRE_USER_CONFIRM state upper case": ("S001", "/toolCalls/0/state", '"ASKING"'),
    "EXTERNAL_EXECUTION_RESULT with a tool_use": (
        "S001",
        "/toolResults/0/type",
        '"tool_use" is not "tool_result"',
    ),
    "PermissionRule in camelCase": (
        "S001",
        "/confirmResults/0/rules/0",
        "'tool_name' is a required property",
    ),
    "PermissionRule behavior unknown": (
        "S001",
        "/confirmResults/0/rules/0/behavior",
        "allow, deny, ask or passthrough",
    ),
    "REQUEST_STOP generateReason lower case": ("S001", "/generateReason", "PERMISSION_ASKING"),
    "TOOL_RESULT_DATA_DELTA image without source": (
        "S001",
        "/data",
        "'source' is a required property",
    ),
    "AGENT_RESULT role lower case": ("S001", "/result/role", '"assistant" is not one of'),
    "AGENT_RESULT message without role": ("S001", "/result", "'role' is a required property"),
    # the role/block rule of the message schema keeps its own code inside an event
    "AGENT_RESULT USER message with a tool call": ("S002", "/result/content/0/type", "tool_use"),
}


def test_explained_cases_exist():
    assert set(EXPLAINED) <= set(REJECTED)


@pytest.mark.parametrize("name", list(EXPLAINED))
def test_explain_gives_one_finding_at_the_bad_value(schema, name):
    code, pointer, piece = EXPLAINED[name]
    findings = explain(schema, REJECTED[name]["event"])
    assert [(c, p) for c, _, p in findings] == [(code, pointer)]
    assert piece in findings[0][1]


# -- what is an error and what is not --------------------------------------------------


@pytest.mark.parametrize("kind", EVENT_TYPES)
def test_only_type_and_created_at_are_required(schema, kind):
    """Jackson reads every other key as optional (a missing replyId is a warning elsewhere)."""
    assert schema.is_valid({"type": kind, "createdAt": CREATED_AT})
    assert not schema.is_valid({"type": kind})


@pytest.mark.parametrize(
    "kind", ["STATE_SNAPSHOT", "X", "TOOL_RESULT_BINARY_DELTA_V2", "RUN_STARTED", "A1_B2"]
)
def test_unknown_upper_case_type_passes(schema, kind):
    """msgcli warns about it (E009) and skips it; aliases are normalised before the schema."""
    event = {"type": kind, "id": "0" * 32, "createdAt": CREATED_AT, "anything": [1, {"x": None}]}
    assert schema.is_valid(event)
    assert _python_errors(schema, event) == []


@pytest.mark.parametrize(
    "kind", ["agent_start", "Agent_Start", "", "_AGENT", "1ST", "AGENT-START", "AGENT START"]
)
def test_type_that_is_no_upper_case_name_fails(schema, kind):
    event = {"type": kind, "createdAt": CREATED_AT}
    assert not schema.is_valid(event)
    assert [p for _, _, p in explain(schema, event)] == ["/type"]


@pytest.mark.parametrize("value", [None, 1, 1.5, True, [], {}])
def test_type_that_is_no_string_fails(schema, value):
    event = {"type": value, "createdAt": CREATED_AT}
    assert not schema.is_valid(event)
    assert [p for _, _, p in explain(schema, event)] == ["/type"]


@pytest.mark.parametrize(
    "stamp",
    [
        "2026-08-22T15:15:55Z",
        "2026-08-22T15:15:55.901Z",
        "2026-08-22T15:15:55.901234Z",
        "2026-11-22T11:52:55.313674489Z",
    ],
)
def test_created_at_in_every_instant_form_passes(schema, stamp):
    assert schema.is_valid({"type": "AGENT_END", "createdAt": stamp})


@pytest.mark.parametrize(
    "stamp",
    [
        "2026-08-22T15:15Z",
        "2026-08-22T15:15:55.9Z",
        "2026-08-22T15:15:55.9012Z",
        "2026-08-22T15:15:55.901",
        "2026-08-22T15:15:55.901z",
        "2026-08-22T15:15:55.901+00:00",
        "2026-08-22 15:15:55.901",
        "2026-08-22T15:15:55.901Z\n",
        " 2026-08-22T15:15:55.901Z",
    ],
)
def test_created_at_in_another_form_fails_in_both_engines(schema, stamp):
    event = {"type": "AGENT_END", "createdAt": stamp}
    assert not schema.is_valid(event)
    assert [(c, p) for c, _, p in explain(schema, event)] == [("S001", "/createdAt")]


@pytest.mark.parametrize("value", ["e3", "0F3A9C1E2B4D4F6A8C0E1A2B3C4D5E6F", "x" * 100, None])
def test_id_form_is_not_a_schema_error(schema, value):
    """Any string or null is read; a non-32-hex id is a warning outside the schema."""
    assert schema.is_valid({"type": "AGENT_END", "id": value, "createdAt": CREATED_AT})


def test_exceed_max_iters_takes_an_empty_reply_id(schema):
    event = {
        "type": "EXCEED_MAX_ITERS",
        "createdAt": CREATED_AT,
        "replyId": "",
        "maxIters": 10,
        "currentIter": 10,
    }
    assert schema.is_valid(event)


@pytest.mark.parametrize("behavior", ["allow", "DENY", "Ask", "passThrough"])
def test_permission_behavior_is_read_in_any_letter_case(schema, behavior):
    rule = {"tool_name": "Bash", "rule_content": "git status", "behavior": behavior, "source": "s"}
    event = {
        "type": "USER_CONFIRM_RESULT",
        "createdAt": CREATED_AT,
        "replyId": "r",
        "confirmResults": [{"confirmed": True, "toolCall": None, "rules": [rule, None]}],
    }
    assert schema.is_valid(event)


def test_readme_says_how_the_cases_were_made():
    text = (CASES / "README.md").read_text(encoding="utf-8")
    assert "c2d43f86e" in text
    assert re.search(r"Jackson", text)
