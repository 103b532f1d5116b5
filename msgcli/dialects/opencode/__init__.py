"""OpenCode: its sessions, read from its SQLite database (``opencode.db``, with the
``-wal`` beside it) or from the older ``storage/`` folders of JSON files.

OpenCode keeps a session as rows: the session, its messages (one assistant message per
model call, a *step*) and each message's parts (``text``, ``reasoning``, ``tool`` with its
state, ``step-start``/``step-finish``, ``patch``, ``compaction``...). :mod:`.store` reads
them as records of the shape ``opencode export`` writes: a session record, then a record
per message holding its parts, sub-agent sessions under the call that started them.

A message is read as one neutral message: its text, reasoning and tool calls in order,
then the results of those calls (a tool part holds both the call and its outcome).
Tokens are counted per step, from the ``step-finish`` parts (which repeat the numbers of
their message: never both), and a fork's copies of its source's messages are counted
once (see :mod:`.stats`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ...containers import Container
from ...model import (
    Block,
    DataBlock,
    HintBlock,
    Message,
    ResponseUsage,
    Source,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    UnknownBlock,
    Usage,
)
from ..base import MESSAGE, Dialect
from .known import MARK, STEP_PARTS
from .rules import RULES
from .usage import message_responses, ms_time, step_usages, time_text

__all__ = ["DIALECT", "OpenCodeDialect"]


class OpenCodeDialect(Dialect):
    name = "opencode"
    title = "OpenCode session (opencode.db, storage/ folders)"
    tool_call_id_key = "callID"
    tool_call_name_key = "tool"
    tool_arguments_key = "input"
    block_word = "part"
    distinct = True
    splittable = False
    stats_details = True
    containers = (
        Container(
            names=("opencode.db",),
            reader="msgcli.dialects.opencode.store:read_database",
            magic=b"SQLite format 3\x00",
            companions=("-wal", "-shm"),
        ),
        Container(
            names=(),
            reader="msgcli.dialects.opencode.store:read_storage",
            pattern=r"(^|/)storage/session/[^/]+/ses_[^/]*\.json$",
        ),
    )
    rules = RULES
    rule_docs = "msgcli.dialects.opencode.rules:EXPLAINED"
    own_rules = frozenset(r.code for r in RULES)

    # -- detection -----------------------------------------------------------------------

    def classify(self, obj: dict) -> str | None:
        if type(obj) is not dict:
            return None
        session = obj.get("session")
        if isinstance(session, dict) and len(obj) <= 2:
            sid = session.get("id")
            return MESSAGE if isinstance(sid, str) and sid.startswith("ses") else None
        info = obj.get("info")
        if isinstance(info, dict) and "parts" in obj and len(obj) <= 3:
            mid = info.get("id")
            if isinstance(mid, str) and mid.startswith("msg") and "sessionID" in info:
                return MESSAGE
        return None

    def variant(self, obj: dict) -> str | None:
        session = obj.get("session")
        if isinstance(session, dict):
            version = session.get("version")
            return version if isinstance(version, str) else None
        return None

    # -- reading -------------------------------------------------------------------------

    def read(self, obj: dict) -> Message:
        mark = obj.get(MARK)
        mark = mark if isinstance(mark, dict) else {}
        session = obj.get("session")
        if isinstance(session, dict):
            return _read_session(session, mark)
        info = obj.get("info")
        info = info if isinstance(info, dict) else {}
        parts = obj.get("parts")
        parts = parts if isinstance(parts, list) else []
        blocks: list[Block] = []
        results: list[Block] = []
        steps: list[dict] = []
        for index, part in enumerate(parts):
            path = ("parts", index)
            if not isinstance(part, dict):
                blocks.append(UnknownBlock("unknown", path=path, raw=part))
                continue
            kind = part.get("type")
            if kind in STEP_PARTS:
                steps.append(part)
                continue
            block, result = _part_blocks(part, path)
            if block is not None:
                blocks.append(block)
            if result is not None:
                results.append(result)
        fields: dict[str, Any] = {k: v for k, v in info.items() if k not in ("id", "role", "time")}
        fields["time"] = info.get("time")
        error = info.get("error")
        if error is not None:
            # as the other dialects give an error: its kind and its message
            fields["error"] = _error_of(error)
        if steps:
            fields["steps"] = steps
        for key in ("copy_of", "parent", "depth", "branch_of"):
            if key in mark:
                fields[key] = mark[key]
        role = info.get("role")
        usage = None
        responses = step_usages(obj)
        if responses:
            totals = [sum(t[i] for _, t in responses) for i in range(5)]
            inp, out, reasoning, read, write = totals
            usage = Usage(
                input_tokens=inp,
                output_tokens=out + reasoning,
                cached_tokens=read,
                cache_creation_tokens=write,
                total_tokens=inp + out + reasoning + read + write,
            )
            fields["reasoning_tokens"] = reasoning
            fields["responses"] = len(responses)
        name = None
        if "parent" in mark:
            agent = info.get("agent")
            name = f"{agent} (sub-agent)" if isinstance(agent, str) else "sub-agent"
        elif "branch_of" in mark and "copy_of" not in mark:
            name = f"fork of {mark['branch_of']}"
        if info.get("summary") is True and role == "assistant":
            name = "compaction summary"  # (the reply that replaces the history before it)
        time = info.get("time")
        return Message(
            self.name,
            role=role,
            name=name,
            id=info.get("id"),
            content=blocks + results,
            timestamp=time_text(time.get("created")) if isinstance(time, dict) else None,
            usage=usage,
            fields=fields,
        )

    def message_id(self, obj: dict) -> Any:
        session = obj.get("session")
        if isinstance(session, dict):
            return session.get("id")
        info = obj.get("info")
        return info.get("id") if isinstance(info, dict) else None

    def record_out(self, record: dict) -> dict:
        if MARK in record:
            return {k: v for k, v in record.items() if k != MARK}
        return record

    def carry_record(self, record: dict) -> Any:
        """The message's info and its step parts (the target holds the content as blocks)."""
        info = record.get("info")
        parts = record.get("parts")
        steps = [
            p
            for p in (parts if isinstance(parts, list) else ())
            if isinstance(p, dict) and p.get("type") in STEP_PARTS
        ]
        return {"info": info, "steps": steps} if info is not None else self.record_out(record)

    # -- what the reading commands ask ---------------------------------------------------

    def finish_reason(self, msg: Message) -> Any:
        return msg.fields.get("finish")

    def token_counts(self, msg: Message) -> tuple[Any, Any, Any] | None:
        usage = msg.usage
        if usage is None:
            return None
        return usage.input_tokens, usage.output_tokens, usage.cached_tokens

    def parse_time(self, value: Any) -> datetime | None:
        when = ms_time(value)
        return when.replace(tzinfo=None) if when is not None else None

    def aside(self, msg: Message) -> bool:
        return msg.role == "session" or msg.fields.get("copy_of") is not None

    def thread_of(self, msg: Message) -> tuple[Any, Any, Any]:
        fields = msg.fields
        session = fields.get("sessionID") if msg.role != "session" else msg.id
        parent = fields.get("parent")
        agent = fields.get("agent") if parent is not None else None
        return (
            session if isinstance(session, str) else None,
            agent if isinstance(agent, str) else None,
            parent is not None,
        )

    def parent_session(self, msg: Message, path: str = "") -> Any:
        parent = msg.fields.get("parent")
        if parent is None:
            parent = msg.fields.get("branch_of")
        if parent is None and msg.role == "session":
            parent = msg.fields.get("parentID") or msg.fields.get("fork_of")
        return parent if isinstance(parent, str) else None

    def responses(self, msg: Message) -> list[ResponseUsage]:
        return message_responses(msg)

    def note_stats(self, msg: Message, details: dict) -> None:
        from .stats import note

        note(msg, details)

    def finish_stats(self, path: str, details: dict, count: Any) -> None:
        from .stats import finish

        finish(path, details, count)

    def record_checker(self, emit: Any, name: str) -> Any:
        from .checks import StorageChecker

        return StorageChecker(emit, name)


