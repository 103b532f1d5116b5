"""Gemini CLI: session files, sub-agent files and stream-json output.

A session (``~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl``) is a journal:
a header line (``sessionId``, ``projectHash``, ``startTime``, ``kind``), message lines
(``type`` ``user`` or ``gemini``, each with an ``id``), ``$set`` patches and
``$rewindTo`` records; a resume appends to the same file. :mod:`.history` rebuilds the
conversation as the CLI does when it loads the file, one message per model response.
A sub-agent writes ``chats/<parent sessionId>/<sub-agent sessionId>.jsonl``. Releases
before the journal wrote one JSON document (``session-*.json``: the header with a
``messages`` list), read the same way.

Tokens: each ``gemini`` line's ``tokens`` is the ``usageMetadata`` of that one API
response; a response written twice under one id (before and after its tools ran) is
counted once. The CLI's side calls (the model router, compression summaries) are not in
the file.

``gemini --output-format stream-json`` is this dialect's event log (:mod:`.replay`).
Validation is :class:`.checks.SessionChecker`.
"""

from __future__ import annotations

import os
import re
from datetime import UTC, datetime
from pathlib import PurePath
from typing import Any

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
from ..base import EVENT, MESSAGE, Dialect, is_number, usage_from
from .known import (
    AGENT,
    AGENT_TOOL,
    DROPPED,
    OURS,
    SESSION,
    STREAM_TYPES,
    SYNTHETIC,
)
from .rules import RULES

__all__ = ["DIALECT", "GeminiCliDialect"]

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
#: the patch records Gemini CLI writes
_PATCHES = frozenset({"$set", "$rewindTo"})
#: JSON Schema's own ``$`` keywords (a schema beside the logs holds objects of one of them)
_SCHEMA_KEYS = frozenset(
    {"$ref", "$id", "$schema", "$defs", "$comment", "$anchor", "$dynamicRef", "$vocabulary"}
)
#: the keys every session header has
_HEADER_KEYS = frozenset({"sessionId", "projectHash", "startTime"})
#: what a record type of Gemini CLI looks like (``gemini``, ``tool_use``)
_NAME = re.compile(r"[a-z][a-z_]*")
#: keys of other producers' records, never in a Gemini CLI session line or stream record
#: (``session_id`` is in stream-json's ``init`` alone)
#: keys of other dialects' records (Claude Code's, OpenCode's, a Codex rollout's envelope)
_FOREIGN = frozenset(
    {
        "role",
        "message",
        "uuid",
        "sessionId",
        "session_id",
        "sessionID",
        "part",
        "payload",
        "ordinal",
    }
)
#: the roles ``show`` shows without ``--all`` (a header, a patch, a record or message type
#: msgcli does not know is shown with ``--all``)
_CONVERSATION_ROLES = frozenset({"user", "assistant", "tool", "system"})


