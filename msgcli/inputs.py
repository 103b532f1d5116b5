"""The inputs of a run: which files the paths on a command line name.

A path is a file, a directory (every log file below it, hidden folders skipped, in
name order), ``-`` (standard input) or a URL (an object, or every log below a prefix:
:mod:`msgcli.remote`). :data:`LOG_SUFFIXES` is the one list of the names a directory
scan takes (kept in :mod:`msgcli.suffixes`, below everything); every command that scans
a directory reads it from here.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .reader import STDIN_NAME, json_file_is_log
from .suffixes import DOCUMENT_SUFFIXES, LOG_SUFFIXES, is_log_name, suffix_list

if TYPE_CHECKING:  # pragma: no cover
    from .engine import Options

__all__ = [
    "DOCUMENT_SUFFIXES",
    "LOG_SUFFIXES",
    "SpecialFile",
    "expand_paths",
    "log_files",
    "planned",
    "suffix_list",
]


def expand_paths(
    paths: Iterable[str | Path],
    skipped: list[str] | None = None,
    excluded: Callable[[str], bool] | None = None,
) -> Iterator[tuple[str, str | Path | None, str]]:
    """``(display name, source, problem)`` for every input named on the command line.

    A directory gives every log file below it (hidden folders skipped, and pipes,
    sockets and devices named in ``skipped``), in name order; ``source`` is ``None`` when
    the path cannot be used, with
    ``problem`` saying why. A ``*.json`` file found there that is no log of a known
    dialect (a schema, a configuration, a state file without messages) is passed over,
    and named in ``skipped``; named on the command line, it is checked (``P011``). A file
    ``excluded(name)`` says the configuration excludes is not opened to find out.
    """
    for raw in paths:
        text = str(raw)
        if text == "-":
            yield STDIN_NAME, "-", ""
            continue
        if "://" in text:
            from .remote import is_url, listing, mask

            if is_url(text):
                # a URL: the object, or every log below the prefix (raises RemoteError)
                from .containers import scan_names

                for url, _ in listing(text, (*LOG_SUFFIXES, *scan_names())):
                    if url != text and _no_log(url, excluded):
                        if skipped is not None:
                            skipped.append(mask(url))
                        continue
                    yield mask(url), url, ""
                continue
        path = Path(text)
        if path.is_dir():
            found = False
            for full, special in log_files(os.fspath(path)):
                found = True
                if special or _no_log(full, excluded):
                    if skipped is not None:
                        skipped.append(SpecialFile(full) if special else full)
                    continue
                yield full, full, ""
            if not found:
                yield text, None, "no-logs"
        elif path.exists():
            yield text, path, ""
        else:
            yield text, None, "missing"


class SpecialFile(str):
    """The name of a pipe, a socket or a device that a directory scan passed over (in
    ``skipped``, beside the JSON documents that are no logs)."""

    __slots__ = ()


def log_files(folder: str) -> Iterator[tuple[str, bool]]:
    """``(path, special)`` for every file with a log's name below ``folder``, in the order
    a directory scan takes them: a folder's files by name, then each of its folders by
    name (hidden ones skipped, links to folders not followed). ``special``: a pipe, a
    socket or a device, passed over (reading a named pipe waits for a writer that may never
    come; named on the command line, ``<(zcat log.gz)``, it is read). The listing says
    what each entry is: no file is looked at one more time to find out."""
    pending = [folder]
    while pending:
        current = pending.pop()
        try:
            with os.scandir(current) as listing:
                entries = sorted(listing, key=_name_of)
        except OSError:
            continue
        folders = []
        for entry in entries:
            if _is_folder(entry):
                if not entry.name.startswith(".") and not entry.is_symlink():
                    folders.append(entry.path)
            elif is_log_name(entry.name):
                yield entry.path, _is_special(entry)
        pending.extend(reversed(folders))


def _name_of(entry: os.DirEntry) -> str:
    return entry.name


def _is_folder(entry: os.DirEntry) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _is_special(entry: os.DirEntry) -> bool:
    try:
        if entry.is_file():
            return False
    except OSError:
        return False  # (a link that loops is read, and says why it cannot be)
    # (so is a link that leads nowhere)
    return not (entry.is_symlink() and not os.path.exists(entry.path))


def _no_log(name: str, excluded: Any) -> bool:
    """Whether a file a directory scan found is a JSON document that is no log (passed over;
    one the configuration excludes is not even opened)."""
    return (
        name.endswith(DOCUMENT_SUFFIXES)
        and not (excluded is not None and excluded(name))
        and not json_file_is_log(name)
    )


def planned(
    paths: Iterable[str | Path],
    options: Options,
    excluded: list[str] | None = None,
    skipped: list[str] | None = None,
) -> Iterator[tuple[str, str | Path | None, str, Options | None]]:
    """``expand_paths`` with each usable file's own options (None for a path that names no
    log); the files the configuration excludes go to ``excluded`` instead."""
    left_out = None if options.files is None else (lambda name: options.for_file(name) is None)
    for name, source, problem in expand_paths(paths, skipped, left_out):
        if source is None:
            yield name, None, problem, None
            continue
        chosen = options.for_file(name)
        if chosen is None:
            if excluded is not None:
                excluded.append(name)
            continue
        yield name, source, problem, chosen
