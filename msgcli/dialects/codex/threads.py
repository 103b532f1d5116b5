"""Finding the rollouts of related threads (looked for afresh each time: a folder a
long-lived process reads may gain files): the parent a fork or a sub-agent names, and
the sub-agents a thread spawned. They are looked for in the sessions folder the rollout is
in (``sessions/YYYY/MM/DD/``: the folder three levels up), else beside it."""

from __future__ import annotations

import os
import re
from typing import Any

import orjson

__all__ = [
    "children",
    "find_thread",
    "first_record",
    "forks",
    "last_ordinal",
    "nested_among",
    "sessions_root",
    "thread_in_name",
]

_NAME = re.compile(
    r"rollout-.*?([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl(?:\.zst)?$"
)
_DIGITS = re.compile(r"\d+")


def thread_in_name(path: str) -> str | None:
    """The thread id a rollout's file name gives."""
    found = _NAME.search(os.path.basename(path))
    return found.group(1) if found else None


def _is_url(path: str) -> bool:
    return "://" in path


def _exists(path: str) -> bool:
    """Whether a rollout is there to be read (an object in storage is taken as there: the
    reading says otherwise)."""
    return _is_url(path) or os.path.exists(path)


def sessions_root(path: str) -> str:
    """The sessions folder of a rollout in the CLI's layout, else its own folder (a URL's
    prefix likewise)."""
    sep = "/" if _is_url(path) else os.sep
    folder = path.rsplit("/", 1)[0] if _is_url(path) else os.path.dirname(os.path.abspath(path))
    parts = folder.split(sep)
    if len(parts) > 3 and all(_DIGITS.fullmatch(p) for p in parts[-3:]):
        return sep.join(parts[:-3]) or sep
    return folder


def _rollouts(root: str) -> dict[str, str]:
    out: dict[str, str] = {}
    if _is_url(root):
        from ...remote import RemoteError, listing

        try:
            found = listing(root.rstrip("/") + "/", (".jsonl", ".jsonl.zst"))
        except RemoteError:
            return out
        for url, _ in found:
            tid = thread_in_name(url)
            if tid is not None:
                out.setdefault(tid, url)
        return out
    for here, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files):
            tid = thread_in_name(name)
            if tid is not None:
                out.setdefault(tid, os.path.join(here, name))
    return out


def find_thread(path: str, thread_id: Any) -> str | None:
    """The rollout of ``thread_id`` in the sessions folder of ``path``."""
    if not isinstance(thread_id, str) or not _exists(path):
        return None
    return _rollouts(sessions_root(path)).get(thread_id)


def _open(path: str) -> Any:
    """A rollout's bytes, un-compressed when it is a ``.jsonl.zst``."""
    if _is_url(path):
        from ...remote import open_binary

        stream = open_binary(path)
    else:
        stream = open(path, "rb")  # noqa: SIM115 (closed by the caller's with)
    if path.endswith(".zst"):
        import io

        import zstandard  # the zstd extra, as the reader uses it

        return io.BufferedReader(
            zstandard.ZstdDecompressor().stream_reader(stream, read_across_frames=True)
        )
    return stream


def first_record(path: str) -> dict | None:
    """The first record of a rollout (its ``session_meta``), or None."""
    try:
        with _open(path) as stream:
            line = stream.readline(1 << 24)
        value = orjson.loads(line)
    except (OSError, ValueError, Exception):  # a broken file names no thread
        return None
    return value if isinstance(value, dict) else None


def last_ordinal(path: str) -> int | None:
    """The ordinal of a rollout's last record."""
    last = None
    try:
        with _open(path) as stream:
            for line in stream:
                if b'"ordinal"' not in line:
                    continue
                try:
                    value = orjson.loads(line)
                except orjson.JSONDecodeError:
                    continue
                if isinstance(value, dict) and type(value.get("ordinal")) is int:
                    last = value["ordinal"]
    except Exception:  # a file cut off: what was read
        return last
    return last


