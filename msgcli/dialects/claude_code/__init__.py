"""Claude Code: session files, subagent files and stream-json logs.

A session file (``~/.claude/projects/<project>/<sessionId>.jsonl``) holds one record
per line: the conversation graph (``user``, ``assistant``, ``attachment``, ``system``
records, linked by ``uuid``/``parentUuid``) interleaved with metadata records
(``queue-operation``, ``last-prompt``, ``file-history-snapshot``, titles, modes, ...).
A model response with N content blocks is N ``assistant`` records sharing
``message.id``; :mod:`.assemble` merges them back into one message per response.
Subagents write ``<sessionId>/subagents/agent-<agentId>.jsonl`` beside the session,
with an ``agent-<agentId>.meta.json``.

The stream-json output of ``claude -p --output-format stream-json --verbose`` is this
dialect's event log: :mod:`.replay` rebuilds the responses from its ``stream_event``
records (``--include-partial-messages``).

Validation of a session file is :class:`.checks.SessionChecker` (schemas per record
type and the checks across records); what a newer release writes that msgcli does not
know is an info finding, never an error.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ...guard import deep_recursion
from ...model import (
    Block,
    DataBlock,
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
from ..base import EVENT, MESSAGE, Dialect, iso_time, usage_from
from .known import (
    AGENT_TOOLS,
    META_FIELDS,
    RECORD_FIELDS,
    REPEATED,
    SYNTHETIC_MODEL,
    TOOL_NAMES,
)

__all__ = ["DIALECT", "ClaudeCodeDialect"]

#: metadata record types that carry no sessionId
_NO_SESSION_TYPES = frozenset({"file-history-snapshot", "summary"})
#: the roles ``show`` shows without ``--all``: the conversation itself
_CONVERSATION_ROLES = frozenset({"user", "assistant", "tool", "system"})


class ClaudeCodeDialect(Dialect):
    name = "claude-code"
    title = "Claude Code session"
    tool_call_id_key = "id"
    distinct = True
    # every release adds record types, fields, attachment kinds and subtypes, and Claude Code
    # itself skips what it does not know: info findings (K001-K004, K015), never an error
    tolerant = True
    #: a large session is checked in parts, the checks across records run over their
    #: digests in the process that owns the file (see BENCHMARKS.md, "A 1 GiB Claude Code
    #: session")... but only with three workers or more: on its typed records a session is
    #: checked so fast that the owner's share (taking in the digests, the checks across
    #: records) is a quarter of the work, and two workers on two cores validated the 1M
    #: session in 6.5 s against 6.7 s in one process, at twice the memory (BENCHMARKS.md,
    #: "Cutting a file into parts, measured again")
    splittable = True
    split_jobs = 3
    stats_details = True
    replayer_class = "msgcli.dialects.claude_code.replay:StreamReplayer"
    own_rules = frozenset(f"K{n:03}" for n in range(1, 16))
    #: a message's input_tokens leave out the cache reads and writes (Anthropic's usage)
    input_counts_cache = False

    def classify(self, obj: dict) -> str | None:
        if type(obj) is not dict:
            return None
        kind = obj.get("type")
        if type(kind) is not str:
            # a subagent's agent-<id>.meta.json
            if "agentType" in obj and "toolUseId" in obj:
                return MESSAGE
            return None
        # Claude Code's record types are lower case (AgentScope's event types are not), and
        # its records carry none of AgentScope's reply ids and creation times
        if not kind.islower() or "reply_id" in obj or "replyId" in obj:
            return None
        if "sessionId" in obj:
            return MESSAGE
        if "session_id" in obj:
            # (Gemini CLI's stream-json opens with an ``init`` record holding a session_id;
            # Claude Code's says ``system`` with subtype ``init``)
            return EVENT if "created_at" not in obj and kind != "init" else None
        if kind in _NO_SESSION_TYPES and (
            "snapshot" in obj or "leafUuid" in obj or "messageId" in obj
        ):
            return MESSAGE
        return None

    def variant(self, obj: dict) -> str | None:
        version = obj.get("version")
        return version if type(version) is str else None

    # -- reading ----------------------------------------------------------------

    def read(self, obj: dict) -> Message:
        kind = obj.get("type")
        if kind == "assistant" or kind == "user":
            return _read_turn(obj, kind)
        if type(kind) is not str and "agentType" not in obj:
            return self.read_unknown(obj)  # (a record of a kind no release msgcli knows wrote)
        role = kind if type(kind) is str else "subagent-meta"
        fields = {k: v for k, v in obj.items() if k != "type"}
        msg = Message(
            self.name,
            role=role,
            id=_record_id(obj),
            timestamp=obj.get("timestamp"),
            fields=fields,
        )
        text = describe(obj)
        if text:
            msg.content.append(TextBlock("text", text=text, path=()))
        return msg

    def carry_record(self, record: dict) -> Any:
        """The record without its content (which the target holds as blocks)."""
        out = dict(record)
        message = out.get("message")
        if isinstance(message, dict):
            out["message"] = {k: v for k, v in message.items() if k != "content"}
        return out

    def record_out(self, record: dict) -> dict:
        if REPEATED in record or TOOL_NAMES in record:
            return {k: v for k, v in record.items() if k != REPEATED and k != TOOL_NAMES}
        return record

    def write(self, msg: Message) -> dict:
        raise NotImplementedError("msgcli does not write Claude Code sessions")

    def finish_reason(self, msg: Message) -> Any:
        return msg.fields.get("stop_reason")

    def token_counts(self, msg: Message) -> tuple[Any, Any, Any] | None:
        if msg.role != "assistant" or msg.fields.get(REPEATED):
            return None
        if msg.fields.get("model") == SYNTHETIC_MODEL:
            return None
        return Dialect.token_counts(self, msg)

    def parse_time(self, value: Any) -> datetime | None:
        return iso_time(value)

    def aside(self, msg: Message) -> bool:
        return msg.role not in _CONVERSATION_ROLES

    def thread_of(self, msg: Message) -> tuple[Any, Any, Any]:
        fields = msg.fields
        session = fields.get("sessionId")
        agent = fields.get("agentId")
        side = fields.get("isSidechain")
        return (
            session if isinstance(session, str) else None,
            agent if isinstance(agent, str) else None,
            side if isinstance(side, bool) else None,
        )

    def nested_logs(self, path: str, msg: Message) -> list[tuple[str, str]]:
        if msg.role != "assistant":
            return []
        calls = [
            b
            for b in msg.content
            if isinstance(b, ToolCallBlock)
            and isinstance(b.name, str)
            and b.name in AGENT_TOOLS
            and isinstance(b.id, str)
        ]
        if not calls:
            return []
        from .subagents import subagent_files

        found = subagent_files(path)
        out = []
        for call in calls:
            hit = found.get(call.id)
            prompt = call.arguments.get("prompt") if isinstance(call.arguments, dict) else None
            if hit is None and isinstance(prompt, str):  # (a log may hold any value there)
                hit = found.get(("prompt", prompt))
            if hit is not None:
                out.append(hit)
        return out

    def note_stats(self, msg: Message, details: dict) -> None:
        from .stats import note

        note(msg, details)

    def finish_stats(self, path: str, details: dict, count: Any) -> None:
        from .stats import finish

        finish(path, details, count)

    def responses(self, msg: Message) -> list[ResponseUsage]:
        from .usage import responses

        return responses(msg)

    def related_logs(self, path: str) -> list[tuple[str, str]]:
        from .subagents import subagent_logs

        return subagent_logs(path) or [] if path.endswith(".jsonl") else []

    def scan_responses(self, path: str) -> list[ResponseUsage] | None:
        from .usage import scan

        return scan(path, self.classify)

    def message_id(self, obj: dict) -> Any:
        """The id of the message this record is read into, or joined into (see
        :func:`_record_id`)."""
        return _record_id(obj)

    def assembler(self) -> Any:
        from .assemble import Assembler

        return Assembler()

    def record_checker(self, emit: Any, name: str) -> Any:
        from .checks import SessionChecker

        return SessionChecker(emit, name)


def _usage(raw: Any) -> Usage | None:
    return usage_from(
        raw,
        input_tokens="input_tokens",
        output_tokens="output_tokens",
        cached_tokens="cache_read_input_tokens",
        cache_creation_tokens="cache_creation_input_tokens",
    )


def _block(raw: Any, path: tuple, names: Any = None) -> Block:
    if not isinstance(raw, dict):
        return UnknownBlock("unknown", path=path, raw=raw)
    kind = raw.get("type")
    if kind == "text":
        return TextBlock("text", path=path, text=raw.get("text", ""))
    if kind == "thinking":
        return ThinkingBlock("thinking", path=path, thinking=raw.get("thinking", ""))
    if kind == "redacted_thinking":
        return ThinkingBlock(
            "thinking", path=path, thinking="[redacted thinking]", fields={"redacted": True}
        )
    if kind == "tool_use":
        args = raw.get("input")
        return ToolCallBlock(
            "tool_call",
            id=raw.get("id"),
            path=path,
            name=raw.get("name"),
            input=args,
            arguments=args,
        )
    if kind == "tool_result":
        content = raw.get("content")
        output: Any = content
        if isinstance(content, list):
            output = [_block(b, (*path, "content", i)) for i, b in enumerate(content)]
        is_error = raw.get("is_error")
        tid = raw.get("tool_use_id")
        return ToolResultBlock(
            "tool_result",
            id=tid,
            name=names.get(tid) if isinstance(names, dict) and isinstance(tid, str) else None,
            path=path,
            output=output,
            state="error" if is_error is True else "success",
        )
    if kind in ("image", "document"):
        source = raw.get("source")
        src = None
        if isinstance(source, dict):
            if source.get("type") == "url":
                src = Source("url", url=source.get("url"), media_type=source.get("media_type"))
            else:
                src = Source("base64", data=source.get("data"), media_type=source.get("media_type"))
        return DataBlock("data", path=path, kind=kind, source=src)
    return UnknownBlock("unknown", path=path, raw=raw)


def _record_id(obj: dict) -> Any:
    """The id of the message a record is read into: a response's ``message.id`` (which every
    record of a response holds, so the records joined into one message give its id: see
    :class:`Assembler`), any other record's ``uuid``."""
    if obj.get("type") == "assistant":
        message = obj.get("message")
        return message.get("id") if isinstance(message, dict) else None
    return obj.get("uuid")


