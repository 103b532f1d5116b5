"""The rules on one LoongFlow record that need the dialect's knowledge (stage ``record``)."""

from __future__ import annotations

from typing import Any

from ...guard import json_text
from ...model import (
    Message,
    pointer,
)
from ...textsafe import short
from ..base import Dialect, Emit
from .records import (
    CANONICAL_UUID,
    CURRENT_ONLY,
    canonical_uuid,
    evolve_shape,
    read_time,
    uuid_form,
    uuid_form_name,
)

#: message keys ``to_dict()`` always writes but ``from_dict()`` does not require
_DEFAULTED_MESSAGE_KEYS = ("id", "timestamp", "trace_id", "conversation_id", "sender", "metadata")

_MISSING_MESSAGE_KEY = {
    "id": "'id' is missing: LoongFlow invents a fresh random id every time it loads the record",
    "timestamp": (
        "'timestamp' is missing: LoongFlow stamps the message with the time it loads the record"
    ),
    "trace_id": (
        "'trace_id' is missing: LoongFlow always writes it (loading defaults it to \"\"), "
        "so the record was edited or made elsewhere"
    ),
    "conversation_id": (
        "'conversation_id' is missing: LoongFlow always writes it (loading defaults it to \"\"), "
        "so the record was edited or made elsewhere"
    ),
    "sender": (
        "'sender' is missing: LoongFlow always writes it (loading defaults it to \"\"), "
        "so the record was edited or made elsewhere"
    ),
    "metadata": (
        "'metadata' is missing: LoongFlow always writes it (loading defaults it to {}), "
        "so the record was edited or made elsewhere"
    ),
}

_MISSING_ELEMENT_KEY = {
    "call_id": (
        "'call_id' is missing from this tool call: LoongFlow invents a fresh random one every "
        "time it loads the record, so no tool output can answer it"
    ),
    "metadata": "'metadata' is missing: LoongFlow always writes it (loading defaults it to {})",
    "mime_type": (
        "'mime_type' is missing: LoongFlow always writes it (loading defaults it to text/plain)"
    ),
    "type": (
        "'type' is missing from this tool result item: LoongFlow always writes it "
        '(loading defaults it to "content")'
    ),
    "total_cost": (
        "'total_cost' is missing from this current-shape evolve_result: LoongFlow always "
        "writes it (loading defaults it to 0.0)"
    ),
    "total_tokens": (
        "'total_tokens' is missing from this current-shape evolve_result: LoongFlow always "
        "writes it (loading defaults it to 0.0)"
    ),
}


def _missing_keys(el: dict, path: tuple, keys: tuple[str, ...], emit: Emit) -> None:
    for key in keys:
        if key not in el:
            emit("S004", _MISSING_ELEMENT_KEY[key], pointer(path))


def _check_arguments_error(el: dict, path: tuple, emit: Emit) -> None:
    metadata = el.get("metadata")
    if not isinstance(metadata, dict) or "tool_arguments_err" not in metadata:
        return
    error = metadata["tool_arguments_err"]
    if error is None or error == "" or error is False:
        return
    target = el.get("target")
    detail = error if isinstance(error, str) else json_text(error)
    if len(detail) > 120:
        detail = detail[:119] + "…"
    emit(
        "T009",
        f"LoongFlow could not parse the model's arguments for tool call "
        f"{target!r}: {detail}; its actor answers such a call with an error output",
        pointer(path, "metadata", "tool_arguments_err"),
    )


#: the roles LoongFlow names (any other string is kept, and reported: S006)
USUAL_ROLES = frozenset({"system", "user", "assistant", "tool"})

_EVOLVE_FLOATS = ("best_score", "total_cost", "total_tokens")

_EVOLVE_INTS = ("cost_time", "last_iteration", "total_iterations")


def _check_coercions(el: dict, path: tuple, emit: Emit) -> None:
    """Values pydantic's lax mode converts on load: strings and booleans for numbers,
    and whole floats for integers."""
    for key in (*_EVOLVE_FLOATS, *_EVOLVE_INTS):
        value = el.get(key)
        wants = "an integer" if key in _EVOLVE_INTS else "a number"
        if isinstance(value, bool):
            becomes = str(int(value))
        elif isinstance(value, str):
            becomes = "a number"
        elif key in _EVOLVE_INTS and isinstance(value, float) and value.is_integer():
            becomes = str(int(value))
        else:
            continue
        emit(
            "S005",
            f"{key} is {short(value)} where LoongFlow keeps {wants}: it is converted to "
            f"{becomes} on load, and other readers of the log will not do that",
            pointer(path, key),
        )