def _error_of(error: Any) -> dict[str, Any]:
    """OpenCode's error (``{name, data: {message, statusCode, ...}}``) as msgcli gives an
    error: ``type`` and ``message``, and the rest as OpenCode wrote it under ``data``."""
    if isinstance(error, dict):
        data = error.get("data")
        message = data.get("message") if isinstance(data, dict) else None
        return {"type": error.get("name"), "message": message, "data": data}
    return {"type": None, "message": error}


def _part_blocks(part: dict, path: tuple) -> tuple[Block | None, Block | None]:
    """The block a part is read as, and the tool result it holds (if any)."""
    kind = part.get("type")
    if kind == "text":
        fields = {k: part[k] for k in ("synthetic", "ignored", "metadata") if k in part}
        return TextBlock(
            "text", id=part.get("id"), path=path, text=part.get("text", ""), fields=fields
        ), None
    if kind == "reasoning":
        return ThinkingBlock(
            "thinking", id=part.get("id"), path=path, thinking=part.get("text", "")
        ), None
    if kind == "tool":
        state = part.get("state")
        state = state if isinstance(state, dict) else {}
        status = state.get("status")
        args = state.get("input")
        call = ToolCallBlock(
            "tool_call",
            id=part.get("callID"),
            path=path,
            name=part.get("tool"),
            input=args,
            arguments=args,
            state=status if isinstance(status, str) else None,
        )
        result = None
        if status == "completed" or status == "error":
            output = state.get("output") if status == "completed" else state.get("error")
            result = ToolResultBlock(
                "tool_result",
                id=part.get("callID"),
                name=part.get("tool"),
                path=(*path, "state"),
                output=output if output is not None else "",
                state="success" if status == "completed" else "error",
                fields={"title": state["title"]} if isinstance(state.get("title"), str) else {},
            )
        return call, result
    if kind == "file":
        url = part.get("url")
        mime = part.get("mime")
        source = None
        if isinstance(url, str):
            if url.startswith("data:") and "," in url:
                source = Source("base64", data=url.split(",", 1)[1], media_type=mime, data_uri=True)
            else:
                source = Source("url", url=url, media_type=mime)
        kind_name = "image" if isinstance(mime, str) and mime.startswith("image/") else "file"
        return DataBlock(
            "data", path=path, kind=kind_name, source=source, name=part.get("filename")
        ), None
    if kind == "compaction":
        auto = " (automatic)" if part.get("auto") is True else ""
        return HintBlock(
            "hint", path=path, hint=f"[the conversation is compacted here{auto}]"
        ), None
    if kind == "subtask":
        prompt = part.get("prompt")
        return HintBlock(
            "hint", path=path, hint=f"[sub-task for {part.get('agent')}: {prompt}]"
        ), None
    return UnknownBlock("unknown", path=path, raw=part), None


def _read_session(session: dict, mark: dict) -> Message:
    title = session.get("title")
    what = "session"
    if mark.get("migrated"):
        what = "session also in the opencode.db beside this storage folder (read from there)"
    if "parent" in mark:
        what = f"sub-agent session of {mark['parent']}"
    if "fork_of" in mark:
        what = f"fork of {mark['fork_of']} ({mark.get('copied', 0)} message(s) copied from it)"
    text = f"{what}: {title}" if isinstance(title, str) else what
    fields = {k: v for k, v in session.items() if k not in ("id", "time")}
    fields["sessionID"] = session.get("id")
    fields["time"] = session.get("time")
    for key in ("fork_of", "copied", "parent", "depth", "migrated"):
        if key in mark:
            fields[key] = mark[key]
    time = session.get("time")
    return Message(
        "opencode",
        role="session",
        id=session.get("id"),
        content=[TextBlock("text", path=("session", "title"), text=text)],
        timestamp=time_text(time.get("created")) if isinstance(time, dict) else None,
        fields=fields,
    )


DIALECT = OpenCodeDialect()