class GeminiCliDialect(Dialect):
    name = "gemini-cli"
    title = "Gemini CLI session"
    #: ``candidatesTokenCount`` leaves the thoughts out (``thoughtsTokenCount``)
    output_holds_reasoning = False
    #: ``promptTokenCount`` holds the cached tokens (``cachedContentTokenCount``)
    usage_cache_in_input = True
    distinct = True
    splittable = False
    stats_details = True
    replayer_class = "msgcli.dialects.gemini_cli.replay:StreamReplayer"
    own_rules = frozenset(rule.code for rule in RULES)
    rules = RULES
    rule_docs = "msgcli.dialects.gemini_cli.rules:EXPLAINED"
    tool_arguments_key = "args"

    def classify(self, obj: dict) -> str | None:
        if type(obj) is not dict:
            return None
        if len(obj) == 1:
            # a patch: ``$set``, ``$rewindTo``, or an operator a later release adds (an
            # object of changes; not a JSON Schema's ``$ref`` or ``$defs``)
            (key,) = obj
            if key in _PATCHES:
                return MESSAGE
            known = type(key) is str and key[:1] == "$" and key[1:].isalpha()
            return MESSAGE if known and key not in _SCHEMA_KEYS and type(obj[key]) is dict else None
        kind = obj.get("type")
        if kind is None:
            # a session header (its schema says what its values should be)
            return MESSAGE if obj.keys() >= _HEADER_KEYS else None
        if type(kind) is not str or not _NAME.fullmatch(kind):
            return None
        stamp = obj.get("timestamp")
        if type(stamp) is not str:
            return None
        if type(obj.get("id")) is str and "content" in obj and _FOREIGN.isdisjoint(obj):
            # a message (of a type msgcli knows, or one a later release adds: G001)
            return MESSAGE
        if kind in STREAM_TYPES:
            return EVENT if _stream_shape(kind, obj) else None
        if _FOREIGN.isdisjoint(obj) and "id" not in obj and stamp.endswith("Z"):
            return EVENT  # a stream-json record type a later release adds (G001)
        return None

    # -- reading ----------------------------------------------------------------

    def read(self, obj: dict) -> Message:
        if "$set" in obj:
            patch = obj.get("$set")
            keys = ", ".join(patch) if isinstance(patch, dict) else ""
            return _aside_message("patch", obj, f"$set {keys}".strip())
        if "$rewindTo" in obj:
            return _aside_message("rewind", obj, f"rewind to {obj.get('$rewindTo')}")
        kind = obj.get("type")
        if kind is None and obj.keys() >= _HEADER_KEYS:
            return _aside_message("session", obj, f"session {obj.get('sessionId')}")
        if "content" in obj and (isinstance(obj.get("id"), str) or obj.get(SYNTHETIC)):
            return _read_message(obj, kind)
        keys = ", ".join(str(k) for k in obj if k not in OURS)
        return _aside_message("unknown", obj, f"({kind if kind is not None else keys})")

    def read_in(self, obj: dict) -> list[tuple[dict, Message]]:
        """The messages a record holds, read one record at a time (where only their ids are
        wanted: ``show``'s short ids): a message line is one, a ``$set.messages`` patch or
        a header with ``messages`` holds those, anything else none. The commands that read
        messages whole rebuild the history instead (:meth:`assembler`)."""
        if "$set" in obj:
            patch = obj.get("$set")
            held = patch.get("messages") if isinstance(patch, dict) else None
        elif "type" not in obj and "id" not in obj:
            held = obj.get("messages")
        else:
            return [(obj, self.read(obj))]
        if not isinstance(held, list):
            return []
        from .history import restated

        left_out = restated(held)
        return [
            (m, self.read(m))
            for m in held
            if isinstance(m, dict) and isinstance(m.get("id"), str) and m["id"] not in left_out
        ]

    def message_id(self, obj: dict) -> Any:
        mid = obj.get("id")
        return mid if isinstance(mid, str) else None

    def record_out(self, record: dict) -> dict:
        if any(key in record for key in OURS):
            return {k: v for k, v in record.items() if k not in OURS}
        return record

    def carry_record(self, record: dict) -> Any:
        out = self.record_out(record)
        return {k: v for k, v in out.items() if k not in ("content", "toolCalls", "thoughts")}

    def assembler(self) -> Any:
        from .history import History

        return History()

    def record_checker(self, emit: Any, name: str) -> Any:
        from .checks import SessionChecker

        return SessionChecker(emit, name)

    def token_counts(self, msg: Message) -> tuple[Any, Any, Any] | None:
        if msg.role != "assistant" or msg.usage is None:
            return None
        return Dialect.token_counts(self, msg)

    def parse_time(self, value: Any) -> datetime | None:
        if type(value) is not str:
            return None
        try:
            when = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
        return when.astimezone(UTC).replace(tzinfo=None) if when.tzinfo else when

    def aside(self, msg: Message) -> bool:
        fields = msg.fields
        role = msg.role  # (what a record says its type is: a list in a broken one)
        return type(role) is not str or role not in _CONVERSATION_ROLES or bool(fields.get(DROPPED))

    def thread_of(self, msg: Message) -> tuple[Any, Any, Any]:
        session = msg.fields.get(SESSION)
        agent = msg.fields.get(AGENT)
        return (
            session if isinstance(session, str) else None,
            agent if isinstance(agent, str) else None,
            agent is not None if isinstance(session, str) else None,
        )

    def parent_session(self, msg: Message, path: str = "") -> Any:
        """A sub-agent file's parent session: the folder it is in is named after it."""
        if msg.fields.get(AGENT) is None:
            return None
        folder = PurePath(path).parent.name
        return folder if _UUID.fullmatch(folder) else None

    def nested_logs(self, path: str, msg: Message) -> list[tuple[str, str]]:
        if msg.role != "assistant":
            return []
        out = []
        for call in msg.content:
            if not isinstance(call, ToolCallBlock) or call.name != AGENT_TOOL:
                continue
            agent = call.fields.get("agentId")
            session = msg.fields.get(SESSION)
            if not isinstance(agent, str) or not isinstance(session, str):
                continue
            where = os.path.join(os.path.dirname(path), session, f"{agent}.jsonl")
            if os.path.isfile(where):
                args = call.arguments if isinstance(call.arguments, dict) else {}
                out.append((f"sub-agent {args.get('agent_name') or agent}", where))
        return out

    def responses(self, msg: Message) -> list[ResponseUsage]:
        if msg.role != "assistant" or msg.usage is None:
            return []
        usage = msg.usage
        extra = usage.extra
        prompt = _int(usage.input_tokens)
        cached = _int(usage.cached_tokens)
        thoughts = _int(extra.get("thoughts"))
        # the prompt of the tools' own use (toolUsePromptTokenCount) is billed as input, and
        # the thoughts as output: the API's total is the sum of every kind
        tool = _int(extra.get("tool"))
        session = msg.fields.get(SESSION)
        agent = msg.fields.get(AGENT)
        model = msg.fields.get("model")
        return [
            ResponseUsage(
                model=model if isinstance(model, str) else None,
                input=prompt - cached + tool,
                cache_read=cached,
                output=_int(usage.output_tokens) + thoughts,
                reasoning=thoughts,
                time=_aware(self.parse_time(msg.timestamp)),
                session=session if isinstance(session, str) else None,
                agent=agent if isinstance(agent, str) else None,
                provider="google",
                key=("gemini-cli", session, msg.id),
            )
        ]

    def note_stats(self, msg: Message, details: dict) -> None:
        from .stats import note

        note(msg, details)

    def finish_stats(self, path: str, details: dict, count: Any) -> None:
        from .stats import finish

        finish(path, details, count)


