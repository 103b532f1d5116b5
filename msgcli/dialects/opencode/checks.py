"""Checking OpenCode's storage: each record against the schema of its kind (session or
message with its parts), and the rules across records (the ``N`` family).

Kept while a database is read: the session ids met and those named as parents or by task
calls, and, for the session being read, its message ids and roles, its call ids and the
latest creation time. Nothing else.
"""

from __future__ import annotations

from typing import Any

from ...schemas import CompiledSchema, compiled, explain
from ...textsafe import short
from .known import KNOWN_PARTS, MARK
from .usage import tokens_of

__all__ = ["StorageChecker"]

#: the fields a release msgcli knows writes (on a session, a message's info, a part)
SESSION_FIELDS = frozenset(
    {
        "id", "slug", "projectID", "workspaceID", "directory", "path", "parentID", "title",
        "agent", "model", "permission", "metadata", "revert", "version", "share", "summary",
        "cost", "tokens", "time",
    }
)  # fmt: skip
INFO_FIELDS = frozenset(
    {
        "id", "sessionID", "role", "time", "agent", "model", "summary", "system", "tools",
        "variant", "format", "parentID", "modelID", "providerID", "mode", "path", "cost",
        "tokens", "finish", "error", "structured",
    }
)  # fmt: skip
_COMMON = ("id", "messageID", "sessionID", "type")
PART_FIELDS: dict[str, frozenset[str]] = {
    "text": frozenset({*_COMMON, "text", "time", "synthetic", "ignored", "metadata"}),
    "reasoning": frozenset({*_COMMON, "text", "time", "metadata"}),
    "tool": frozenset({*_COMMON, "callID", "tool", "state", "metadata"}),
    "step-start": frozenset({*_COMMON, "snapshot"}),
    "step-finish": frozenset({*_COMMON, "reason", "snapshot", "tokens", "cost"}),
    "patch": frozenset({*_COMMON, "hash", "files"}),
    "file": frozenset({*_COMMON, "mime", "filename", "url", "source"}),
    "compaction": frozenset({*_COMMON, "auto", "overflow"}),
    "snapshot": frozenset({*_COMMON, "snapshot"}),
    "agent": frozenset({*_COMMON, "name", "source"}),
    "subtask": frozenset({*_COMMON, "prompt", "description", "agent", "model", "command"}),
    "retry": frozenset({*_COMMON, "attempt", "error", "time"}),
}
ROLES = frozenset({"user", "assistant"})
_OPEN = frozenset({"pending", "running"})


class _Session:
    """What is kept of the session being read."""

    __slots__ = ("calls", "id", "last_time", "messages", "replies")

    def __init__(self, sid: Any):
        self.id = sid
        self.messages: dict[str, Any] = {}  # message id -> role
        self.replies: list[tuple[int, str, str]] = []  # (line, pointer, parentID)
        self.calls: dict[str, int] = {}  # call id -> line
        self.last_time: Any = None


def _key_ptr(*keys: Any) -> str:
    return "".join("/" + str(k).replace("~", "~0").replace("/", "~1") for k in keys)