def _read_turn(obj: dict, role: str) -> Message:
    message = obj.get("message")
    if not isinstance(message, dict):
        message = {}
    content = message.get("content")
    blocks: list[Block] = []
    if isinstance(content, str):
        blocks.append(TextBlock("text", path=("message", "content"), text=content))
    elif isinstance(content, list):
        names = obj.get(TOOL_NAMES)
        blocks = [_block(b, ("message", "content", i), names) for i, b in enumerate(content)]
    fields: dict[str, Any] = {
        "uuid": obj.get("uuid"),
        "parentUuid": obj.get("parentUuid"),
        "isSidechain": obj.get("isSidechain"),
        "sessionId": obj.get("sessionId"),
    }
    for key in (
        "agentId",
        "requestId",
        "isMeta",
        "isApiErrorMessage",
        "toolUseResult",
        "attributionAgent",
        "isCompactSummary",
        "cwd",
    ):
        if key in obj:
            fields[key] = obj[key]
    for key in ("model", "stop_reason"):
        if key in message:
            fields[key] = message[key]
    if obj.get(REPEATED):
        fields[REPEATED] = True
    msg_id = _record_id(obj)
    if role == "user" and blocks and all(isinstance(b, ToolResultBlock) for b in blocks):
        role = "tool"  # a record that only carries tool results
    return Message(
        "claude-code",
        role=role,
        name=obj.get("attributionAgent") or obj.get("agentId"),
        id=msg_id,
        content=blocks,
        timestamp=obj.get("timestamp"),
        usage=_usage(message.get("usage")) if role == "assistant" else None,
        fields=fields,
    )