def _int(value: Any) -> int:
    return int(value) if is_number(value) else 0


def _aware(when: datetime | None) -> datetime | None:
    return None if when is None else when.replace(tzinfo=UTC)


def _stream_shape(kind: str, obj: dict) -> bool:
    if kind == "init":
        return "session_id" in obj and "model" in obj
    if "session_id" in obj:
        return False
    if kind == "message":
        return "role" in obj and "content" in obj and "id" not in obj
    if kind == "tool_use":
        return "tool_id" in obj and "tool_name" in obj
    if kind == "tool_result":
        return "tool_id" in obj and "status" in obj
    if kind == "error":
        return "severity" in obj and "message" in obj
    return "status" in obj  # result


def _aside_message(role: str, obj: dict, text: str) -> Message:
    msg = Message(
        "gemini-cli",
        role=role,
        timestamp=obj.get("lastUpdated") or obj.get("startTime") or obj.get("timestamp"),
        fields={k: v for k, v in obj.items() if k != "messages"},
    )
    msg.content.append(TextBlock("text", text=text, path=()))
    return msg


def _usage(raw: Any) -> Usage | None:
    return usage_from(
        raw,
        input_tokens="input",
        output_tokens="output",
        cached_tokens="cached",
        total_tokens="total",
        extra=("thoughts", "tool"),
    )


