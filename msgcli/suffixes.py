"""The names a directory scan takes: the one list (below everything, so that rule texts
and the command line's help can name it without importing the readers)."""

from __future__ import annotations

__all__ = ["DOCUMENT_SUFFIXES", "LOG_SUFFIXES", "is_log_name", "suffix_list"]

#: what a directory is searched for (its hidden folders and files are skipped)
LOG_SUFFIXES = (".jsonl", ".jsonl.gz", ".jsonl.zst", ".json", ".json.gz", ".ndjson", ".sse")
#: of the suffixes a directory scan takes, those of files that may be JSON documents
DOCUMENT_SUFFIXES = (".json", ".json.gz")


def suffix_list() -> str:
    """``*.jsonl, *.jsonl.gz, ... or *.sse``: the names a directory scan takes, in words."""
    names = [f"*{s}" for s in LOG_SUFFIXES]
    return ", ".join(names[:-1]) + " or " + names[-1]


def is_log_name(name: str) -> bool:
    """Whether a directory scan takes a file of this name (not hidden, a log suffix, or a
    name a registered container takes: :mod:`msgcli.containers`)."""
    if name.startswith("."):
        return False
    if name.endswith(LOG_SUFFIXES):
        return True
    from .containers import CONTAINERS

    return any(c.takes_name(name) for c in CONTAINERS)