def _check_evolve_result(el: dict, path: tuple, shapes: dict[str, int], emit: Emit) -> None:
    _check_coercions(el, path, emit)
    shape = evolve_shape(el)
    if shape == "mixed":
        kinds = {
            key: "a string" if isinstance(el.get(key), str) else "a list"
            for key in ("best_solution", "evaluation")
        }
        emit(
            "B004",
            f"best_solution is {kinds['best_solution']} but evaluation is {kinds['evaluation']}: "
            "PyPI 0.0.1 wants two strings and the current LoongFlow two lists of strings, so "
            "neither version loads this element",
            pointer(path),
        )
        return
    if shape is None:
        return
    if shape == "current":
        _missing_keys(el, path, CURRENT_ONLY, emit)
    other = "current" if shape == "0.0.1" else "0.0.1"
    if other in shapes:
        emit(
            "B004",
            f"this evolve_result has the {shape} shape but the one at /content/{shapes[other]} "
            f"has the {other} shape: no LoongFlow version loads a message holding both",
            pointer(path),
        )
    shapes.setdefault(shape, path[1])


class Rules(Dialect):
    """The per-record rules only LoongFlow's records need (beyond the schema)."""

    own_rules = frozenset({"S005", "S006", "T009", "I003", "B004"})

    def check(self, obj: dict, msg: Message, emit: Emit) -> None:
        if not isinstance(obj, dict):
            return
        for key in _DEFAULTED_MESSAGE_KEYS:
            if key not in obj:
                emit("S004", _MISSING_MESSAGE_KEY[key], "")
        role = obj.get("role")
        if isinstance(role, str) and role not in USUAL_ROLES:
            emit(
                "S006",
                f"role {short(role)} is not one of system, user, assistant, tool: LoongFlow keeps "
                "it as written, and a model provider it is sent to rejects it",
                "/role",
            )
        self._check_id(obj.get("id"), "message id", "/id", emit)
        if "timestamp" in obj:
            self._check_timestamp(obj["timestamp"], emit)
        content = obj.get("content")
        if not isinstance(content, list):
            return
        shapes: dict[str, int] = {}
        for i, el in enumerate(content):
            if not isinstance(el, dict):
                continue
            path = ("content", i)
            kind = el.get("type")
            if kind == "content":
                _missing_keys(el, path, ("mime_type", "metadata"), emit)
            elif kind in ("tool_call", "function"):
                _missing_keys(el, path, ("call_id", "metadata"), emit)
                self._check_id(el.get("call_id"), "call_id", pointer(path, "call_id"), emit)
                _check_arguments_error(el, path, emit)
            elif kind == "tool_output":
                _missing_keys(el, path, ("metadata",), emit)
                self._check_id(el.get("call_id"), "call_id", pointer(path, "call_id"), emit)
                result = el.get("result")
                if isinstance(result, list):
                    for j, item in enumerate(result):
                        # another element type in a result is a schema error, not a missing key
                        if isinstance(item, dict) and item.get("type", "content") == "content":
                            keys = ("type", "mime_type", "metadata")
                            _missing_keys(item, (*path, "result", j), keys, emit)
            elif kind == "think":
                _missing_keys(el, path, ("metadata",), emit)
            elif kind == "evolve_result":
                _check_evolve_result(el, path, shapes, emit)

    @staticmethod
    def _check_id(value: Any, what: str, where: str, emit: Emit) -> None:
        if not isinstance(value, str) or not uuid_form(value):
            return
        if CANONICAL_UUID.fullmatch(value):
            return
        emit(
            "I003",
            f"{what} {value!r} is a UUID {uuid_form_name(value)}: LoongFlow accepts it but "
            f"writes {canonical_uuid(value)!r}",
            where,
        )

    @staticmethod
    def _check_timestamp(value: Any, emit: Emit) -> None:
        parsed = read_time(value)
        if parsed is None:
            return  # not accepted at all: the schema reports it
        written = parsed.written()
        if value == written:
            return
        if parsed.epoch_ms is not None:
            unit = "milliseconds" if parsed.epoch_ms else "seconds"
            text = "text" if isinstance(value, str) else "number"
            message = (
                f"timestamp {value!r} is Unix time in {unit} as a {text}: LoongFlow accepts it "
                f"but writes ISO 8601 text, here {written!r}"
            )
        else:
            message = (
                f"timestamp {value!r} is accepted but not in the form LoongFlow writes: "
                f"it writes {written!r}"
            )
        emit("C001", message, "/timestamp")
