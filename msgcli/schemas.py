"""Finding, loading and compiling the published JSON Schemas.

Every schema is compiled once per process, twice over: jsonschema-rs decides
pass or fail for every record (fast), and the ``jsonschema`` package, imported
only when a record fails, explains the failure in detail.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import orjson

from .guard import deep_recursion
from .textsafe import short

__all__ = [
    "CompiledSchema",
    "add_schema_root",
    "compiled",
    "explain",
    "list_schemas",
    "load_schema",
    "schema_dir",
]

#: the annotation a schema puts on a subschema whose failure is another rule than S001
RULE_KEYWORD = "x-msgcli-rule"
_MAX_ERRORS_PER_RECORD = 20


@functools.lru_cache(maxsize=1)
def schema_dir() -> Path:
    """The folder holding ``<dialect>/<kind>.schema.json``.

    In an installed wheel the schemas are package data (``msgcli/schemas``);
    in a source checkout they are the repository's top-level ``schemas/``.
    """
    packaged = resources.files("msgcli") / "schemas"
    if packaged.is_dir():
        return Path(str(packaged))
    source = Path(__file__).resolve().parent.parent / "schemas"
    if source.is_dir():
        return source
    raise FileNotFoundError("msgcli's schema files are missing from this installation")


#: dialect name -> the folder holding its ``<name>/<kind>.schema.json``, for a dialect whose
#: schemas are not msgcli's own (``msgcli.dialects.register`` adds them)
_ROOTS: dict[str, Path] = {}


def add_schema_root(dialect: str, root: Path) -> None:
    """Read the schemas of ``dialect`` from ``root/<dialect>/`` rather than msgcli's own."""
    _ROOTS[dialect] = Path(root)


def list_schemas() -> list[str]:
    """Names of every schema, as ``<dialect>/<kind>`` (e.g. ``loongflow/message``)."""
    found = [schema_dir().glob("*/*.schema.json")]
    found += [(root / name).glob("*.schema.json") for name, root in _ROOTS.items()]
    return sorted(
        {f"{p.parent.name}/{p.name.removesuffix('.schema.json')}" for paths in found for p in paths}
    )


def schema_path(name: str) -> Path:
    dialect, _, kind = name.partition("/")
    path = _ROOTS.get(dialect) or schema_dir()
    path = path / dialect / f"{kind or 'message'}.schema.json"
    if not path.is_file():
        known = ", ".join(list_schemas())
        raise KeyError(f"no schema named {name!r} (known: {known})")
    return path


@functools.cache
def load_schema(name: str) -> dict:
    return orjson.loads(schema_path(name).read_bytes())


def _resources(name: str) -> list[tuple[str, dict]]:
    """``($id, schema)`` of every schema of ``name``'s dialect, for ``$ref`` across files.

    An event schema refers to its dialect's message schema for the blocks and
    messages that events carry (``urn:msgcli:schema:<dialect>:message#/$defs/...``).
    """
    dialect = name.partition("/")[0]
    out = []
    for other in list_schemas():
        if other.partition("/")[0] == dialect:
            schema = load_schema(other)
            out.append((schema["$id"], schema))
    return out


class CompiledSchema:
    """One schema, compiled for fast pass/fail and, on demand, for explanations."""

    def __init__(self, name: str):
        import jsonschema_rs

        self.name = name
        self.schema = load_schema(name)
        self._resources = _resources(name)
        self._registry = jsonschema_rs.Registry(self._resources) if self._resources else None
        self.is_valid = jsonschema_rs.validator_for(self.schema, registry=self._registry).is_valid
        self._explainer: Any = None
        self._branches = type_branches(self.schema)
        self._by_type: dict[Any, Any] = {}

    def is_valid_typed(self, instance: dict) -> bool:
        """``is_valid`` through the branches the instance's ``type`` selects.

        An event schema is an ``allOf`` of "if type is X then X's keys" items;
        for an event of type X every item whose condition does not name X holds
        trivially, so checking the schema with X's items alone gives the same
        answer in a fraction of the time. Other schemas: ``is_valid``.
        """
        if self._branches is None:
            return self.is_valid(instance)
        kind = instance.get("type")
        if type(kind) is not str or kind not in self._branches:
            kind = None  # no branch applies: one validator for every other value
        try:
            check = self._by_type[kind]
        except KeyError:
            check = self._by_type[kind] = self._branch_validator(kind)
        return check(instance)

    def _branch_validator(self, kind: str | None):
        import jsonschema_rs

        assert self._branches is not None
        derived = {key: value for key, value in self.schema.items() if key != "allOf"}
        derived["$id"] = f"{self.schema.get('$id', self.name)}/branch/{len(self._by_type)}"
        if kind is not None:
            derived["allOf"] = self._branches[kind]
        return jsonschema_rs.validator_for(derived, registry=self._registry).is_valid

    def errors(self, instance: Any) -> Iterator[Any]:
        """``jsonschema`` errors for an instance known to fail, most useful first."""
        if self._explainer is None:
            import jsonschema
            from referencing import Registry, Resource

            registry: Registry = Registry().with_resources(
                (uri, Resource.from_contents(schema)) for uri, schema in self._resources
            )
            self._explainer = jsonschema.Draft202012Validator(self.schema, registry=registry)
        yield from self._explainer.iter_errors(instance)


