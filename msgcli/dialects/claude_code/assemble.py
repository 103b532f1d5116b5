"""One message per API response.

Claude Code writes one ``assistant`` record per content block of a response, each with
the same ``message.id`` (and ``requestId``) and each carrying the usage of the whole
response. Records of one response need not be adjacent: the result of the first of two
parallel tool calls can come between them. :class:`Assembler` holds the records that
follow a response's first block until the response is over (another response starts,
a new prompt comes, or the file ends), then hands on the merged response first and the
held records after it, in file order. Memory: one turn at most.

A response whose ``message.id`` and ``requestId`` were counted before (a copy further
down the file) is marked so that its tokens are not counted twice.
"""

from __future__ import annotations

from typing import Any

from ...guard import as_key
from .known import REPEATED, TOOL_NAMES

#: a response is closed after this many records held behind it, whatever comes
_MAX_HELD = 10_000


def _message_id(obj: dict) -> Any:
    if obj.get("type") != "assistant":
        return None
    message = obj.get("message")
    if not isinstance(message, dict):
        return None
    mid = message.get("id")
    return mid if isinstance(mid, str) and mid else None


def _is_prompt(obj: dict) -> bool:
    """A user record that starts a new turn (not a tool result)."""
    if obj.get("type") != "user":
        return False
    message = obj.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list):
        return not any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content)
    return True


class Assembler:
    """Feeds on ``(line, record)`` in file order; gives back ``(line, record)`` with the
    records of each response merged into one (at the line of its first record)."""

    __slots__ = ("_content", "_held", "_id", "_line", "_merged", "_names", "_seen")

    def __init__(self) -> None:
        self._id: str | None = None
        self._line = 0
        self._merged: dict | None = None
        self._content: list = []
        self._held: list[tuple[int, dict]] = []
        self._seen: set[tuple[Any, Any]] = set()
        #: the tool names of the calls still waiting for their results, by call id
        self._names: dict[str, Any] = {}

    @property
    def holding(self) -> int | None:
        """The line of the open response's first record (records that come now are held
        behind it), None when no response is open."""
        return self._line if self._id is not None else None

    def feed(self, line: int, obj: dict) -> list[tuple[int, dict]]:
        mid = _message_id(obj)
        if mid is not None:
            self._note_calls(obj)
        elif obj.get("type") == "user":
            obj = self._name_results(obj)
        if mid is not None and mid == self._id:
            self._add(obj)
            return []
        out: list[tuple[int, dict]] = []
        if self._id is not None and (
            mid is not None or _is_prompt(obj) or len(self._held) >= _MAX_HELD
        ):
            out = self._flush()
        if mid is not None:
            self._start(line, obj, mid)
        elif self._id is not None:
            self._held.append((line, obj))
        else:
            out.append((line, obj))
        return out

    def _note_calls(self, obj: dict) -> None:
        content = obj["message"].get("content")
        for block in content if isinstance(content, list) else ():
            if isinstance(block, dict) and block.get("type") == "tool_use":
                tid = block.get("id")
                if isinstance(tid, str):
                    self._names[tid] = block.get("name")

    def _name_results(self, obj: dict) -> dict:
        """The record with the names of the tools its results answer (the record does not
        say; the call does)."""
        message = obj.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            return obj
        names = {}
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                tid = block.get("tool_use_id")
                if isinstance(tid, str) and tid in self._names:
                    names[tid] = self._names.pop(tid)
        if not names:
            return obj
        return {**obj, TOOL_NAMES: names}

    def finish(self) -> list[tuple[int, dict]]:
        return self._flush() if self._id is not None else []

    def _start(self, line: int, obj: dict, mid: str) -> None:
        message = dict(obj["message"])
        content = message.get("content")
        self._content = list(content) if isinstance(content, list) else []
        message["content"] = self._content
        merged = dict(obj)
        merged["message"] = message
        key = (mid, as_key(obj.get("requestId")))
        if key in self._seen:
            merged[REPEATED] = True
        else:
            self._seen.add(key)
        self._id, self._line, self._merged = mid, line, merged

    def _add(self, obj: dict) -> None:
        merged = self._merged
        assert merged is not None
        message = obj.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):
            self._content.extend(content)
        if isinstance(message, dict):
            # the last record of a response has the final stop reason and usage
            for key in ("stop_reason", "stop_sequence", "usage"):
                if key in message:
                    merged["message"][key] = message[key]

    def _flush(self) -> list[tuple[int, dict]]:
        assert self._merged is not None
        out = [(self._line, self._merged), *self._held]
        self._id, self._merged, self._content, self._held = None, None, [], []
        return out
