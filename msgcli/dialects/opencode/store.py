"""Reading OpenCode's storage: the SQLite database (1.2 and later) and the older
``storage/`` folders of JSON files.

Both give the same records, in the shape ``opencode export`` writes:

- a session record ``{"session": {...}}``: the session as ``opencode export`` gives its
  ``info`` (``id``, ``projectID``, ``parentID``, ``title``, ``time``, ``tokens``...);
- a message record ``{"info": {...}, "parts": [...]}``: the message's JSON ``data`` with
  its ``id`` and ``sessionID``, and its parts in order, each with ``id``, ``messageID``
  and ``sessionID``.

The order is the conversation's: each top-level session (oldest first), its record, then
its messages in order; a sub-agent's session (``parentID`` set) follows the message whose
``task`` call started it, so it reads under that call. What msgcli learns while reading is
kept beside the producer's keys under ``_msgcli`` (``msgcli query`` leaves it out):
``stored_under`` on a message file of the storage layout kept in another session's
folder than the one it names; ``copy_of`` on a message a fork copied from its source (the
source message's id), ``fork_of`` and ``copied`` on a fork's session record and
``branch_of`` (its source) on each of its messages, ``parent`` (the parent session) and
``depth`` on every record of a sub-agent's session; ``unread`` on a message whose data
cannot be read (its parts are kept under it).

**Lines.** A database has no lines: the line of a record is its place in this reading
order (1 for the first session record), and its JSON pointer names the row:
``/<session id>`` for a session, ``/<session id>/messages/<i>`` for the i-th message of
that session (0-based, as in ``opencode export``'s ``messages``). A finding on a part
points below it (``.../messages/3/parts/2/state``).

The database is never opened in place: SQLite keeps its newest rows in the ``-wal`` file
beside it (OpenCode does not merge it back on exit), and opening the file even read-only
may write beside it. The three files are copied into a temporary folder first and the
copy is read, so the write-ahead log is applied and the user's files stay as they were.
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import sqlite3
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson

from ...containers import Unreadable
from ...records import Problem, Record
from .known import MARK

__all__ = ["MARK", "read_database", "read_storage", "storage_root"]


#: the first bytes of every SQLite 3 database
SQLITE_MAGIC = b"SQLite format 3\x00"

_SESSION_COLUMNS = (
    "id, project_id, workspace_id, parent_id, slug, directory, path, title, version, "
    "share_url, summary_additions, summary_deletions, summary_files, summary_diffs, "
    "metadata, cost, tokens_input, tokens_output, tokens_reasoning, tokens_cache_read, "
    "tokens_cache_write, revert, permission, agent, model, time_created, time_updated, "
    "time_compacting, time_archived"
)


_KNOWN_COLUMNS = frozenset(_SESSION_COLUMNS.split(", "))


def _loads(text: Any) -> tuple[Any, str | None]:
    """A JSON column's value, and what was wrong with it (``None``: nothing)."""
    if text is None:
        return None, None
    if isinstance(text, bytes):
        try:
            text = text.decode()
        except UnicodeDecodeError:
            return None, "it is not UTF-8 text"
    try:
        return orjson.loads(text), None
    except orjson.JSONDecodeError as exc:
        return None, f"it is not JSON ({exc})"


