"""``msgcli sql``: DuckDB SQL over the tables of logs, built on the fly.

The tables of :mod:`msgcli.tables` are written as Parquet into a temporary
directory (in batches, so a long log needs no more memory than an export) and
each one is a view of the same name in an in-memory DuckDB database.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .tables import TABLES, RowCounts

__all__ = ["connect_logs", "run_sql"]


@contextmanager
def connect_logs(
    paths: list[str],
    *,
    dialect: str | None = None,
    findings: bool = True,
    redact: bool = False,
) -> Iterator[tuple[Any, RowCounts]]:
    """A DuckDB connection with the views ``messages``, ``blocks``, ``tool_calls`` and
    ``findings`` over the logs (secrets masked with ``redact``), and the row counts;
    removed on leaving."""
    from .tables import table_rows
    from .tablewriters import ParquetWriter, check_installed, require

    check_installed("duckdb")  # imported once the tables are written: the peaks do not add up
    with tempfile.TemporaryDirectory(prefix="msgcli-sql-") as scratch:
        target = os.path.join(scratch, "logs.parquet")
        writer = ParquetWriter(target)
        try:
            counts = table_rows(
                paths, writer.write, dialect=dialect, findings=findings, redact=redact
            )
        except BaseException:
            writer.abort()
            raise
        writer.close()
        db = require("duckdb").connect(":memory:")
        try:
            for table in TABLES:
                where = os.path.join(target, f"{table}.parquet").replace("'", "''")
                db.execute(f"CREATE VIEW \"{table}\" AS SELECT * FROM read_parquet('{where}')")
            yield db, counts
        finally:
            db.close()


def run_sql(
    statement: str,
    paths: list[str],
    *,
    dialect: str | None = None,
    findings: bool = True,
    redact: bool = False,
) -> tuple[list[str], list[tuple]]:
    """``(column names, rows)`` of one SQL statement over the logs' tables."""
    with connect_logs(paths, dialect=dialect, findings=findings, redact=redact) as (db, _):
        cursor = db.execute(statement)
        columns = [d[0] for d in cursor.description or ()]
        return columns, cursor.fetchall()
