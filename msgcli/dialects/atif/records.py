"""An ATIF trajectory as records, and each record as neutral messages.

A ``trajectory.json`` is one JSON document. :func:`split` makes records of it, each with
its JSON pointer: one for the trajectory itself (its ``agent``, ``notes``,
``final_metrics``..., the steps left out) and one per step, and the same for every
embedded subagent trajectory (``subagent_trajectories``, ATIF v1.7), depth first. Each
record carries, under :data:`NOTE`, what reading it needs from around it (its pointer, the
trajectory it belongs to, the agent's model); :meth:`AtifDialect.record_out` takes it off
again. A trajectory written whole on one line (a JSONL file of trajectories) is one record
(:data:`WHOLE`), read into all of its messages.

A step is read (:func:`read_step`) into the messages it records: a ``user`` or ``system``
step into one message of that role; an ``agent`` step into an assistant message (its
``reasoning_content`` as thinking, its ``message`` as text, its ``tool_calls``, its
``metrics`` as usage), then one ``tool`` message per observation result that answers a
call (``source_call_id``), and one ``observation`` message for the results that answer
none (a system event's).
"""

from __future__ import annotations

from typing import Any

from ...model import (
    Block,
    DataBlock,
    Message,
    Source,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    UnknownBlock,
    Usage,
)
from ..base import is_number

__all__ = [
    "HEAD",
    "NOTE",
    "STEP",
    "WHOLE",
    "is_trajectory",
    "read_record",
    "split",
]

#: the key under which the reader notes, on each record, where it stands in the document
NOTE = "msgcli_atif"
#: what a record is (``NOTE["kind"]``): a trajectory's own fields, a step; a trajectory
#: that is a record of its own (a line of a JSONL file) is :data:`WHOLE`
HEAD = "trajectory"
STEP = "step"
WHOLE = "whole"

NAME = "atif"

#: the keys of a trajectory that its head record leaves out (they are records of their own)
_NESTED = ("steps", "subagent_trajectories")
#: the cache-creation counts a step's ``metrics.extra`` may hold (an Anthropic model's)
CACHE_WRITE_KEYS = ("cache_creation_input_tokens", "cache_creation_tokens", "cache_write_tokens")
#: the reasoning counts a step's ``metrics.extra`` may hold
REASONING_KEYS = ("reasoning_tokens",)


def is_trajectory(obj: Any) -> bool:
    """Whether a JSON object is an ATIF trajectory: a ``schema_version`` ``ATIF-v…`` and an
    ``agent`` or ``steps``."""
    if type(obj) is not dict:
        return False
    version = obj.get("schema_version")
    return (
        type(version) is str and version.startswith("ATIF-") and ("steps" in obj or "agent" in obj)
    )


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def split(document: dict, base: str = "") -> list[tuple[str, dict]]:
    """``(JSON pointer, record)`` for the trajectory ``document`` (at ``base`` in its file)
    and everything it embeds, in document order: its head, its steps, then each subagent
    trajectory the same way."""
    out: list[tuple[str, dict]] = []
    _split(document, base, out, None, 0, document)
    return out


def _split(
    trajectory: dict, at: str, out: list, parent: str | None, depth: int, root: dict
) -> None:
    agent = trajectory.get("agent")
    agent = agent if isinstance(agent, dict) else {}
    tid = trajectory.get("trajectory_id")
    session = trajectory.get("session_id")
    context: dict[str, Any] = {
        "trajectory": tid if isinstance(tid, str) else None,
        "session": session if isinstance(session, str) else None,
        "agent": agent.get("name") if isinstance(agent.get("name"), str) else None,
        "model": agent.get("model_name") if isinstance(agent.get("model_name"), str) else None,
        "version": trajectory.get("schema_version"),
        "depth": depth,
        "parent": parent,
    }
    head = {k: v for k, v in trajectory.items() if k not in _NESTED}
    note: dict[str, Any] = {"kind": HEAD, "at": at, **context}
    steps = trajectory.get("steps")
    subs = trajectory.get("subagent_trajectories")
    note["steps"] = len(steps) if isinstance(steps, list) else 0
    # the embedded subagent trajectories by id: where a step's reference finds them
    found = {
        sub["trajectory_id"]: f"{at}/subagent_trajectories/{index}"
        for index, sub in enumerate(subs if isinstance(subs, list) else ())
        if isinstance(sub, dict) and isinstance(sub.get("trajectory_id"), str)
    }
    if found:
        context["subagents"] = found
    if depth == 0:
        note["document"] = root  # the whole document, for the checks (see checks.py)
    head[NOTE] = note
    out.append((at, head))
    if isinstance(steps, list):
        for index, step in enumerate(steps):
            if isinstance(step, dict):
                record = dict(step)
                record[NOTE] = {"kind": STEP, "at": f"{at}/steps/{index}", **context}
                out.append((f"{at}/steps/{index}", record))
    if isinstance(subs, list):
        for index, sub in enumerate(subs):
            if isinstance(sub, dict):
                _split(
                    sub,
                    f"{at}/subagent_trajectories/{index}",
                    out,
                    context["trajectory"] or at,
                    depth + 1,
                    root,
                )