def children(path: str, thread_id: Any) -> list[tuple[str, str, str]]:
    """``(agent path, title, rollout)`` of each sub-agent ``thread_id`` spawned."""
    if not isinstance(thread_id, str) or not _exists(path):
        return []
    return list(_children(sessions_root(path), thread_id))


def _children(root: str, thread_id: str) -> tuple[tuple[str, str, str], ...]:
    out = []
    for tid, where in _rollouts(root).items():
        if tid == thread_id:
            continue
        first = first_record(where)
        meta = first.get("payload") if isinstance(first, dict) else None
        if not isinstance(meta, dict) or meta.get("parent_thread_id") != thread_id:
            continue
        source = meta.get("source")
        spawn = source.get("subagent") if isinstance(source, dict) else None
        spawn = spawn.get("thread_spawn") if isinstance(spawn, dict) else None
        agent = spawn.get("agent_path") if isinstance(spawn, dict) else None
        nick = spawn.get("agent_nickname") if isinstance(spawn, dict) else None
        agent = agent if isinstance(agent, str) else tid
        title = f"sub-agent {agent}" + (f" ({nick})" if isinstance(nick, str) else "")
        out.append((agent, title, where))
    return tuple(out)


def forks(path: str, thread_id: Any) -> dict[Any, list[tuple[str, str]]]:
    """The forks of ``thread_id`` in the sessions folder of ``path``: ``(title, rollout)``
    of each, by the ordinal of the parent's last response before the fork (where ``show``
    puts the branch)."""
    if not isinstance(thread_id, str) or not _exists(path):
        return {}
    found: list[tuple[int, str, str]] = []
    for tid, where in _rollouts(sessions_root(path)).items():
        if tid == thread_id:
            continue
        first = first_record(where)
        meta = first.get("payload") if isinstance(first, dict) else None
        if not isinstance(meta, dict) or meta.get("forked_from_id") != thread_id:
            continue
        at = meta.get("forked_from_ordinal_exclusive")
        if type(at) is int:
            found.append((at, f"fork {tid} (a branch from here)", where))
    if not found:
        return {}
    starts = _response_ordinals(path)
    out: dict[Any, list[tuple[str, str]]] = {}
    for at, title, where in sorted(found):
        before = [o for o in starts if o < at]
        out.setdefault(before[-1] if before else None, []).append((title, where))
    return out


def _response_ordinals(path: str) -> list[int]:
    """The ordinals of the responses of a rollout, as :mod:`.assemble` joins them."""
    from .assemble import Assembler
    from .known import RESPONSE

    assembler = Assembler()
    out = []
    with _open(path) as stream:
        for number, line in enumerate(stream, 1):
            try:
                value = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            if isinstance(value, dict):
                for _, record in assembler.feed(number, value):
                    if record.get("type") == RESPONSE and type(record.get("ordinal")) is int:
                        out.append(record["ordinal"])
    for _, record in assembler.finish():
        if record.get("type") == RESPONSE and type(record.get("ordinal")) is int:
            out.append(record["ordinal"])
    return out


def nested_among(sources: list[Any]) -> set[str]:
    """Of the given inputs, the sub-agent and fork rollouts whose parent's rollout is given
    too (the parent's ``show`` nests them: a sub-agent under its ``spawn_agent`` call, a
    fork after the parent's last response before it)."""
    given = {}
    for source in sources:
        name = str(source) if source is not None else ""
        tid = thread_in_name(name)
        if tid is not None and _exists(name):
            given[tid] = name
    out: set[str] = set()
    if len(given) < 2:
        return out
    for name in given.values():
        first = first_record(name)
        meta = first.get("payload") if isinstance(first, dict) else None
        for key in ("parent_thread_id", "forked_from_id"):
            parent = meta.get(key) if isinstance(meta, dict) else None
            if isinstance(parent, str) and parent in given:
                out.add(name)
    return out