def describe(obj: dict) -> str:
    """A one-line account of a record that is not a user or assistant turn (``show --all``)."""
    with deep_recursion():  # its values are written as they are, nested as deep as they come
        return _describe(obj)


def _describe(obj: dict) -> str:
    kind = obj.get("type")
    if type(kind) is not str:
        if META_FIELDS & set(obj):
            return f"subagent {obj.get('agentType')}: {obj.get('description')}"
        return ""
    if kind == "attachment":
        att = obj.get("attachment")
        if isinstance(att, dict):
            what = att.get("type")
            detail = att.get("hookName") or att.get("filename") or att.get("displayPath") or ""
            return f"{what} {detail}".strip()
        return "attachment"
    if kind == "system":
        sub = obj.get("subtype")
        content = obj.get("content")
        return f"{sub}: {content}" if isinstance(content, str) else str(sub)
    if kind == "queue-operation":
        content = obj.get("content")
        op = obj.get("operation")
        return f"{op}: {content}" if isinstance(content, str) else str(op)
    for key in (
        "lastPrompt",
        "aiTitle",
        "customTitle",
        "agentName",
        "mode",
        "permissionMode",
        "summary",
    ):
        value = obj.get(key)
        if isinstance(value, str):
            return value
    if kind == "file-history-snapshot":
        snap = obj.get("snapshot")
        files = snap.get("trackedFileBackups") if isinstance(snap, dict) else None
        return f"{len(files) if isinstance(files, dict) else 0} tracked file(s)"
    return "" if kind in RECORD_FIELDS else f"({kind})"


DIALECT = ClaudeCodeDialect()
