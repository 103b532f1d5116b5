"""ATIF: the Agent Trajectory Interchange Format of the Harbor benchmark harness.

A trajectory (``trajectory.json``, every ``ATIF-v1.x``) is one JSON document: the agent
that ran, its ``steps`` (user, system and agent turns, an agent step holding its
reasoning, tool calls, the observation of their results and its token metrics), the
``final_metrics``, and from v1.7 the ``subagent_trajectories`` it embeds. The reader
makes a record of each step, with its line and JSON pointer (:mod:`.records`); a file of
one trajectory per line is read too. Validation is the ``atif`` package's own models and
msgcli's checks across steps (:mod:`.checks`, rules ``A001``–``A011``); ``convert --to
atif`` writes one trajectory per log (:mod:`msgcli.converters.atif`).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from ...model import Message, ResponseUsage
from ..base import MESSAGE, Dialect, iso_time
from .records import HEAD, NOTE, is_trajectory, read_record, split
from .rules import RULES

__all__ = ["DIALECT", "AtifDialect"]


class AtifDialect(Dialect):
    name = "atif"
    title = "ATIF trajectory (Harbor)"
    distinct = True
    splittable = False
    stats_details = False
    writer = "msgcli.converters.atif:WRITER"
    rules = RULES
    rule_docs = "msgcli.dialects.atif.rules:EXPLAINED"
    own_rules = frozenset(rule.code for rule in RULES)
    tool_call_id_key = "tool_call_id"
    tool_call_name_key = "function_name"

    def classify(self, obj: dict) -> str | None:
        if type(obj) is not dict:
            return None
        if NOTE in obj and isinstance(obj[NOTE], dict):
            return MESSAGE
        return MESSAGE if is_trajectory(obj) else None

    def document_records(self, value: dict) -> list[tuple[str, dict]] | None:
        return split(value) if is_trajectory(value) else None

    def variant(self, obj: dict) -> str | None:
        note = obj.get(NOTE)
        version = note.get("version") if isinstance(note, dict) else obj.get("schema_version")
        if isinstance(version, str) and version.startswith("ATIF-v"):
            return version[len("ATIF-v") :]
        return None

    def read(self, obj: dict) -> Message:
        found = read_record(obj) if isinstance(obj, dict) else []
        return found[0][1] if found else Message(self.name)

    def read_in(self, obj: dict) -> list[tuple[dict, Message]]:
        """The messages of a record: a step's own and one per observation result."""
        return read_record(obj) if isinstance(obj, dict) else []

    def message_id(self, obj: dict) -> Any:
        return self.read(obj).id

    def record_out(self, record: dict) -> dict:
        return {k: v for k, v in record.items() if k != NOTE} if NOTE in record else record

    def carry_record(self, record: dict) -> Any:
        return self.record_out(record)

    def record_checker(self, emit: Any, name: str) -> Any:
        from .checks import TrajectoryChecker

        return TrajectoryChecker(emit, name)

    # -- reading commands ------------------------------------------------------------------

    def aside(self, msg: Message) -> bool:
        # the trajectory's own record, and an embedded subagent's steps (shown under the
        # result that refers to them: see nested_logs)
        return msg.role == HEAD or bool(msg.fields.get("depth"))

    def nested_logs(self, path: str, msg: Message) -> list[tuple[str, str]]:
        """The subagent trajectories a step's results refer to: an embedded one as
        ``<file>#<its JSON pointer>`` (the reader reads that part of the document), a file
        of its own by its path beside the trajectory."""
        embedded = msg.fields.get("subagents")
        embedded = embedded if isinstance(embedded, dict) else {}
        base, _, part = path.partition("#")
        out = []
        refs = msg.fields.get("subagent_refs")
        if isinstance(refs, list):  # (a step's own message: the refs of its results)
            for ref in refs:
                if not isinstance(ref, dict):
                    continue
                tid = ref.get("trajectory_id")
                where = ref.get("trajectory_path")
                if isinstance(tid, str) and tid in embedded:
                    out.append((f"subagent {tid}", f"{base}#{part}{embedded[tid]}"))
                elif isinstance(where, str) and "://" not in where:
                    import os

                    found = os.path.join(os.path.dirname(base), where)
                    if os.path.isfile(found):
                        out.append((f"subagent {tid or where}", found))
        return out

    def parse_time(self, value: Any) -> datetime | None:
        return iso_time(value)

    def thread_of(self, msg: Message) -> tuple[Any, Any, Any]:
        fields = msg.fields
        session = fields.get("session")
        depth = fields.get("depth") or 0
        agent = fields.get("trajectory") if depth else None
        return (
            session if isinstance(session, str) else None,
            agent if isinstance(agent, str) else None,
            bool(depth) if msg.role != HEAD else None,
        )

    def token_counts(self, msg: Message) -> tuple[Any, Any, Any] | None:
        # a step copied from a prior trajectory for context (is_copied_context) was counted
        # there
        if msg.role != "assistant" or msg.fields.get("is_copied_context") is True:
            return None
        return Dialect.token_counts(self, msg)

    def responses(self, msg: Message) -> list[ResponseUsage]:
        """One response per agent step with metrics (the step's, whatever ``llm_call_count``
        says), but for a step copied from a prior trajectory (``is_copied_context``);
        ``final_metrics`` are never counted on top."""
        usage = msg.usage
        if usage is None or self.token_counts(msg) is None:
            return []
        prompt = _count(usage.input_tokens)
        cached = _count(usage.cached_tokens)
        written = _count(usage.cache_creation_tokens)
        reasoning = 0
        extra = usage.extra.get("extra")
        if isinstance(extra, dict):
            reasoning = _count(extra.get("reasoning_tokens"))
        fields = msg.fields
        when = None
        if isinstance(msg.timestamp, str):
            try:
                when = datetime.fromisoformat(msg.timestamp.replace("Z", "+00:00"))
            except ValueError:
                when = None
            if when is not None and when.tzinfo is None:
                when = when.replace(tzinfo=UTC)
        model = fields.get("model")
        session, agent, _ = self.thread_of(msg)
        return [
            ResponseUsage(
                model=model if isinstance(model, str) else None,
                input=max(prompt - cached - written, 0),
                output=_count(usage.output_tokens),
                cache_read=cached,
                cache_write=written,
                reasoning=reasoning,
                time=when,
                session=session,
                agent=agent,
                # (no key: the steps of two segments of one run share their session and
                # their step ids, and are two responses)
                key=None,
            )
        ]

    def finish_reason(self, msg: Message) -> Any:
        return None


def _count(value: Any) -> int:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0


DIALECT = AtifDialect()