# -- reading ------------------------------------------------------------------------


def read_record(obj: dict) -> list[tuple[dict, Message]]:
    """The messages of one record, each with the JSON it was read from (the record)."""
    note = obj.get(NOTE)
    if not isinstance(note, dict):
        if is_trajectory(obj):
            return _read_whole(obj)
        return [(obj, read_step(obj, {}, ()))] if "source" in obj else []
    if note.get("kind") == HEAD:
        return [(obj, read_head(obj, note))]
    return [(obj, msg) for msg in read_step_messages(obj, note, ())]


def _read_whole(obj: dict) -> list[tuple[dict, Message]]:
    """A trajectory that is one record: the messages of every step (its blocks' paths from
    the top of the trajectory), the head's first."""
    out: list[tuple[dict, Message]] = []
    for at, record in split(obj):
        note = record[NOTE]
        path = tuple(int(p) if p.isdigit() else p for p in at.split("/")[1:])
        if note["kind"] == HEAD:
            out.append((obj, read_head(record, note)))
        else:
            out.extend((obj, msg) for msg in read_step_messages(record, note, path))
    return out


def read_head(obj: dict, note: dict) -> Message:
    """The trajectory's own record, as a message ``show --all`` shows: who ran it, and its
    final metrics."""
    agent = obj.get("agent")
    words = []
    if isinstance(agent, dict):
        words.append(" ".join(str(agent.get(k)) for k in ("name", "version") if agent.get(k)))
        if agent.get("model_name"):
            words.append(f"model {agent.get('model_name')}")
    words.append(f"{note.get('steps', 0)} step{'s' if note.get('steps') != 1 else ''}")
    final = obj.get("final_metrics")
    if isinstance(final, dict):
        counts = ", ".join(
            f"{key[len('total_') :]} {value}"
            for key, value in final.items()
            if key.startswith("total_") and key != "total_steps" and value is not None
        )
        if counts:
            words.append(f"final metrics: {counts}")
    if obj.get("continued_trajectory_ref"):
        words.append(f"continued in {obj.get('continued_trajectory_ref')}")
    text = f"{obj.get('schema_version')} trajectory " + "; ".join(w for w in words if w)
    fields = {k: v for k, v in obj.items() if k != NOTE}
    return Message(
        NAME,
        role=HEAD,
        id=note.get("trajectory") or note.get("session"),
        content=[TextBlock("text", text=text, path=())],
        variant=_variant(obj.get("schema_version")),
        fields=fields,
    )


def _variant(version: Any) -> str | None:
    if type(version) is str and version.startswith("ATIF-v"):
        return version[len("ATIF-v") :]
    return None


def read_step_messages(obj: dict, note: dict, path: tuple) -> list[Message]:
    """The messages of a step record: its own, then one per observation result."""
    msg = read_step(obj, note, path)
    out = [msg]
    observation = obj.get("observation")
    results = observation.get("results") if isinstance(observation, dict) else None
    if not isinstance(results, list):
        return out
    names = {
        b.id: b.name for b in msg.content if isinstance(b, ToolCallBlock) and isinstance(b.id, str)
    }
    loose: list[Block] = []
    for index, result in enumerate(results):
        where = (*path, "observation", "results", index)
        if not isinstance(result, dict):
            loose.append(UnknownBlock("unknown", path=where, raw=result))
            continue
        cid = result.get("source_call_id")
        if isinstance(cid, str):
            block: Block = ToolResultBlock(
                "tool_result",
                id=cid,
                name=names.get(cid),
                path=where,
                output=_content(result.get("content"), (*where, "content")),
                state="success",
                fields=_result_fields(result),
            )
            out.append(_sibling(msg, "tool", [block], index))
        else:
            loose.append(
                TextBlock(
                    "text",
                    text=_plain(result.get("content")),
                    path=(*where, "content"),
                    fields=_result_fields(result),
                )
            )
    if loose:
        out.append(_sibling(msg, "observation", loose, None))
    return out


def _result_fields(result: dict) -> dict[str, Any]:
    return {k: result[k] for k in ("subagent_trajectory_ref", "extra") if k in result}


def _sibling(msg: Message, role: str, blocks: list[Block], index: int | None) -> Message:
    return Message(
        NAME,
        role=role,
        name=msg.name,
        id=None if msg.id is None else f"{msg.id}/{'obs' if index is None else index}",
        content=blocks,
        timestamp=msg.timestamp,
        variant=msg.variant,
        fields={
            k: msg.fields[k]
            for k in ("step_id", "trajectory", "session", "depth", "subagents")
            if k in msg.fields
        },
    )


_STEP_KEYS = (
    "step_id",
    "source",
    "message",
    "subagents",
    "reasoning_content",
    "tool_calls",
    "observation",
    "metrics",
    "timestamp",
    NOTE,
)


