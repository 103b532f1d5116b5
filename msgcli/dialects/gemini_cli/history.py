"""The conversation of a session file, as Gemini CLI rebuilds it when it loads one.

A session file is a journal: a header, message records, ``$set`` patches and
``$rewindTo`` records. The CLI reads it top to bottom into an ordered map of messages by
id: a message record takes the place of an earlier one with its id (the last copy wins,
where the first stood), ``$set.messages`` replaces the whole list, ``$rewindTo`` removes
the message it names and every one after it (all of them when it names none), a header
that holds ``messages`` (the single JSON document of older releases) adds them.
:class:`History` does the same, with three differences a reader of the log needs:

- when a resume rewrote the history (``$set.messages``, where each response is a parts
  list without its tokens, thoughts, model and tool calls), a message is given as the
  last copy written on a line of its own, which keeps them;
- the tool results that a resume puts in a user message of its own (``<id>_response``)
  beside the original result message are left out when that message answers the same
  calls; a call whose result only its ``toolCalls`` entry holds (a sub-agent's
  ``complete_task``) gets such a message, so every call is answered once;
- a message that is no longer in the history (rewound, or left out of a later
  ``$set.messages``) is handed on too, marked aside: a response's tokens count (the API
  billed it), ``show --all`` shows it.

The environment message the CLI writes first (``<session_context>``: the date, the
workspace, its files) is a user turn the model is sent: it is marked (``msgcli_context``)
and shown.

The whole file is held until it ends (a session is one conversation).
"""

from __future__ import annotations

from typing import Any

from .known import AGENT, CONTEXT, DROPPED, SESSION, SYNTHETIC

__all__ = ["History", "is_header", "is_message", "restated"]


def is_header(obj: dict) -> bool:
    return type(obj.get("sessionId")) is str and type(obj.get("projectHash")) is str


def is_message(obj: dict) -> bool:
    return type(obj.get("id")) is str and "$set" not in obj


def _answers(obj: dict) -> list[str]:
    content = obj.get("content")
    out = []
    if isinstance(content, list):
        for part in content:
            if isinstance(part, dict):
                fr = part.get("functionResponse")
                if isinstance(fr, dict) and isinstance(fr.get("id"), str):
                    out.append(fr["id"])
    return out


def _is_context(obj: dict) -> bool:
    content = obj.get("content")
    if obj.get("type") != "user" or not isinstance(content, list) or not content:
        return False
    first = content[0]
    text = first.get("text") if isinstance(first, dict) else None
    return isinstance(text, str) and text.startswith("<session_context>")