def _session_info(row: sqlite3.Row) -> dict[str, Any]:
    """A session row as ``opencode export`` writes the session (nested names)."""
    keys = row.keys()

    def get(name: str) -> Any:
        return row[name] if name in keys else None

    info: dict[str, Any] = {"id": get("id"), "slug": get("slug"), "projectID": get("project_id")}
    if get("workspace_id") is not None:
        info["workspaceID"] = get("workspace_id")
    info["directory"] = get("directory")
    if get("path") is not None:
        info["path"] = get("path")
    if get("parent_id") is not None:
        info["parentID"] = get("parent_id")
    info["title"] = get("title")
    for name in ("agent", "model", "permission", "metadata", "revert"):
        value = get(name)
        if value is not None:
            parsed, _ = _loads(value) if name != "agent" else (value, None)
            info[name] = parsed if parsed is not None else value
    info["version"] = get("version")
    if get("share_url") is not None:
        info["share"] = {"url": get("share_url")}
    summary = {
        k: get(f"summary_{k}")
        for k in ("additions", "deletions", "files")
        if get(f"summary_{k}") is not None
    }
    diffs = get("summary_diffs")
    if diffs is not None:
        summary["diffs"] = _loads(diffs)[0]
    if summary:
        info["summary"] = summary
    info["cost"] = get("cost")
    info["tokens"] = {
        "input": get("tokens_input"),
        "output": get("tokens_output"),
        "reasoning": get("tokens_reasoning"),
        "cache": {"read": get("tokens_cache_read"), "write": get("tokens_cache_write")},
    }
    time = {"created": get("time_created"), "updated": get("time_updated")}
    for name in ("compacting", "archived"):
        if get(f"time_{name}") is not None:
            time[name] = get(f"time_{name}")
    info["time"] = time
    known = _KNOWN_COLUMNS
    for name in keys:
        if name not in known:  # a column a later release added: kept under its own name
            info[name] = row[name]
    return info


class _Session:
    """A session read whole: its info and its message records, each with its problem."""

    __slots__ = ("children", "id", "info", "loader", "messages", "parent")

    def __init__(self, info: dict[str, Any]):
        self.info = info
        self.id = info.get("id")
        self.parent = info.get("parentID")
        self.messages: list[tuple[dict | None, Problem | None]] = []
        self.children: list[_Session] = []
        #: reads the messages when they are wanted (a database is read a session at a time)
        self.loader: Callable[[], list[tuple[dict | None, Problem | None]]] | None = None

    def take(self) -> list[tuple[dict | None, Problem | None]]:
        """The session's messages (read now, if they have a loader), let go of after."""
        found = self.loader() if self.loader is not None else self.messages
        self.messages = []
        self.loader = None
        return found


def _copy_database(path: str, into: str) -> str:
    """The database and its ``-wal`` and ``-shm`` copied into ``into``; the copy's path."""
    target = os.path.join(into, "opencode.db")
    try:
        shutil.copyfile(path, target)
    except OSError as exc:
        raise Unreadable(exc.strerror or str(exc)) from None
    for suffix in ("-wal", "-shm"):
        if os.path.exists(path + suffix):
            try:
                shutil.copyfile(path + suffix, target + suffix)
            except OSError as exc:
                raise Unreadable(f"cannot read its {suffix} file: {exc.strerror or exc}") from None
    return target


def read_database(path: str) -> Iterator[Record]:
    """The records of an OpenCode database (see the module's docstring), read a session at
    a time: what is held is the sessions' rows and, for the fork check, a small signature of
    each message read so far."""
    with tempfile.TemporaryDirectory(prefix="msgcli-opencode-") as scratch:
        copy = _copy_database(path, scratch)
        try:
            connection = sqlite3.connect(f"file:{copy}?mode=ro", uri=True)
        except sqlite3.Error as exc:
            raise Unreadable(f"SQLite cannot open it: {exc}") from None
        try:
            connection.row_factory = sqlite3.Row
            try:
                sessions = _sessions(connection)
            except sqlite3.DatabaseError as exc:
                raise Unreadable(f"SQLite: {exc}") from None
            for session in sessions:
                session.loader = functools.partial(_messages, connection, session.id)
            yield from _ordered(sessions)
        finally:
            connection.close()


def _tables(connection: sqlite3.Connection) -> set[str]:
    rows = connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
    return {r[0] for r in rows}