class StorageChecker:
    """The rules of one OpenCode database or storage session
    (see :meth:`msgcli.dialects.base.Dialect.record_checker`)."""

    def __init__(self, emit: Any, name: str):
        self.emit = emit
        self.name = name
        self.schemas: dict[str, CompiledSchema] = {}
        #: session id -> line of its record
        self.sessions: dict[str, int] = {}
        #: (line, pointer, parent id) of every session that names a parent
        self.parents: list[tuple[int, str, str]] = []
        #: (line, pointer, session id) of every task call that names a sub-agent's session
        self.tasks: list[tuple[int, str, str]] = []
        self.digests: list | None = None
        #: session id -> what is kept of it while the file is read (a sub-agent's session
        #: is read inside its parent's, so several are open at once)
        self._states: dict[Any, _Session] = {}
        self._all_messages: set[str] = set()

    def _schema(self, kind: str) -> CompiledSchema:
        found = self.schemas.get(kind)
        if found is None:
            found = self.schemas[kind] = compiled(f"opencode/{kind}")
        return found

    def _validate(self, kind: str, obj: dict, recovered: bool) -> None:
        schema = self._schema(kind)
        if recovered or not schema.is_valid(obj):
            for code, message, ptr in explain(schema, obj) or [
                ("S001", f"the record does not match the {schema.name} schema", "")
            ]:
                self.emit(code, message, ptr)

    def check(self, line: int, obj: dict, recovered: bool = False) -> None:
        if "session" in obj:
            self._check_session(line, obj, recovered)
        else:
            self._check_message(line, obj, recovered)

    def feed_digest(self, line: int, item: Any) -> None:  # (never split: no digests)
        """Not used: an OpenCode database is never checked in parts."""

    # -- sessions --------------------------------------------------------------------------

    def _state(self, sid: Any) -> _Session:
        key = sid if isinstance(sid, str) else None
        found = self._states.get(key)
        if found is None:
            found = self._states[key] = _Session(key)
        return found

    def _end_session(self, state: _Session) -> None:
        messages = state.messages
        for line, ptr, parent in state.replies:
            if messages.get(parent) != "user":
                what = "no message" if parent not in messages else "no user message"
                self.emit(
                    "N008",
                    f"the reply's parentID {short(parent)} is {what} of its session",
                    ptr,
                    line=line,
                )

    def _check_session(self, line: int, obj: dict, recovered: bool) -> None:
        self._validate("session", obj, recovered)
        session = obj.get("session")
        if not isinstance(session, dict):
            return
        state = self._state(session.get("id"))
        for key in session:
            if key not in SESSION_FIELDS:
                self.emit(
                    "N002",
                    f"field {short(key)} is not one msgcli knows on a session: kept",
                    _key_ptr("session", key),
                )
        sid = state.id
        if isinstance(sid, str):
            if sid in self.sessions:
                self.emit("N006", f"session {short(sid)} is stored twice", "/session/id")
            self.sessions.setdefault(sid, line)
        parent = session.get("parentID")
        mark = obj.get(MARK)
        if isinstance(mark, dict) and (mark.get("parent_stored") or mark.get("migrated")):
            parent = None  # (a file of its own in the storage layout, or in the database)
        if isinstance(parent, str):
            self.parents.append((line, "/session/parentID", parent))

    # -- messages --------------------------------------------------------------------------

    def _check_message(self, line: int, obj: dict, recovered: bool) -> None:
        mark = obj.get(MARK)
        if not (isinstance(mark, dict) and mark.get("unread")):  # (its P001 says it all)
            self._validate("message", obj, recovered)
        emit = self.emit
        info = obj.get("info")
        if not isinstance(info, dict):
            return
        state = self._state(info.get("sessionID"))
        copy = isinstance(mark, dict) and mark.get("copy_of") is not None
        stored = mark.get("sessions_stored") if isinstance(mark, dict) else None
        stored = stored if isinstance(stored, list) else ()
        for key in info:
            if key not in INFO_FIELDS:
                emit(
                    "N002",
                    f"field {short(key)} is not one msgcli knows on a message: kept",
                    _key_ptr("info", key),
                )
        mid = info.get("id")
        sid = info.get("sessionID")
        role = info.get("role")
        under = mark.get("stored_under") if isinstance(mark, dict) else None
        if isinstance(sid, str) and isinstance(under, str) and sid != under:
            emit(
                "N006",
                f"the message names session {short(sid)} but is stored under {under}",
                "/info/sessionID",
            )
        if isinstance(mid, str):
            if mid in self._all_messages:
                emit("N006", f"message id {short(mid)} is stored twice", "/info/id")
            self._all_messages.add(mid)
            state.messages[mid] = role
        if isinstance(role, str) and role not in ROLES:
            emit("N011", f"role {short(role)} is not one msgcli knows: kept", "/info/role")
        parent = info.get("parentID")
        if role == "assistant" and isinstance(parent, str):
            state.replies.append((line, "/info/parentID", parent))
        time = info.get("time")
        time = time if isinstance(time, dict) else {}
        created = time.get("created")
        if isinstance(created, (int, float)) and not isinstance(created, bool):
            last = state.last_time
            if last is not None and created < last:
                emit(
                    "N007",
                    f"the message was created {last - created:g} ms before the one it follows",
                    "/info/time/created",
                )
            else:
                state.last_time = created
            done = time.get("completed")
            if isinstance(done, (int, float)) and not isinstance(done, bool) and done < created:
                emit("N007", "the message completed before it was created", "/info/time/completed")
        ended = time.get("completed") is not None or info.get("finish") is not None
        parts = obj.get("parts")
        if not isinstance(parts, list):
            return
        finishes = []
        for index, part in enumerate(parts):
            if not isinstance(part, dict):
                continue
            self._check_part(state, line, index, part, mid, sid, ended, copy, stored)
            if part.get("type") == "step-finish":
                finishes.append(index)
        if len(finishes) == 1 and role == "assistant" and "tokens" in info:
            step = parts[finishes[0]].get("tokens")
            if tokens_of(step) != tokens_of(info.get("tokens")):
                emit(
                    "N009",
                    "the reply's tokens differ from those of its one step-finish part "
                    "(msgcli counts the step's)",
                    f"/parts/{finishes[0]}/tokens",
                )

    def _check_part(
        self,
        state_of: _Session,
        line: int,
        index: int,
        part: dict,
        mid: Any,
        sid: Any,
        ended: bool,
        copy: bool,
        stored: Any = (),
    ) -> None:
        emit = self.emit
        at = f"/parts/{index}"
        kind = part.get("type")
        known = PART_FIELDS.get(kind) if isinstance(kind, str) else None
        if isinstance(kind, str) and kind not in KNOWN_PARTS:
            emit("N001", f"part type {short(kind)} is not one msgcli knows: kept", at + "/type")
        elif known is not None:
            for key in part:
                if key not in known:
                    emit(
                        "N002",
                        f"field {short(key)} is not one msgcli knows on a {kind} part: kept",
                        at + _key_ptr(key),
                    )
        pm = part.get("messageID")
        if isinstance(pm, str) and isinstance(mid, str) and pm != mid:
            emit("N006", f"the part names message {short(pm)} but is stored under {mid}", at)
        ps = part.get("sessionID")
        if isinstance(ps, str) and isinstance(sid, str) and ps != sid:
            emit("N006", f"the part names session {short(ps)} but its message is of {sid}", at)
        if kind != "tool":
            return
        call = part.get("callID")
        if isinstance(call, str) and call:
            seen = state_of.calls.get(call)
            if seen is not None and not copy:
                emit(
                    "N004",
                    f"call id {short(call)} was already used on line {seen} of this session",
                    at + "/callID",
                )
            state_of.calls.setdefault(call, line)
        state = part.get("state")
        if not isinstance(state, dict):
            return
        status = state.get("status")
        if status in _OPEN and ended:
            emit(
                "N003",
                f"the {short(part.get('tool'))} call {short(call)} is still {status} in a "
                "reply that has ended",
                at + "/state/status",
            )
        meta = state.get("metadata")
        child = meta.get("sessionId") if isinstance(meta, dict) else None
        if isinstance(child, str) and not copy and child not in stored:
            self.tasks.append((line, at + "/state/metadata/sessionId", child))

    def finish(self) -> None:
        for state in self._states.values():
            self._end_session(state)
        for line, ptr, parent in self.parents:
            if parent not in self.sessions:
                self.emit(
                    "N005",
                    f"the parent session {short(parent)} is not in the storage",
                    ptr,
                    line=line,
                )
        for line, ptr, child in self.tasks:
            if child not in self.sessions:
                self.emit(
                    "N010",
                    f"the sub-agent session {short(child)} the call started is not in the storage",
                    ptr,
                    line=line,
                )
