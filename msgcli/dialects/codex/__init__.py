"""Codex CLI: rollout files and ``codex exec --json`` output.

A rollout (``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl``, also
``.jsonl.zst``) holds one record per line: ``{"timestamp", "ordinal", "type", "payload"}``
with ``type`` one of ``session_meta``, ``response_item`` (a Responses API item: messages,
reasoning, tool calls and their outputs), ``event_msg``, ``turn_context``,
``world_state``, ``token_usage_record`` (the usage of one model response, by
``response_id``), ``compacted`` and ``inter_agent_communication_metadata``.

Resuming a thread appends to its file; a fork is a new file whose ``session_meta`` names
the thread and ordinal it was forked from (its parent's records are not copied); a
sub-agent has a file of its own whose ``session_meta`` names the thread that spawned it.

:mod:`.assemble` joins the items of one model response into one message; :mod:`.checks`
validates a rollout (schemas per record type, the checks across records); :mod:`.replay`
rebuilds the messages of a run from its ``codex exec --json`` output; :mod:`.stats` counts
tokens once per response, the sub-agents apart.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from ...findings import ERROR, INFO, WARNING
from ...model import Message, ResponseUsage, ToolCallBlock
from ...rules import CROSS_RECORD, RECORD, STREAM, Rule
from ..base import EVENT, MESSAGE, Dialect, is_number, iso_time
from .assemble import THREAD, TOOL
from .known import EXEC_EVENTS, RECORD_TYPES, REPEATED

__all__ = ["DIALECT", "CodexDialect"]

_RULES = (
    Rule(
        "R001",
        "codex-unknown-type",
        INFO,
        "A Codex record, payload, item or event type msgcli does not know (a newer "
        "release?): kept and counted.",
        stage=RECORD,
    ),
    Rule(
        "R002",
        "codex-ordinal-order",
        ERROR,
        "A Codex rollout's ordinals do not increase line after line.",
        stage=CROSS_RECORD,
    ),
    Rule(
        "R003",
        "codex-call-unanswered",
        WARNING,
        "A Codex tool call has no output with its call id in the thread (the run stopped "
        "before it was answered).",
        stage=CROSS_RECORD,
    ),
    Rule(
        "R004",
        "codex-output-without-call",
        ERROR,
        "A Codex tool output answers a call id no call of the thread made, or a call already "
        "answered.",
        stage=CROSS_RECORD,
    ),
    Rule(
        "R005",
        "codex-ids-differ",
        ERROR,
        "A Codex record names another thread than the rollout's session_meta (or its file name).",
        stage=CROSS_RECORD,
    ),
    Rule(
        "R006",
        "codex-parent-missing",
        WARNING,
        "A Codex fork or sub-agent names a parent thread whose rollout is not beside it.",
        stage=CROSS_RECORD,
    ),
    Rule(
        "R007",
        "codex-fork-ordinal",
        ERROR,
        "A Codex fork is made at an ordinal its parent's rollout never reached, or its "
        "first ordinal is not where the fork was made.",
        stage=CROSS_RECORD,
    ),
    Rule(
        "R008",
        "codex-response-repeated",
        INFO,
        "A Codex token_usage_record repeats a response_id already recorded: counted once.",
        stage=CROSS_RECORD,
    ),
    Rule(
        "R009",
        "codex-no-session-meta",
        WARNING,
        "A Codex rollout does not begin with its session_meta record.",
        stage=CROSS_RECORD,
    ),
    Rule(
        "R010",
        "codex-exec-event",
        INFO,
        "A codex exec --json event or item type msgcli does not know: counted, skipped.",
        stage=STREAM,
    ),
)

#: a rollout's file name: its thread id
THREAD_IN_NAME = re.compile(
    r"rollout-.*?([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl(?:\.zst)?$"
)


class CodexDialect(Dialect):
    name = "codex"
    title = "Codex CLI rollout"
    distinct = True
    splittable = False
    stats_details = True
    ids_need_joining = True
    tool_call_id_key = "call_id"
    replayer_class = "msgcli.dialects.codex.replay:ExecReplayer"
    own_rules = frozenset(r.code for r in _RULES)
    rules = _RULES
    rule_docs = "msgcli.dialects.codex.docs:EXPLAINED"
    #: a response's input tokens, as the Responses API reports them, hold its cached ones
    usage_cache_in_input = True

    def classify(self, obj: dict) -> str | None:
        if type(obj) is not dict:
            return None
        kind = obj.get("type")
        if type(kind) is not str:
            return None
        if kind in RECORD_TYPES:
            return MESSAGE if "payload" in obj and "timestamp" in obj else None
        if "payload" in obj and "timestamp" in obj:
            if kind in RECORD_TYPES or (kind.islower() and obj.keys() <= _LINE_KEYS):
                return MESSAGE
            return None
        if kind in EXEC_EVENTS:
            if kind == "thread.started":
                return EVENT if "thread_id" in obj else None
            if kind.startswith("item."):
                item = obj.get("item")
                return EVENT if isinstance(item, dict) and "id" in item else None
            if kind in ("turn.started", "turn.completed", "turn.failed"):
                return EVENT if obj.keys() <= {"type", "usage", "error"} else None
            return EVENT if obj.keys() <= {"type", "message"} else None
        if kind.partition(".")[0] in _EXEC_FAMILIES and "." in kind:
            return EVENT  # an event a newer release prints (R010 when replayed)
        return None

    def variant(self, obj: dict) -> str | None:
        return None

    # -- reading ----------------------------------------------------------------

    def read(self, obj: dict) -> Message:
        from .read import read

        return read(obj)

    def message_id(self, obj: dict) -> Any:
        return self.read(obj).id

    def record_out(self, record: dict) -> dict:
        if THREAD in record or REPEATED in record or TOOL in record:
            return {k: v for k, v in record.items() if k not in _OURS}
        return record

    def carry_record(self, record: dict) -> Any:
        return self.record_out(record)

    def assembler(self) -> Any:
        from .assemble import Assembler

        return Assembler()

    def record_checker(self, emit: Any, name: str) -> Any:
        from .checks import RolloutChecker

        return RolloutChecker(emit, name)

    def finish_reason(self, msg: Message) -> Any:
        return msg.fields.get("status") if msg.role == "assistant" else None

    def token_counts(self, msg: Message) -> tuple[Any, Any, Any] | None:
        if msg.role != "assistant" or msg.fields.get("repeated") or msg.usage is None:
            return None
        return Dialect.token_counts(self, msg)

    def responses(self, msg: Message) -> list[ResponseUsage]:
        usage = msg.usage
        if msg.role != "assistant" or usage is None:
            return []
        fields = msg.fields

        def num(value: Any) -> int:
            return value if is_number(value) else 0

        cached = num(usage.cached_tokens)
        when = self.parse_time(msg.timestamp)
        return [
            ResponseUsage(
                model=fields.get("model"),
                input=num(usage.input_tokens) - cached,
                output=num(usage.output_tokens),
                cache_read=cached,
                cache_write=num(usage.cache_creation_tokens),
                reasoning=num(fields.get("reasoning_tokens")),
                time=when.replace(tzinfo=UTC) if when is not None else None,
                session=fields.get("session_id"),
                project=fields.get("cwd"),
                agent=fields.get("agent_path"),
                provider=fields.get("model_provider"),
                key=("codex", fields.get("thread_id"), msg.id),
            )
        ]

    def parse_time(self, value: Any) -> datetime | None:
        return iso_time(value)

    def aside(self, msg: Message) -> bool:
        return bool(msg.fields.get("aside"))

    def thread_of(self, msg: Message) -> tuple[Any, Any, Any]:
        fields = msg.fields
        agent = fields.get("agent_path")
        return (
            fields.get("thread_id"),
            agent,
            agent is not None if fields.get("thread_id") else None,
        )

    def parent_session(self, msg: Message, path: str = "") -> Any:
        fields = msg.fields
        return fields.get("parent_thread_id") or fields.get("forked_from_id")

    def nested_logs(self, path: str, msg: Message) -> list[tuple[str, str]]:
        if msg.role != "assistant":
            return []
        from .threads import children, forks

        out: list[tuple[str, str]] = []
        thread = msg.fields.get("thread_id")
        if msg.fields.get("ordinal") is not None:
            branches = _FORKS.get((path, thread))
            if branches is None:
                branches = _FORKS[(path, thread)] = forks(path, thread)
            out += branches.get(msg.fields.get("ordinal"), [])
        spawns = [
            b for b in msg.content if isinstance(b, ToolCallBlock) and b.name == "spawn_agent"
        ]
        if not spawns:
            return out
        found = children(path, thread)
        for call in spawns:
            args = call.arguments if isinstance(call.arguments, dict) else {}
            task = args.get("task_name")
            for agent_path, title, child in found:
                if isinstance(task, str) and agent_path.rsplit("/", 1)[-1] == task:
                    out.append((title, child))
        return out

    def nested_inputs(self, sources: list[Any]) -> set[str]:
        from .threads import nested_among

        return nested_among(sources)

    def note_stats(self, msg: Message, details: dict) -> None:
        from .stats import note

        note(msg, details)

    def same_turn(self, before: Message, msg: Message) -> bool:
        return False


#: the forks of a rollout, looked for once per rollout a process shows: (path, thread) ->
#: ordinal of the parent's response -> (title, fork rollout)
_FORKS: dict[tuple[str, Any], dict[Any, list[tuple[str, str]]]] = {}
#: the keys msgcli notes on a record while reading it (never written back)
_OURS = frozenset({THREAD, TOOL, REPEATED})
_EXEC_FAMILIES = frozenset({"thread", "turn", "item"})
_LINE_KEYS = frozenset({"timestamp", "ordinal", "type", "payload", "metadata"})


DIALECT = CodexDialect()