def _sessions(connection: sqlite3.Connection) -> list[_Session]:
    tables = _tables(connection)
    if not {"session", "message", "part"} <= tables:
        raise Unreadable("a SQLite database without OpenCode's session, message and part tables")
    return [
        _Session(_session_info(row))
        for row in connection.execute("SELECT * FROM session ORDER BY time_created, id")
    ]


def _messages(connection: sqlite3.Connection, sid: Any) -> list[tuple[dict | None, Problem | None]]:
    """The message records of one session, each with its parts (and its problem)."""
    try:
        return _read_messages(connection, sid)
    except sqlite3.DatabaseError as exc:
        raise Unreadable(f"SQLite: {exc}") from None


def _read_messages(
    connection: sqlite3.Connection, sid: Any
) -> list[tuple[dict | None, Problem | None]]:
    out: list[tuple[dict | None, Problem | None]] = []
    parts: dict[str, list[dict]] = {}
    for row in connection.execute(
        "SELECT id, message_id, session_id, data FROM part WHERE session_id = ? ORDER BY id",
        (sid,),
    ):
        data, _why = _loads(row["data"])
        part = data if isinstance(data, dict) else {"data": row["data"]}
        part["id"] = row["id"]
        part["sessionID"] = row["session_id"]
        part["messageID"] = row["message_id"]
        parts.setdefault(row["message_id"], []).append(part)
    for row in connection.execute(
        "SELECT id, session_id, data FROM message WHERE session_id = ? ORDER BY id", (sid,)
    ):
        data, why = _loads(row["data"])
        if not isinstance(data, dict):
            # its parts are still read, under a message that says no more than its ids
            what = why or "it is not a JSON object"
            problem = Problem("P001", f"message {row['id']}: its data cannot be read: {what}")
            info = {"id": row["id"], "sessionID": row["session_id"]}
            record = {"info": info, "parts": parts.pop(row["id"], []), MARK: {"unread": True}}
            out.append((record, problem))
            continue
        data["id"] = row["id"]
        data["sessionID"] = row["session_id"]
        out.append(({"info": data, "parts": parts.pop(row["id"], [])}, None))
    for message_id, orphans in parts.items():
        # parts of a message that is not in the table: kept, under a message of their own
        out.append(({"info": {"id": message_id, "sessionID": sid}, "parts": orphans}, None))
    return out


# -- the older storage/ folders --------------------------------------------------------


def storage_root(path: str) -> Path | None:
    """The ``storage`` folder a session file ``storage/session/<project>/<id>.json`` is in."""
    p = Path(path)
    if len(p.parts) >= 4 and p.parts[-3] == "session" and p.parts[-4] == "storage":
        return p.parent.parent.parent
    return None


def _read_json(path: Path) -> tuple[Any, str | None]:
    try:
        data = path.read_bytes()
    except OSError as exc:
        return None, exc.strerror or str(exc)
    return _loads(data)


def _stored_session(root: Path, sid: Any) -> bool:
    """Whether the storage folder holds the session file of ``sid``."""
    if not isinstance(sid, str) or not sid or "/" in sid or "\\" in sid:
        return False
    return any((root / "session").glob(f"*/{sid}.json"))


@functools.lru_cache(maxsize=8)
def _sessions_in(database: str, _stamp: tuple[int, int]) -> frozenset[str]:
    """The ids of the sessions a database holds (``_stamp``: its size and time, so that a
    database that changed is read again)."""
    try:
        with tempfile.TemporaryDirectory(prefix="msgcli-opencode-") as scratch:
            copy = _copy_database(database, scratch)
            connection = sqlite3.connect(f"file:{copy}?mode=ro", uri=True)
            try:
                return frozenset(r[0] for r in connection.execute("SELECT id FROM session"))
            finally:
                connection.close()
    except (Unreadable, sqlite3.Error):
        return frozenset()


