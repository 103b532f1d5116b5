"""Logs kept in a file that is no JSON text: a database, a protobuf body.

A dialect whose producer keeps its logs in such a file (OpenCode's SQLite database,
an OTLP protobuf body) declares a :class:`Container`: the names a directory scan takes
for it, the first bytes that give it away whatever it is called, and the function that
reads its records. :func:`msgcli.dialects.register` adds a dialect's containers here, so
that :func:`msgcli.reader.read_records` and the directory scan know them without an edit
elsewhere. This module sits below everything (it imports nothing of msgcli's at import
time): the reader and the scan ask it, the dialects fill it.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

__all__ = [
    "CONTAINERS",
    "Container",
    "Unreadable",
    "add_container",
    "container_for",
    "scan_names",
]


class Unreadable(Exception):
    """What a container's reader raises when the file cannot be read at all (the reader
    turns it into a :class:`msgcli.reader.ReadError`, from this module below it)."""


@dataclass(frozen=True)
class Container:
    """A kind of file holding a dialect's records in a form other than JSON text.

    ``names``: the endings (``.db``) or whole names (``opencode.db``) a directory scan takes
    for it; ``pattern``: a regular expression a path (``/`` between its folders) matches
    to be this container whatever its name, for a container told by where it lies (a JSON
    file of a storage layout, ``storage/session/<project>/<id>.json``); ``magic``: the bytes
    such a file begins with (``None``: told by its name only);
    ``reader``: ``"module:function"``, the function taking a path and giving the records
    (:class:`msgcli.records.Record`) of the file in order, each with the line (or row
    number) a finding about it names; it raises :class:`Unreadable` when the file cannot be
    read at all, and turns every other problem into a record's problem.
    """

    names: tuple[str, ...]
    reader: str
    magic: bytes | None = None
    pattern: str | None = None
    #: the endings of the files that go with one of this kind beside it (a SQLite
    #: database's ``-wal`` and ``-shm``): copied along when it is read from object storage
    companions: tuple[str, ...] = ()

    def load(self) -> Callable[[str], Iterator[Any]]:
        module, _, attr = self.reader.partition(":")
        return getattr(importlib.import_module(module), attr)

    def takes_name(self, name: str) -> bool:
        base = name.rsplit("/", 1)[-1]
        if any(base == n or (n.startswith(".") and base.endswith(n)) for n in self.names):
            return True
        return (
            self.pattern is not None
            and re.search(self.pattern, name.replace("\\", "/")) is not None
        )


#: every container known, in the order registered
CONTAINERS: list[Container] = []


def add_container(container: Container) -> None:
    if container not in CONTAINERS:
        CONTAINERS.append(container)


def scan_names() -> tuple[str, ...]:
    """The names a directory scan takes beyond msgcli's JSON log names."""
    return tuple(n for c in CONTAINERS for n in c.names)


def container_for(name: str, head: bytes) -> Container | None:
    """The container a file of this name that begins with ``head`` is, or ``None``."""
    for container in CONTAINERS:
        if container.magic is not None and head.startswith(container.magic):
            return container
    for container in CONTAINERS:
        if container.takes_name(name):
            return container
    return None
