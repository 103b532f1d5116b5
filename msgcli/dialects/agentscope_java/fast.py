"""The fast path of validation for AgentScope Java records (see ``Dialect.fast_digest``)."""

from __future__ import annotations

from ..base import DIGEST_CALL as _CALL
from ..base import DIGEST_RESULT as _RESULT
from ..base import (
    has_words,
    id_key,
    micros,
    object_text,
    says_nothing,
)
from .records import (
    BLOCK_KEYS,
    MESSAGE_KEYS,
    ROLES,
    TIMESTAMP,
    USAGE_KEYS,
    V2,
    Records,
    written_time,
)
from .rules import check_total

_MESSAGE_KEYSET = frozenset(MESSAGE_KEYS)

_ROLESET = frozenset(ROLES)

_USAGE_KEYSET = frozenset(USAGE_KEYS)

_TEXT_KEYSET = frozenset(BLOCK_KEYS["text"])

#: the block types the fast path takes, each with every key Jackson writes on it
_FAST_BLOCK_KEYSETS = {
    kind: frozenset(BLOCK_KEYS[kind]) for kind in ("text", "thinking", "tool_use", "tool_result")
}


class FastPath(Records):
    """The fast path of validation, for records as Jackson writes them."""

    fast_covers = frozenset(
        {
            "S003",  # exact key sets: the message, its usage, every block and result output
            "S004",  # ... which also leave no key out
            "T004",  # a call's argument text is a JSON object (object_text)
            "T005",  # ... so not empty either
            "T007",  # results only in TOOL and ASSISTANT messages
            "T008",  # no call named __...
            "C001",  # the timestamp in Jackson's form
            "M001",  # no media blocks: only text, thinking, tool_use, tool_result
            "M002",
            "M003",
            "M004",
            "B001",  # some block that is not empty text
            "B003",  # the usage totals, by the check itself
        }
    )

    def fast_digest(self, obj: dict) -> tuple[str | None, tuple] | None:
        # a 2.x record as Jackson writes it, with text, thinking and tool blocks;
        # anything else takes the full path
        if obj.keys() != _MESSAGE_KEYSET:
            return None
        role = obj["role"]
        if role not in _ROLESET:
            return None
        stamp = obj["timestamp"]
        if type(stamp) is not str or not TIMESTAMP.fullmatch(stamp):
            return None
        when = written_time(stamp)
        if when is None:
            return None
        usage = obj["usage"]
        if usage is not None and (
            type(usage) is not dict
            or usage.keys() != _USAGE_KEYSET
            or not says_nothing(check_total, usage, ("usage",))
        ):
            return None
        metadata = obj["metadata"]
        if type(metadata) is dict and "_chat_usage" in metadata:
            chat = metadata["_chat_usage"]
            if type(chat) is dict and not says_nothing(
                check_total, chat, ("metadata", "_chat_usage")
            ):
                return None
        content = obj["content"]
        if type(content) is not list:
            return None
        results_allowed = role in ("TOOL", "ASSISTANT")
        empty = True
        tools: list[tuple] = []
        for index, block in enumerate(content):
            if type(block) is not dict:
                return None
            kind = block.get("type")
            if type(kind) is not str or block.keys() != _FAST_BLOCK_KEYSETS.get(kind):
                return None
            if kind == "text":
                if has_words(block["text"]):
                    empty = False
                continue
            empty = False
            if kind == "thinking":
                continue
            bid = block["id"]
            if type(bid) is not str or not bid:
                return None
            name = block["name"]
            if kind == "tool_use":
                if type(name) is not str or name.startswith("__"):
                    return None
                text = block["content"]
                if text is not None and (type(text) is not str or not object_text(text)):
                    return None
                state = "parked" if self.parked(obj["metadata"]) else block["state"]
                tools.append((_CALL, bid, ("content", index), name, state, bid))
            elif results_allowed:  # a tool_result
                output = block["output"]
                if type(output) is not list:
                    return None
                for item in output:
                    if type(item) is not dict or item.keys() != _TEXT_KEYSET:
                        return None
                    if item["type"] != "text":
                        return None
                tools.append((_RESULT, bid, ("content", index), name, bid))
            else:
                return None
        if empty:
            return None
        mid = obj["id"]
        return V2, (id_key(mid), mid, micros(when), None, tuple(tools))