def migrated(root: Path | None, sid: Any) -> bool:
    """Whether the session of a ``storage/`` folder is also in the ``opencode.db`` beside it:
    OpenCode 1.2 copies the JSON files into its database on its first start and leaves them
    where they were, so such a session is read from the database alone."""
    if root is None or not isinstance(sid, str):
        return False
    database = root.parent / "opencode.db"
    try:
        found = database.stat()
    except OSError:
        return False
    return sid in _sessions_in(str(database), (found.st_size, found.st_mtime_ns))


def read_storage(path: str) -> Iterator[Record]:
    """The records of one session of the older ``storage/`` layout, from its session file
    ``storage/session/<project>/<session>.json``: the session, then its messages
    (``storage/message/<session>/<message>.json``) each with its parts
    (``storage/part/<message>/<part>.json``), in id order.

    Each session file is a log of its own: a sub-agent's session is read from its own file
    (marked as a sub-agent's, its parent named), not again under its parent's. A session
    that OpenCode 1.2 has copied into the ``opencode.db`` beside the ``storage`` folder is
    read from there: its file gives its session record alone, marked ``migrated``. Whether the
    parent and the sub-agent sessions a task call names are stored beside it is noted
    (``parent_stored``, ``sessions_stored``) for the checks across records."""
    info, why = _read_json(Path(path))
    if not isinstance(info, dict):
        raise Unreadable(why or "the session file is not a JSON object")
    session = _Session(info)
    root = storage_root(path)
    if migrated(root, session.id):
        # (its session record alone, which says so: the database beside it is read for it)
        yield Record(
            1, {"session": info, MARK: {"migrated": True}}, where="/" + _escape(str(session.id))
        )
        return
    if root is not None and isinstance(session.id, str):
        folder = root / "message" / session.id
        names = sorted(folder.glob("*.json")) if folder.is_dir() else []
        for name in names:
            data, why = _read_json(name)
            if not isinstance(data, dict):
                what = why or "it is not a JSON object"
                session.messages.append(
                    (None, Problem("P001", f"{name.name}: cannot be read: {what}"))
                )
                continue
            parts = []
            mid = data.get("id", name.stem)
            pfolder = root / "part" / str(mid)
            for pname in sorted(pfolder.glob("*.json")) if pfolder.is_dir() else []:
                part, _ = _read_json(pname)
                parts.append(part if isinstance(part, dict) else {"id": pname.stem})
            record: dict[str, Any] = {"info": data, "parts": parts}
            noted: dict[str, Any] = {}
            stored = [c for c in _task_children(record) if _stored_session(root, c)]
            if stored:
                noted["sessions_stored"] = stored
            if data.get("sessionID") != session.id:
                noted["stored_under"] = session.id
            if noted:
                record[MARK] = noted
            session.messages.append((record, None))
    parent = session.parent
    if isinstance(parent, str) and parent != session.id:
        found = root is not None and _stored_session(root, parent)
        yield from _ordered([session], parent=parent, parent_stored=found)
    else:
        yield from _ordered([session])


# -- the reading order -------------------------------------------------------------------


