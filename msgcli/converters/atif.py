"""``convert --to atif``: any log msgcli reads as one ATIF trajectory per log.

The writer makes a step of each turn (:class:`msgcli.model.Turn`): a user or system
message a ``user``/``system`` step; an assistant message an ``agent`` step with its
thinking as ``reasoning_content``, its text as ``message`` (content parts where it holds
several texts or images), its calls as ``tool_calls`` (arguments as an object) and its
token usage as ``metrics`` (``prompt_tokens`` the whole prompt, cached tokens included,
as ATIF counts it; an Anthropic model's cache writes in ``metrics.extra``). A tool result
goes in the ``observation`` of the step that holds its call, wherever the source kept it.

An ATIF trajectory is one JSON document: :meth:`AtifWriter.whole` puts the steps of one
log together (step ids, ``agent``, ``session_id``, ``final_metrics`` as the steps' sum).
"""

from __future__ import annotations

from datetime import UTC
from typing import Any

from ..dialects.atif.records import NOTE
from ..model import (
    Block,
    DataBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    Turn,
    pointer,
)
from .base import LogFacts, Out, Writer
from .text import arguments_object, as_text, made_id, media_type_of, parts_text

__all__ = ["VERSION", "WRITER", "AtifWriter"]

#: the version msgcli writes
VERSION = "ATIF-v1.7"
#: the key of a written step under which its tool results wait to be placed
RESULTS = "msgcli_results"
_IMAGE_TYPES = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})


