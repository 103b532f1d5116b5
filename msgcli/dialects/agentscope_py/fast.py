"""The fast path of validation for AgentScope Python records (see ``Dialect.fast_digest``)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ...model import (
    DataBlock,
)
from ..base import DIGEST_CALL as _CALL
from ..base import DIGEST_RESULT as _RESULT
from ..base import (
    Dialect,
    has_words,
    id_key,
    micros,
    object_text,
)
from ..media import source_is_clean
from .records import (
    BLOCK2_KEYSETS,
    ISO_WRITTEN,
    MSG2_KEYSET,
    TEXT2_KEYSET,
    USAGE2_KEYSET,
    V2,
    message_part_key,
    read_block_v2,
)


def _fast_iso(value: Any) -> bool:
    return type(value) is str and ISO_WRITTEN.match(value) is not None


def data_is_clean(item: dict, path: tuple) -> bool:
    """A data block whose source passes the media checks."""

    block = read_block_v2(item, path, nested=False)
    return isinstance(block, DataBlock) and block.source is not None and source_is_clean(block)


def _fast_output(items: list) -> bool:
    """A tool result's output holds only text blocks as the framework writes them."""
    for item in items:
        if type(item) is not dict or item.get("type") != "text" or item.keys() != TEXT2_KEYSET:
            return False
        if not _fast_iso(item["created_at"]):
            return False
        finished = item["finished_at"]
        if finished is not None and not _fast_iso(finished):
            return False
    return True


class FastPath(Dialect):
    """The fast path of validation, for 2.x records as ``model_dump_json`` writes them."""

    fast_covers = frozenset(
        {
            "S003",  # exact key sets: the message, its usage, every block and result output
            "S004",  # ... which also leave no key out
            "T004",  # a call's argument text is a JSON object (object_text)
            "T005",  # ... so not empty either
            "T007",  # results only in assistant and system messages
            "T008",  # no call named __...
            "C001",  # every time in isoformat as the framework writes it
            "M001",  # a data block's source passes the media checks themselves
            "M002",
            "M003",
            "M004",
            "B001",  # some block that is not empty text
            "B002",  # no error, and no finished_reason "error"
        }
    )

    def fast_digest(self, obj: dict) -> tuple[str | None, tuple] | None:
        # a 2.x record as model_dump_json writes it: every key, nothing else, times in
        # isoformat, text/thinking/hint/tool blocks; anything else takes the full path
        if obj.keys() != MSG2_KEYSET:
            return None
        created = obj["created_at"]
        if type(created) is not str or not ISO_WRITTEN.match(created) or not created.isascii():
            return None
        try:
            when = datetime.fromisoformat(created)
        except ValueError:
            return None
        finished = obj["finished_at"]
        if finished is not None and not _fast_iso(finished):
            return None
        usage = obj["usage"]
        if usage is not None and (type(usage) is not dict or usage.keys() != USAGE2_KEYSET):
            return None
        if obj["error"] is not None or obj["finished_reason"] == "error":
            return None
        content = obj["content"]
        if type(content) is not list:
            return None
        results_allowed = obj["role"] in ("assistant", "system")
        empty = True
        tools: list[tuple] = []
        for index, block in enumerate(content):
            if type(block) is not dict:
                return None
            kind = block.get("type")
            if type(kind) is not str or block.keys() != BLOCK2_KEYSETS.get(kind):
                return None
            if not _fast_iso(block["created_at"]):
                return None
            finished = block["finished_at"]
            if finished is not None and not _fast_iso(finished):
                return None
            if kind == "text":
                if has_words(block["text"]):
                    empty = False
                continue
            empty = False
            if kind == "thinking":
                continue
            if kind == "hint":
                if type(block["hint"]) is not str:
                    return None
                continue
            bid = block["id"]
            if type(bid) is not str or not bid:
                return None
            name = block["name"]
            if kind == "tool_call":
                text = block["input"]
                if type(name) is not str or name.startswith("__") or type(text) is not str:
                    return None
                if not object_text(text):
                    return None
                tools.append((_CALL, bid, ("content", index), name, block["state"], bid))
            elif kind == "tool_result" and results_allowed:
                output = block["output"]
                if type(output) is list and not _fast_output(output):
                    return None
                tools.append((_RESULT, bid, ("content", index), name, bid))
            elif kind == "data":
                if not data_is_clean(block, ("content", index)):
                    return None
            else:
                return None  # a result in a user message
        if empty:
            return None
        mid = obj["id"]
        first = content[0].get("id") if content else None
        digest = (id_key(mid), mid, micros(when), None, tuple(tools))
        return V2, digest if first is None else (
            *digest,
            message_part_key(obj["role"], obj["name"], first, obj["finished_reason"] is None),
        )