def _signature(record: dict) -> bytes:
    """What a fork's copy of a message keeps of its source: the role, the creation time,
    the tokens and cost, and each part's type and text or call id (as a digest of 16 bytes,
    which is all that is kept of each message read)."""
    info = record["info"]
    time = info.get("time")
    parts = [
        (
            p.get("type"),
            p.get("text") if isinstance(p.get("text"), str) else p.get("callID"),
        )
        for p in record["parts"]
        if isinstance(p, dict)
    ]
    cost = info.get("cost")
    kept = [
        info.get("role"),
        time.get("created") if isinstance(time, dict) else None,
        info.get("tokens"),
        cost if isinstance(cost, (int, float)) else None,
        parts,
    ]
    try:
        text = orjson.dumps(kept, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # (a value orjson cannot write: an integer past 64 bits)
        text = repr(kept).encode("utf-8", "surrogatepass")
    return hashlib.blake2b(text, digest_size=16).digest()


def _task_children(record: dict) -> list[str]:
    """The sessions the ``task`` calls of a message started (``state.metadata.sessionId``)."""
    out = []
    for part in record["parts"]:
        if not isinstance(part, dict) or part.get("type") != "tool":
            continue
        state = part.get("state")
        meta = state.get("metadata") if isinstance(state, dict) else None
        child = meta.get("sessionId") if isinstance(meta, dict) else None
        if isinstance(child, str):
            out.append(child)
    return out


def _ordered(
    sessions: list[_Session], parent: str | None = None, parent_stored: bool = False
) -> Iterator[Record]:
    """The records of ``sessions`` in the reading order; ``parent``: the session the first
    one was started from when that one is read from a file of its own (the storage
    layout), ``parent_stored`` whether it is stored beside it."""
    by_id = {s.id: s for s in sessions if isinstance(s.id, str)}
    for session in sessions:
        above = by_id.get(session.parent) if isinstance(session.parent, str) else None
        if above is not None and above is not session:
            above.children.append(session)
    roots = [
        s
        for s in sessions
        if not isinstance(s.parent, str) or s.parent not in by_id or s.parent == s.id
    ]
    seen: dict[bytes, tuple[str, str]] = {}  # signature -> (session id, message id)
    done: set[int] = set()
    line = 0

    def emit(session: _Session, parent: str | None, depth: int) -> Iterator[Record]:
        nonlocal line
        if id(session) in done:
            return
        done.add(id(session))
        mark: dict[str, Any] = {}
        if parent is not None:
            mark = {"parent": parent, "depth": depth}
        messages = session.take()
        copies: dict[int, str] = {}
        source: str | None = None
        for index, (record, _) in enumerate(messages):
            if record is None:
                break
            hit = seen.get(_signature(record))
            if hit is None or hit[0] == session.id:
                break
            # (a fork of a fork copies its source's copies too: the run of copies goes back
            # to the session each message was first read in; the last is the one forked)
            source = hit[0]
            copies[index] = hit[1]
        info = dict(session.info)
        session_mark = dict(mark)
        if source is not None:
            session_mark.update(fork_of=source, copied=len(copies))
        if parent_stored and depth == 1 and parent is not None and line == 0:
            session_mark["parent_stored"] = True
        if session_mark:
            info_record: dict[str, Any] = {"session": info, MARK: session_mark}
        else:
            info_record = {"session": info}
        line += 1
        sid = session.id if isinstance(session.id, str) else str(session.id)
        yield Record(line, info_record, where="/" + _escape(sid))
        children = {c.id: c for c in session.children}
        for index, (record, problem) in enumerate(messages):
            line += 1
            where = f"/{_escape(sid)}/messages/{index}"
            if record is None:
                yield Record(line, None, problem, where=where)
                continue
            own = {**record.get(MARK, {}), **mark}
            if source is not None:
                own["branch_of"] = source
            if index in copies:
                own["copy_of"] = copies[index]
            else:
                mid = record["info"].get("id")
                seen.setdefault(_signature(record), (sid, mid if isinstance(mid, str) else ""))
            if own:
                record[MARK] = own
            yield Record(line, record, problem, where=where)
            for child_id in _task_children(record):
                child = children.get(child_id)
                if child is not None:
                    yield from emit(child, sid, depth + 1)
        for child in session.children:
            yield from emit(child, sid, depth + 1)

    for root in roots:
        if parent is not None and root is sessions[0]:
            yield from emit(root, parent, 1)
        else:
            yield from emit(root, None, 0)
    for session in sessions:  # (a cycle of parents: read all the same)
        yield from emit(session, session.parent if isinstance(session.parent, str) else None, 1)
    if line == 0:
        yield Record(0, None, Problem("P008", "the database holds no OpenCode session"))


def _escape(text: str) -> str:
    return text.replace("~", "~0").replace("/", "~1")