class AtifWriter(Writer):
    utc = True
    #: ATIF steps forbid keys the format does not have: nothing is kept for the way back
    has_metadata = False
    #: the records of a log make one document (:meth:`whole`)
    document = True

    def __init__(self) -> None:
        #: the tool call ids written so far (ATIF pairs a result with its call by id)
        self.call_ids: set[str] = set()

    def session(self) -> AtifWriter:
        return AtifWriter()

    def __call__(self, turn: Turn, out: Out) -> list[dict]:
        # a message that holds a whole agent loop (AgentScope Python's reply: thinking, a
        # call, its result, more thinking, the answer) is a step per round, in its order
        # a step holds its reasoning, then its text, then its calls, then their results: a
        # block of the message that comes after one of a later kind (the text after a
        # result, thinking after text) opens the next step, so the order is kept
        segments: list[list[tuple[int, Block]]] = [[]]
        reached = 0
        for at, block in turn.parts():
            rank = _rank(block)
            if at == 0 and rank < reached:
                segments.append([])
            reached = rank if at == 0 or rank == 3 else reached
            segments[-1].append((at, block))
        steps: list[dict] = []
        for index, parts in enumerate(segments):
            steps.extend(self._step(turn, parts, out, index == 0))
        return steps

    def _step(
        self, turn: Turn, parts: list[tuple[int, Block]], out: Out, first: bool
    ) -> list[dict]:
        role = turn.role if isinstance(turn.role, str) else "assistant"
        results: list[dict] = []
        texts: list[Block] = []
        thinking: list[str] = []
        calls: list[dict] = []
        for at, block in parts:
            line = turn.lines[at]
            if isinstance(block, ToolResultBlock):
                results.append(_result(block, line, out))
            elif isinstance(block, ThinkingBlock):
                thinking.append(as_text(block))
            elif isinstance(block, ToolCallBlock):
                arguments, whole = arguments_object(block)
                if not whole and block.input not in (None, "", {}):
                    out.note(
                        line,
                        pointer(block.path),
                        "tool call arguments that are no JSON object: written as "
                        '{"input": <their text>} (ATIF asks for an object)',
                    )
                    arguments = {"input": parts_text(block.input)}
                call_id = block.id if isinstance(block.id, str) else str(block.id)
                if call_id in self.call_ids:
                    made = "call_" + made_id(call_id, "again", len(self.call_ids))
                    out.note(
                        line,
                        pointer(block.path),
                        f"the tool call id {call_id!r} is already that of an earlier call (the "
                        f"source gives two calls one id, ATIF one each): written as {made!r}",
                    )
                    call_id = made
                self.call_ids.add(call_id)
                calls.append(
                    {
                        "tool_call_id": call_id,
                        "function_name": block.name if isinstance(block.name, str) else "",
                        "arguments": arguments,
                    }
                )
            elif isinstance(block, (TextBlock, DataBlock)):
                texts.append(block)
            else:
                out.note(
                    line,
                    pointer(block.path),
                    f"a {block.type} block has no ATIF counterpart: written as text",
                )
                texts.append(TextBlock(type="text", text=as_text(block)))
        if (role == "tool" or role != "assistant") and not texts and not calls and not thinking:
            return [{RESULTS: results}] if results else []
        if role == "tool":
            out.note(
                turn.line,
                "/role",
                "a tool message that holds more than results (answers no call by its id) has "
                "no ATIF counterpart: written as a system step",
            )
            role = "system"
        head = turn.head
        source = "agent" if role == "assistant" or calls or thinking else _source(role)
        step: dict[str, Any] = {"source": source}
        when = turn.when
        if when is not None:
            step["timestamp"] = (
                when.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
            )
        if source == "agent":
            model = head.fields.get("model")
            if isinstance(model, str) and model:
                step["model_name"] = model
        step["message"] = _message(texts, turn, out)
        if source == "agent":
            if thinking:
                step["reasoning_content"] = "\n\n".join(thinking)
            if calls:
                step["tool_calls"] = calls
            metrics = _metrics(head, out) if first else None
            if metrics is not None:
                step["metrics"] = metrics
                step["llm_call_count"] = 1
        if results:
            step[RESULTS] = results
        return [step]

    def whole(self, records: list[dict], facts: LogFacts) -> dict:
        """The trajectory of one log, from its written steps."""
        steps: list[dict] = []
        by_call: dict[str, dict] = {}
        taken: set[int] = set()
        for record in records:
            if NOTE in record:  # a step of an ATIF log, as read (once, whatever it held)
                note = record[NOTE]
                if id(record) in taken or not isinstance(note, dict) or note.get("depth"):
                    continue  # (an embedded subagent's step: see the README)
                taken.add(id(record))
                record = {k: v for k, v in record.items() if k not in (NOTE, "step_id")}
            results = record.pop(RESULTS, [])
            before = steps[-1] if steps else None
            if (
                before is not None
                and "source" in record
                and _calls_only(record)
                and before.get("source") == "agent"
                and "tool_calls" in before
                and "observation" not in before
            ):
                # a reply written as an item per call (OpenAI Responses): one step
                before["tool_calls"].extend(record["tool_calls"])
                for call in record["tool_calls"]:
                    by_call[call["tool_call_id"]] = before
                record = {}
            if "source" in record:
                steps.append(record)
                for call in record.get("tool_calls", ()):
                    by_call[call["tool_call_id"]] = record
            for result in results:
                owner = by_call.get(result.get("source_call_id"))
                if owner is None:
                    # a result that answers no call written before it: a system step's
                    # observation
                    owner = {"source": "system", "message": ""}
                    steps.append(owner)
                    result = dict(result)
                    cid = result.pop("source_call_id", None)
                    if cid is not None:
                        result.setdefault("extra", {})["msgcli_call_id"] = cid
                observation = owner.setdefault("observation", {"results": []})
                observation["results"].append(result)
        for number, step in enumerate(steps, 1):
            step["step_id"] = number
        ordered = [{"step_id": s.pop("step_id"), **s} for s in steps]
        agent: dict[str, Any] = {
            "name": facts.dialect or "unknown",
            "version": facts.version or "unknown",
        }
        if facts.model:
            agent["model_name"] = facts.model
        trajectory: dict[str, Any] = {
            "schema_version": "ATIF-v1.8" if _holds_audio(ordered) else VERSION
        }
        if facts.session:
            trajectory["session_id"] = facts.session
        trajectory["agent"] = agent
        trajectory["steps"] = ordered
        trajectory["notes"] = f"Converted by msgcli from a {facts.dialect} log"
        trajectory["final_metrics"] = _final(ordered)
        head = _head(facts)
        if head is not None:
            # an ATIF log: its own trajectory's fields, and the subagents it embeds, as read
            document = head[NOTE].get("document")
            facts.kept = True
            kept = {k: v for k, v in head.items() if k != NOTE}
            kept["steps"] = ordered
            if isinstance(document, dict) and "subagent_trajectories" in document:
                kept["subagent_trajectories"] = document["subagent_trajectories"]
            return kept
        return trajectory


def _head(facts: LogFacts) -> dict | None:
    """The record of the trajectory an ATIF log is (its top one), if it is one."""
    for record in facts.aside:
        note = record.get(NOTE)
        if isinstance(note, dict) and note.get("kind") == "trajectory" and not note.get("depth"):
            return record
    return None


def _rank(block: Block) -> int:
    """Where a block stands in a step: reasoning, text, calls, results."""
    if isinstance(block, ThinkingBlock):
        return 0
    if isinstance(block, ToolCallBlock):
        return 2
    if isinstance(block, ToolResultBlock):
        return 3
    return 1


def _calls_only(step: dict) -> bool:
    """Whether a written step holds tool calls and nothing else of its own."""
    return (
        step.get("source") == "agent"
        and bool(step.get("tool_calls"))
        and step.get("message") == ""
        and not ({"reasoning_content", "metrics"} & step.keys())
    )


def _source(role: str) -> str:
    return "user" if role == "user" else "system"


