"""msgcli: check the message logs that LLM-agent frameworks record.

The public API (imported on first use, so ``import msgcli`` stays light):

- :func:`validate` / :func:`iter_findings`: run the checks of ``msgcli validate``;
- :func:`replay`: rebuild the messages of event logs, as ``msgcli replay`` does;
- :func:`convert`: convert logs to another dialect, as ``msgcli convert`` does;
- :func:`diff`: compare two conversations, as ``msgcli diff`` does (a :class:`DiffResult`);
- :func:`query`: the messages that match filters, as ``msgcli query`` chooses them;
- :func:`export` / :func:`sql`: logs as tables (Parquet, SQLite, DuckDB, CSV), and
  DuckDB SQL over them, as ``msgcli export`` and ``msgcli sql`` do;
- :func:`read_records`: the JSON records of a log with their line numbers;
- :func:`read_messages`: the messages of a log in the dialect-neutral model;
- :func:`detect_dialect`: which dialect a log is written in;
- :data:`RULES`, :class:`Finding`, :class:`Severity`, :data:`DIALECTS` and the
  model classes in :mod:`msgcli.model`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

__version__ = "0.1.0"

__all__ = [
    "DIALECTS",
    "RULES",
    "DiffResult",
    "Finding",
    "Message",
    "Options",
    "RunReport",
    "Severity",
    "__version__",
    "convert",
    "detect_dialect",
    "diff",
    "export",
    "iter_findings",
    "query",
    "read_messages",
    "read_records",
    "replay",
    "sql",
    "validate",
]

_LAZY = {
    "DIALECTS": "msgcli.dialects",
    "RULES": "msgcli.rules",
    "Finding": "msgcli.findings",
    "Severity": "msgcli.findings",
    "Message": "msgcli.model",
    "Options": "msgcli.pipeline",
    "RunReport": "msgcli.pipeline",
    "DiffResult": "msgcli.compare",
    "diff": "msgcli.compare",
    "read_records": "msgcli.reader",
    "convert": "msgcli.api",
    "detect_dialect": "msgcli.api",
    "export": "msgcli.api",
    "query": "msgcli.api",
    "sql": "msgcli.api",
    "iter_findings": "msgcli.api",
    "read_messages": "msgcli.api",
    "replay": "msgcli.api",
    "validate": "msgcli.api",
}

if TYPE_CHECKING:  # pragma: no cover
    from .api import (
        convert,
        detect_dialect,
        export,
        iter_findings,
        query,
        read_messages,
        replay,
        sql,
        validate,
    )
    from .compare import DiffResult, diff
    from .dialects import DIALECTS
    from .engine import Options
    from .findings import Finding, RunReport, Severity
    from .model import Message
    from .reader import read_records
    from .rules import RULES


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'msgcli' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
