"""The published schemas: valid Draft 2020-12, self-describing, and shipped with the package."""

from __future__ import annotations

import json

import jsonschema
import jsonschema_rs
import pytest
from conftest import ROOT, values_of

from msgcli.schemas import compiled, list_schemas, load_schema, schema_dir

NAMES = list_schemas()


def test_every_dialect_has_a_message_schema():
    assert {"agentscope-java/message", "agentscope-py/message", "loongflow/message"} <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_schema_is_valid_draft_2020_12_and_compiles_in_both_engines(name):
    schema = load_schema(name)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)
    # an event schema refers to its dialect's message schema: compiled with the registry
    compiled(name)
    dialect = name.split("/")[0]
    own = [load_schema(n) for n in NAMES if n.startswith(f"{dialect}/")]
    registry = jsonschema_rs.Registry([(s["$id"], s) for s in own])
    jsonschema_rs.validator_for(schema, registry=registry)


@pytest.mark.parametrize("name", NAMES)
def test_schema_is_self_describing(name):
    schema = load_schema(name)
    dialect, kind = name.split("/")
    assert schema["$id"] == f"urn:msgcli:schema:{dialect}:{kind}"
    assert schema.get("title") and schema.get("description")
    for key, sub in schema.get("$defs", {}).items():
        assert sub.get("description") or sub.get("title"), f"$defs/{key} has no description"


@pytest.mark.parametrize("name", NAMES)
def test_blocks_are_chosen_with_if_then_not_oneof(name):
    text = json.dumps(load_schema(name))
    assert '"oneOf"' not in text


@pytest.mark.parametrize("name", NAMES)
def test_schema_is_strict_in_form(name):
    """Every definition and property has a title and a description, references stay
    inside the schema or go to the same dialect's message schema, and no block is chosen
    with anyOf or object closed to extra keys."""
    schema = load_schema(name)
    for key, sub in schema.get("$defs", {}).items():
        assert sub.get("title") and sub.get("description"), f"$defs/{key}"
    for key, sub in schema.get("properties", {}).items():
        assert sub.get("title") and sub.get("description"), f"properties/{key}"
    refs = list(values_of(schema, "$ref"))
    message = f"urn:msgcli:schema:{name.split('/')[0]}:message"
    assert refs
    for ref in refs:
        assert ref.startswith("#/$defs/") or ref.split("#")[0] == message, ref
    text = json.dumps(schema)
    assert '"anyOf"' not in text
    assert '"additionalProperties": false' not in text


def test_schema_files_are_the_repository_schemas_in_a_checkout():
    # in a source checkout the package reads the top-level schemas/ folder itself
    assert schema_dir() in (ROOT / "schemas", ROOT / "msgcli" / "schemas")