def type_branches(schema: dict) -> dict[str, list] | None:
    """``{type: [then, ...]}`` when the schema's ``allOf`` is made only of "if type is X
    (or one of X, Y, ...) then" items; else ``None``. Every type an item names is a type
    the schema knows."""
    items = schema.get("allOf")
    if not isinstance(items, list) or not items:
        return None
    branches: dict[str, list] = {}
    for item in items:
        if not isinstance(item, dict) or set(item) != {"if", "then"}:
            return None
        condition = item["if"]
        try:
            (keyword, value), *more = condition["properties"]["type"].items()
        except (KeyError, TypeError, AttributeError, ValueError):
            return None
        kinds = [value] if keyword == "const" else value if keyword == "enum" else None
        if more or not isinstance(kinds, list) or not kinds:
            return None
        if condition != {"properties": {"type": {keyword: value}}, "required": ["type"]}:
            return None
        for kind in kinds:
            if not isinstance(kind, str):
                return None
            branches.setdefault(kind, []).append(item["then"])
    return branches


@functools.cache
def compiled(name: str) -> CompiledSchema:
    return CompiledSchema(name)


def explain(schema: CompiledSchema, instance: Any) -> list[tuple[str, str, str]]:
    """``(code, message, pointer)`` for every error of a failing instance."""
    with deep_recursion():  # the messages quote the instance, which may nest deep (guard)
        return _explain(schema, instance)


def _explain(schema: CompiledSchema, instance: Any) -> list[tuple[str, str, str]]:
    from jsonschema.exceptions import best_match

    out: list[tuple[str, str, str]] = []
    seen: set[tuple[str, str]] = set()
    for error in schema.errors(instance):
        if error.context:
            # anyOf/oneOf: say what the closest alternative wanted, not "not valid under any".
            error = best_match(error.context)
        code = "S001"
        if isinstance(error.schema, dict):
            code = error.schema.get(RULE_KEYWORD, "S001")
        pointer = _pointer(error.absolute_path)
        if code == "S002" and error.validator == "enum":
            role = _holder_role(instance, list(error.absolute_path))
            allowed = ", ".join(map(str, error.validator_value))
            message = (
                f"a {short(role)} message may not hold a block of type {short(error.instance)} "
                f"(allowed: {allowed})"
            )
        else:
            message = _describe(error)
        if (pointer, message) in seen:
            continue
        seen.add((pointer, message))
        out.append((code, message, pointer))
        if len(out) >= _MAX_ERRORS_PER_RECORD:
            break
    out.sort(key=lambda item: item[2])
    return out


def _holder_role(instance: Any, path: list) -> Any:
    """The role of the message whose ``content`` holds the failing block (the record
    itself, or a message inside it such as a Java AGENT_RESULT's ``result``)."""
    cut = max((i for i, part in enumerate(path) if part == "content"), default=0)
    holder = instance
    for part in path[:cut]:
        try:
            holder = holder[part]
        except (KeyError, IndexError, TypeError):
            return None
    return holder.get("role") if isinstance(holder, dict) else None


def _pointer(path) -> str:
    parts = [str(p).replace("~", "~0").replace("/", "~1") for p in path]
    return "/" + "/".join(parts) if parts else ""


_JSON_TYPES = {
    dict: "an object",
    list: "an array",
    str: "a string",
    bool: "a boolean",
    int: "an integer",
    float: "a number",
    type(None): "null",
}


def _kind(value: Any) -> str:
    return _JSON_TYPES.get(type(value), type(value).__name__)


def _describe(error) -> str:
    keyword = error.validator
    expected = error.validator_value
    value = error.instance
    if keyword == "required":
        return error.message  # "'input' is a required property"
    if keyword == "type":
        wanted = expected if isinstance(expected, list) else [expected]
        return f"expected {' or '.join(map(str, wanted))}, got {_kind(value)}"
    if keyword == "enum":
        options = ", ".join(short(v, 40) for v in expected)
        return f"{short(value)} is not one of {options}"
    if keyword == "const":
        return f"{short(value)} is not {short(expected)}"
    if keyword == "pattern":
        description = error.schema.get("description") if isinstance(error.schema, dict) else None
        hint = f" ({description})" if description else f" (pattern {expected})"
        return f"{short(value)} is not in the expected form{hint}"
    if keyword in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        return f"{short(value)} is out of range ({keyword} {expected})"
    if keyword == "multipleOf":
        return f"{short(value)} is not a multiple of {expected}"
    if keyword in ("minItems", "maxItems", "minLength", "maxLength"):
        return f"{short(value)} fails {keyword} {expected}"
    if keyword == "not":
        description = error.schema.get("description") if isinstance(error.schema, dict) else None
        return description or f"{short(value)} is not allowed here"
    if keyword == "false" or expected is False:
        return "no value is allowed here"
    message = error.message
    return message if len(message) <= 200 else message[:199] + "…"
