"""The fast path of validation for LoongFlow records (see ``Dialect.fast_digest``)."""

from __future__ import annotations

from typing import Any

from ...guard import json_text
from ...model import DataBlock
from ..base import DIGEST_CALL as _CALL
from ..base import DIGEST_RESULT as _RESULT
from ..base import Dialect
from ..media import source_is_clean
from .records import ELEMENT_KEYS, MEDIA_PREFIXES, MESSAGE_KEYS, follows, media_source
from .rules import USUAL_ROLES
from .written import written_ids, written_time

_MESSAGE_KEYSET = frozenset(MESSAGE_KEYS)

_CONTENT_KEYSET = frozenset(ELEMENT_KEYS["content"])

#: the element types the fast path takes, each with every key to_dict() writes on it
_FAST_ELEMENT_KEYSETS = {
    kind: frozenset(ELEMENT_KEYS[kind])
    for kind in ("content", "think", "tool_call", "function", "tool_output")
}


def content_is_clean(el: dict, path: tuple) -> bool:
    """A content element that is not plain text: a JSON value, or media whose data
    passes the media checks."""
    return data_is_clean(el.get("data"), el.get("mime_type", "text/plain"), path)


def data_is_clean(data: Any, mime_type: Any, path: tuple) -> bool:
    """The data of a content element at ``path`` that is not plain text: a JSON value, or
    media that passes the media checks (as :func:`read_element` reads it)."""
    if not isinstance(mime_type, str) or not isinstance(data, str):
        return True  # a value
    base = mime_type.split(";")[0].strip().lower()
    if base == "text/plain":
        return False  # text
    if not base.startswith(MEDIA_PREFIXES):
        return True  # a value
    source = media_source(data, mime_type)
    return source_is_clean(DataBlock(type="data", path=path, kind="content", source=source))


def _plain_text(el: dict) -> bool:
    mime_type = el["mime_type"]
    return (
        type(el["data"]) is str
        and type(mime_type) is str
        and mime_type.split(";")[0].strip().lower() == "text/plain"
    )


class FastPath(Dialect):
    """The fast path of validation, for records as ``to_dict()`` writes them."""

    fast_covers = frozenset(
        {
            "S003",  # exact key sets: the message and every element
            # the dialect's own checks, asked of the values themselves
            "S004",
            "S005",
            "S006",
            "T009",
            "I003",
            "C001",
            "B004",
            "T004",  # LoongFlow keeps no argument text (tool_input_key is None)
            "T005",
            "T007",  # results only in tool messages
            "T008",  # no call named __...
            "M001",  # media pass the media checks themselves
            "M002",
            "M003",
            "M004",
            "B001",  # some element that is not empty text
        }
    )

    def fast_digest(self, obj: dict) -> tuple[str | None, tuple] | None:
        # a record as to_dict() writes it, of plain-text content, thoughts and tool
        # elements; what the dialect's checks and the shared checks would look at is looked
        # at here (the engine asks only of a record the schema accepts)
        if obj.keys() != _MESSAGE_KEYSET:
            return None
        role = obj["role"]
        if type(role) is not str or role not in USUAL_ROLES:
            return None  # (S006)
        content = obj["content"]
        mid = obj["id"]
        stamp = obj["timestamp"]
        if type(content) is not list or type(mid) is not str or type(stamp) is not str:
            return None
        # the ids, to be read all at once (see written_ids)
        ids = mid
        count = 1
        empty = True
        tools: list[tuple] = []
        for index, el in enumerate(content):
            if type(el) is not dict:
                return None
            kind = el.get("type")
            if type(kind) is not str or el.keys() != _FAST_ELEMENT_KEYSETS.get(kind):
                return None
            if kind == "content":
                if not _plain_text(el):
                    if not content_is_clean(el, ("content", index)):
                        return None
                    empty = False
                elif el["data"].strip():
                    empty = False
                continue
            empty = False
            if kind == "think":
                if type(el["content"]) is not str:
                    return None
                continue
            cid = el["call_id"]
            if type(cid) is not str:
                return None
            ids += "|" + cid
            count += 1
            if kind == "tool_output":
                result = el["result"]
                if role != "tool" or type(result) is not list:
                    return None
                for at, item in enumerate(result):
                    if type(item) is not dict or item.keys() != _CONTENT_KEYSET:
                        return None
                    if item["type"] != "content":
                        return None
                    if not _plain_text(item) and not content_is_clean(
                        item, ("content", index, "result", at)
                    ):
                        return None
                tools.append((_RESULT, cid, ("content", index), el["tool_name"], cid))
            else:  # tool_call, function
                name = el["target"]
                if type(name) is str and name.startswith("__"):
                    return None  # (T008)
                metadata = el["metadata"]
                if type(metadata) is dict and "tool_arguments_err" in metadata:
                    error = metadata["tool_arguments_err"]
                    if not (error is None or error == "" or error is False):
                        return None  # (T009)
                tools.append((_CALL, cid, ("content", index), name, None, cid))
        if empty:
            return None  # (B001)
        # every id a UUID as LoongFlow writes it (I003), the timestamp too (C001); the
        # canonical form is its own pair key
        if not written_ids(ids, count):
            return None
        written, when = written_time(stamp)
        if not written:
            return None
        group = None if when is None else obj["conversation_id"]
        if not (group is None or isinstance(group, (str, int))):
            group = json_text(group)  # the same key as checks.digest gives it
        if when is not None and follows(obj.get("role"), obj.get("sender")):
            group = (group,)
        return None, (mid, mid, when, group, tuple(tools))