def _part(raw: Any, path: tuple) -> Block:
    """One Gemini API part."""
    if not isinstance(raw, dict):
        if isinstance(raw, str):
            return TextBlock("text", path=path, text=raw)
        return UnknownBlock("unknown", path=path, raw=raw)
    if "text" in raw:
        if raw.get("thought") is True:
            return ThinkingBlock("thinking", path=path, thinking=raw.get("text"))
        return TextBlock("text", path=path, text=raw.get("text"))
    call = raw.get("functionCall")
    if isinstance(call, dict):
        args = call.get("args")
        return ToolCallBlock(
            "tool_call",
            id=call.get("id"),
            path=(*path, "functionCall"),
            name=call.get("name"),
            input=args,
            arguments=args,
        )
    response = raw.get("functionResponse")
    if isinstance(response, dict):
        body = response.get("response")
        output: Any = body
        state = "success"
        if isinstance(body, dict):
            if "error" in body:
                output, state = body.get("error"), "error"
            elif "output" in body:
                output = body.get("output")
        return ToolResultBlock(
            "tool_result",
            id=response.get("id"),
            name=response.get("name"),
            path=(*path, "functionResponse"),
            output=output,
            state=state,
        )
    for key in ("inlineData", "fileData"):
        data = raw.get(key)
        if isinstance(data, dict):
            mime = data.get("mimeType")
            if key == "inlineData":
                source = Source("base64", data=data.get("data"), media_type=mime)
            else:
                source = Source("url", url=data.get("fileUri"), media_type=mime)
            return DataBlock("data", path=path, kind=key, source=source)
    return UnknownBlock("unknown", path=path, raw=raw)


def _read_message(obj: dict, kind: Any) -> Message:
    content = obj.get("content")
    blocks: list[Block] = []
    if kind == "gemini":
        thoughts = obj.get("thoughts")
        if isinstance(thoughts, list):
            for i, thought in enumerate(thoughts):
                if isinstance(thought, dict):
                    subject = thought.get("subject") or ""
                    text = thought.get("description") or ""
                    both = f"**{subject}**\n{text}" if subject else text
                    blocks.append(ThinkingBlock("thinking", path=("thoughts", i), thinking=both))
    if isinstance(content, str):
        if content or kind != "gemini":
            blocks.append(TextBlock("text", path=("content",), text=content))
    elif isinstance(content, list):
        blocks.extend(_part(p, ("content", i)) for i, p in enumerate(content))
    elif isinstance(content, dict):
        blocks.append(_part(content, ("content",)))
    calls = obj.get("toolCalls")
    if isinstance(calls, list):
        have = {b.id for b in blocks if isinstance(b, ToolCallBlock)}
        for i, call in enumerate(calls):
            if not isinstance(call, dict):
                blocks.append(UnknownBlock("unknown", path=("toolCalls", i), raw=call))
                continue
            if call.get("id") in have:
                continue
            args = call.get("args")
            status = call.get("status")
            kept = {"agentId": call["agentId"]} if "agentId" in call else {}
            if "resultDisplay" in call:
                kept["resultDisplay"] = call["resultDisplay"]
            blocks.append(
                ToolCallBlock(
                    "tool_call",
                    id=call.get("id"),
                    path=("toolCalls", i),
                    name=call.get("name"),
                    input=args,
                    arguments=args,
                    state=status if isinstance(status, str) else None,
                    fields=kept,
                )
            )
    role: Any = kind
    if kind == "gemini":
        role = "assistant"
    elif kind == "user" and blocks and all(isinstance(b, ToolResultBlock) for b in blocks):
        role = "tool"
    elif kind in ("error", "warning", "info"):
        role = "system"
    fields: dict[str, Any] = {"type": kind}
    for key in ("model", "displayContent", *OURS):
        if key in obj:
            fields[key] = obj[key]
    tokens = obj.get("tokens")
    usage = None
    if kind == "gemini" and isinstance(tokens, dict):
        usage = _usage(tokens)
        thoughts_n = tokens.get("thoughts")
        if is_number(thoughts_n):
            fields["reasoning_tokens"] = thoughts_n
    return Message(
        "gemini-cli",
        role=role,
        id=obj.get("id"),
        content=blocks,
        timestamp=obj.get("timestamp"),
        usage=usage,
        fields=fields,
    )


DIALECT = GeminiCliDialect()