def _message(texts: list[Block], turn: Turn, out: Out) -> Any:
    """The step's ``message``: a string, or content parts (several texts, images)."""
    if all(isinstance(b, TextBlock) for b in texts) and len(texts) <= 1:
        return as_text(texts[0]) if texts else ""
    parts: list[dict] = []
    for block in texts:
        if isinstance(block, DataBlock):
            part = _media(block)
            if part is not None:
                parts.append(part)
                continue
            out.note(
                turn.line,
                pointer(block.path),
                f"a {block.kind} of type {media_type_of(block)} has no ATIF counterpart "
                "(ATIF holds JPEG, PNG, GIF and WebP images and common audio types): written "
                "as text",
            )
        parts.append({"type": "text", "text": as_text(block)})
    return parts


def _media(block: DataBlock) -> dict | None:
    """An image (v1.6) or audio (v1.8) content part: a path, a URL or a data URL."""
    source = block.source
    kind = media_type_of(block)
    if source is None or (kind not in _IMAGE_TYPES and _audio(kind) is None):
        return None
    if source.kind == "url" and isinstance(source.url, str):
        location = source.url
    elif isinstance(source.data, str):
        location = f"data:{kind};base64,{source.data}"
    else:
        return None
    if kind in _IMAGE_TYPES:
        return {"type": "image", "source": {"media_type": kind, "path": location}}
    return {"type": "audio", "source": {"media_type": _audio(kind), "path": location}}


#: the audio types of ATIF v1.8, and the names some producers give them
_AUDIO = {
    "audio/wav": "audio/wav",
    "audio/x-wav": "audio/wav",
    "audio/wave": "audio/wav",
    "audio/mpeg": "audio/mpeg",
    "audio/mp3": "audio/mpeg",
    "audio/mp4": "audio/mp4",
    "audio/m4a": "audio/mp4",
    "audio/aac": "audio/aac",
    "audio/ogg": "audio/ogg",
    "audio/flac": "audio/flac",
    "audio/webm": "audio/webm",
    "audio/aiff": "audio/aiff",
}


def _audio(kind: str) -> str | None:
    return _AUDIO.get(kind.lower())


def _holds_audio(value: Any) -> bool:
    """Whether written steps hold an audio part (then the trajectory is ATIF-v1.8)."""
    if isinstance(value, dict):
        return value.get("type") == "audio" or any(_holds_audio(v) for v in value.values())
    if isinstance(value, list):
        return any(_holds_audio(v) for v in value)
    return False


def _result(block: ToolResultBlock, line: int, out: Out) -> dict:
    result: dict[str, Any] = {
        "source_call_id": block.id if isinstance(block.id, str) else str(block.id),
    }
    output = block.output
    if isinstance(output, list) and any(isinstance(b, DataBlock) for b in output):
        parts = []
        for item in output:
            part = _media(item) if isinstance(item, DataBlock) else None
            if part is None and isinstance(item, DataBlock):
                out.note(
                    line,
                    pointer(item.path),
                    f"a {item.kind} of type {media_type_of(item)} has no ATIF counterpart: "
                    "written as text",
                )
            parts.append(
                part
                if part is not None
                else {
                    "type": "text",
                    "text": as_text(item) if isinstance(item, Block) else parts_text(item),
                }
            )
        result["content"] = parts
    else:
        result["content"] = parts_text(output)
    if block.state == "error" or block.fields.get("is_error") is True:
        result["extra"] = {"is_error": True}
    return result


def _metrics(msg: Any, out: Out) -> dict | None:
    usage = msg.usage
    from ..dialects import get_dialect

    if usage is None or get_dialect(msg.dialect).token_counts(msg) is None:
        return None  # (no usage, or none the source counts: a synthetic record's)

    def count(value: Any) -> int | None:
        return (
            int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
        )

    prompt = count(usage.input_tokens)
    cached = count(usage.cached_tokens)
    written = count(usage.cache_creation_tokens)

    if prompt is not None and not get_dialect(msg.dialect).input_counts_cache:
        prompt += (cached or 0) + (written or 0)
    metrics: dict[str, Any] = {}
    if prompt is not None:
        metrics["prompt_tokens"] = prompt
    completion = count(usage.output_tokens)
    if completion is not None:
        metrics["completion_tokens"] = completion
    if cached is not None:
        metrics["cached_tokens"] = cached
    if written:
        metrics["extra"] = {"cache_creation_input_tokens": written}
    return metrics or None


def _final(steps: list[dict]) -> dict:
    totals = {"prompt_tokens": 0, "completion_tokens": 0, "cached_tokens": 0}
    seen = dict.fromkeys(totals, False)
    for step in steps:
        metrics = step.get("metrics")
        if isinstance(metrics, dict):
            for key in totals:
                if isinstance(metrics.get(key), int):
                    totals[key] += metrics[key]
                    seen[key] = True
    final: dict[str, Any] = {f"total_{k}": v for k, v in totals.items() if seen[k]}
    final["total_steps"] = len(steps)
    return final


WRITER = AtifWriter()