class History:
    """An assembler (see :meth:`msgcli.dialects.base.Dialect.assembler`)."""

    __slots__ = ("_first", "_map", "_others", "_own", "_seen", "_session", "_subagent")

    def __init__(self) -> None:
        #: id -> (line, record) in the CLI's order
        self._map: dict[str, tuple[int, dict]] = {}
        #: id -> (line, record): the last copy of each message written on a line of its own
        self._own: dict[str, tuple[int, dict]] = {}
        #: id -> (line, record): the last copy of every message met, listed in a patch too
        self._seen: dict[str, tuple[int, dict]] = {}
        self._others: list[tuple[int, dict]] = []
        self._session: Any = None
        self._subagent = False
        self._first: int | None = None

    @property
    def holding(self) -> int | None:
        return self._first

    def holds(self, mid: str) -> bool:
        """Whether the history holds a message with this id now."""
        return mid in self._map

    def feed(self, line: int, obj: dict) -> list[tuple[int, dict]]:
        if self._first is None:
            self._first = line
        if "$rewindTo" in obj:
            self._rewind(obj.get("$rewindTo"))
        elif "$set" in obj:
            patch = obj.get("$set")
            if isinstance(patch, dict):
                messages = patch.get("messages")
                if isinstance(messages, list):
                    self._map = {}
                    self._add_all(line, messages, own=False)
                session = patch.get("sessionId")
                if isinstance(session, str):
                    self._session = session
        elif is_header(obj):
            self._session = obj["sessionId"]
            if obj.get("kind") == "subagent":
                self._subagent = True
            messages = obj.get("messages")
            if isinstance(messages, list):
                self._add_all(line, messages, own=True)
        elif is_message(obj):
            mid = obj["id"]
            self._map[mid] = self._own[mid] = self._seen[mid] = (line, obj)
        else:
            self._others.append((line, obj))
        return []

    def _add_all(self, line: int, messages: list, own: bool) -> None:
        """The messages a patch or a header lists; ``own``: their only copy (the single JSON
        document of older releases)."""
        for msg in messages:
            if isinstance(msg, dict) and is_message(msg):
                self._map[msg["id"]] = self._seen[msg["id"]] = (line, msg)
                if own:
                    self._own[msg["id"]] = (line, msg)

    def _rewind(self, target: Any) -> None:
        keys = list(self._map)
        if target in self._map:
            for key in keys[keys.index(target) :]:
                del self._map[key]
        else:
            self._map = {}

    def finish(self, marked: bool = True) -> list[tuple[int, dict]]:
        """The messages, in the history's order, then those no longer in it and the records
        of no kind msgcli knows. ``marked``: each a new record holding the session (and
        sub-agent) id; else the records as fed (what the checks across records read)."""
        if self._first is None:
            return []
        marks: dict[str, Any] = {}
        if marked:
            marks[SESSION] = self._session
            if self._subagent:
                marks[AGENT] = self._session
        chosen = [self._own.get(mid, held) for mid, held in self._map.items()]
        answered: dict[str, int] = {}
        for _, obj in chosen:
            if obj.get("type") == "user" and not _synthetic(obj, self._map):
                for call in _answers(obj):
                    answered[call] = answered.get(call, 0) + 1
        out: list[tuple[int, dict]] = []
        for line, obj in chosen:
            if obj.get("type") == "user" and _synthetic(obj, self._map):
                calls = _answers(obj)
                if calls and all(answered.get(c) for c in calls):
                    continue  # the resume's restatement of results given again below
            if marked:
                record = {**obj, **marks}
                if _is_context(obj):
                    record[CONTEXT] = True
                out.append((line, record))
            else:
                out.append((line, obj))
            if obj.get("type") == "gemini":
                extra = _unanswered_results(obj, answered)
                if extra is not None:
                    out.append((line, {**extra, **marks}))
        for mid, held in self._seen.items():
            if mid not in self._map and not _synthetic(held[1], self._seen):
                line, obj = self._own.get(mid, held)
                out.append((line, {**obj, **marks, DROPPED: True}))
        for line, obj in self._others:
            out.append((line, {**obj, **marks}))
        self._first = None
        return out


def _synthetic(obj: dict, held: dict) -> bool:
    """A user message a resume made of a response's tool results (``<id>_response``)."""
    mid = obj.get("id")
    return isinstance(mid, str) and mid.endswith("_response") and mid[: -len("_response")] in held


def _unanswered_results(obj: dict, answered: dict[str, int]) -> dict | None:
    """The results of a response's calls that no user message gives, as the CLI would send
    them (a sub-agent's last call), or ``None``."""
    calls = obj.get("toolCalls")
    if not isinstance(calls, list):
        return None
    parts: list = []
    for call in calls:
        if not isinstance(call, dict):
            continue
        cid = call.get("id")
        result = call.get("result")
        if not isinstance(cid, str) or answered.get(cid) or not isinstance(result, list):
            continue
        parts.extend(
            p for p in result if isinstance(p, dict) and isinstance(p.get("functionResponse"), dict)
        )
        answered[cid] = 1
    if not parts:
        return None
    return {
        # (no id: the message is msgcli's, made of the response's own record)
        "id": None,
        "timestamp": obj.get("timestamp"),
        "type": "user",
        "content": parts,
        SYNTHETIC: True,
    }


def restated(messages: list) -> set[Any]:
    """The ids of the user messages in a listed history (``$set.messages``) that restate tool
    results another user message of the list gives (a resume's ``<id>_response``)."""
    held = {m.get("id"): m for m in messages if isinstance(m, dict)}
    answered: dict[str, int] = {}
    for msg in held.values():
        if msg.get("type") == "user" and not _synthetic(msg, held):
            for call in _answers(msg):
                answered[call] = answered.get(call, 0) + 1
    out = set()
    for mid, msg in held.items():
        if msg.get("type") == "user" and _synthetic(msg, held):
            calls = _answers(msg)
            if calls and all(answered.get(c) for c in calls):
                out.add(mid)
    return out