def read_step(obj: dict, note: dict, path: tuple) -> Message:
    """A step's own message (its observation is read by :func:`read_step_messages`)."""
    source = obj.get("source")
    role = {"agent": "assistant"}.get(source, source) if isinstance(source, str) else None
    blocks: list[Block] = []
    reasoning = obj.get("reasoning_content")
    if isinstance(reasoning, str) and reasoning:
        blocks.append(
            ThinkingBlock("thinking", thinking=reasoning, path=(*path, "reasoning_content"))
        )
    message = obj.get("message")
    if isinstance(message, list):
        blocks.extend(_parts(message, (*path, "message")))
    elif isinstance(message, str):
        if message or source != "agent":
            blocks.append(TextBlock("text", text=message, path=(*path, "message")))
    elif message is not None:
        blocks.append(UnknownBlock("unknown", raw=message, path=(*path, "message")))
    calls = obj.get("tool_calls")
    if isinstance(calls, list):
        for index, call in enumerate(calls):
            where = (*path, "tool_calls", index)
            if not isinstance(call, dict):
                blocks.append(UnknownBlock("unknown", raw=call, path=where))
                continue
            arguments = call.get("arguments")
            blocks.append(
                ToolCallBlock(
                    "tool_call",
                    id=call.get("tool_call_id"),
                    path=where,
                    name=call.get("function_name"),
                    input=arguments,
                    arguments=arguments,
                    fields={"extra": call["extra"]} if "extra" in call else {},
                )
            )
    fields = {k: v for k, v in obj.items() if k not in _STEP_KEYS}
    fields["step_id"] = obj.get("step_id")
    trajectory = note.get("trajectory")
    fields["trajectory"] = trajectory
    fields["session"] = note.get("session")
    fields["depth"] = note.get("depth", 0)
    if note.get("subagents"):
        fields["subagents"] = note["subagents"]
    observation = obj.get("observation")
    results = observation.get("results") if isinstance(observation, dict) else None
    refs = [
        ref
        for result in (results if isinstance(results, list) else ())
        if isinstance(result, dict) and isinstance(result.get("subagent_trajectory_ref"), list)
        for ref in result["subagent_trajectory_ref"]
    ]
    if refs:
        # the subagents its calls started (show nests them under the step)
        fields["subagent_refs"] = refs
    if role == "assistant" and "model_name" not in fields and note.get("model"):
        fields["model"] = note.get("model")
    elif "model_name" in fields:
        fields["model"] = fields["model_name"]
    step_id = obj.get("step_id")
    depth = note.get("depth", 0)
    msg_id: Any = step_id
    if depth and trajectory:
        msg_id = f"{trajectory}/{step_id}"
    return Message(
        NAME,
        role=role,
        name=trajectory if depth else None,
        id=msg_id,
        content=blocks,
        timestamp=obj.get("timestamp"),
        usage=read_usage(obj.get("metrics")),
        variant=_variant(note.get("version")),
        fields=fields,
    )


def read_usage(metrics: Any) -> Usage | None:
    """A step's ``metrics`` as usage: ``prompt_tokens`` (cached tokens included, as ATIF
    counts them), ``completion_tokens``, ``cached_tokens``; the cache-creation count an
    Anthropic model's step keeps in ``metrics.extra``."""
    if not isinstance(metrics, dict):
        return None

    def number(key: str, where: dict = metrics) -> Any:
        value = where.get(key)
        return value if is_number(value) else None

    extra = metrics.get("extra")
    written = None
    if isinstance(extra, dict):
        for key in CACHE_WRITE_KEYS:
            written = number(key, extra)
            if written is not None:
                break
    return Usage(
        input_tokens=number("prompt_tokens"),
        output_tokens=number("completion_tokens"),
        cached_tokens=number("cached_tokens"),
        cache_creation_tokens=written,
        extra={k: v for k, v in metrics.items() if k not in _USAGE_KEYS},
    )


_USAGE_KEYS = frozenset({"prompt_tokens", "completion_tokens", "cached_tokens"})


def _content(value: Any, path: tuple) -> Any:
    """An observation result's content: a string, or content parts as blocks."""
    if isinstance(value, list):
        return _parts(value, path)
    return value


def _plain(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(
            p.get("text", "") for p in value if isinstance(p, dict) and p.get("type") == "text"
        )
    return "" if value is None else str(value)


def _parts(parts: list, path: tuple) -> list[Block]:
    """ATIF content parts (v1.6: text and image; v1.8: audio) as blocks."""
    out: list[Block] = []
    for index, part in enumerate(parts):
        where = (*path, index)
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "text":
            out.append(TextBlock("text", text=part.get("text"), path=where))
        elif kind in ("image", "audio") and isinstance(part.get("source"), dict):
            source = part["source"]
            location = source.get("path")
            media = source.get("media_type")
            found = Source("url", url=location, media_type=media)
            if isinstance(location, str) and location.startswith("data:") and "," in location:
                # the image itself, as a data URL
                found = Source("base64", data=location.partition(",")[2], media_type=media)
            out.append(DataBlock("data", path=where, kind=kind, source=found))
        else:
            out.append(UnknownBlock("unknown", raw=part, path=where))
    return out
