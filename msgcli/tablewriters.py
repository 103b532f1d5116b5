"""Writing the tables of :mod:`msgcli.tables`: Parquet, SQLite, DuckDB and CSV.

The format follows the target's suffix: ``.parquet`` (a directory holding one
Parquet file a table), ``.sqlite``/``.db`` (one database, with full-text indexes
``messages_fts`` and ``blocks_fts`` on the text), ``.duckdb`` (one database),
``.csv`` (a directory holding one CSV file a table). pyarrow and duckdb are
imported only here, when such a target is asked for (the ``tables`` extra).
"""

from __future__ import annotations

import contextlib
import os
import shutil
from pathlib import Path
from typing import Any

from .tables import BIGINT, BOOLEAN, DOUBLE, TABLES, TIMESTAMP, VARCHAR

__all__ = [
    "FORMATS",
    "MissingExtra",
    "TableWriter",
    "check_installed",
    "format_of",
    "open_writer",
    "require",
]

#: suffix -> format name
FORMATS = {
    ".parquet": "parquet",
    ".sqlite": "sqlite",
    ".sqlite3": "sqlite",
    ".db": "sqlite",
    ".duckdb": "duckdb",
    ".csv": "csv",
}

INSTALL = "pip install 'msgcli[tables]'"


class MissingExtra(RuntimeError):
    """A package of the ``tables`` extra is not installed."""


def require(module: str) -> Any:
    """Import pyarrow or duckdb, or say in one line how to install them."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        top = module.split(".")[0]
        raise MissingExtra(f"this needs {top}, which is not installed: {INSTALL}") from None


def check_installed(module: str) -> None:
    """Fail early, without importing it, when pyarrow or duckdb is not installed."""
    import importlib.util

    if importlib.util.find_spec(module) is None:
        raise MissingExtra(f"this needs {module}, which is not installed: {INSTALL}")


def format_of(target: str) -> str | None:
    """The format a target's suffix names, or ``None``."""
    return FORMATS.get(Path(target).suffix.lower())


class TableWriter:
    """Writes batches of rows to a temporary place beside the target, then moves it there
    on :meth:`close` (a run that fails leaves no half-written target)."""

    def __init__(self, target: str):
        self.target = target
        parent = os.path.dirname(os.path.abspath(target)) or "."
        self.temp = os.path.join(parent, f".{os.path.basename(target)}.partial-{os.getpid()}")

    def write(self, table: str, rows: list[tuple]) -> None:
        raise NotImplementedError

    def finish(self) -> None:
        """Complete the temporary output."""

    def close(self, replace: bool = False) -> None:
        self.finish()
        if os.path.lexists(self.target):
            if not replace:
                raise FileExistsError(self.target)
            if os.path.isdir(self.target) and not os.path.islink(self.target):
                shutil.rmtree(self.target)
            else:
                os.remove(self.target)
        os.replace(self.temp, self.target)

    def abort(self) -> None:
        with contextlib.suppress(Exception):
            self.finish()
        if os.path.isdir(self.temp):
            shutil.rmtree(self.temp, ignore_errors=True)
        elif os.path.lexists(self.temp):
            os.remove(self.temp)


def arrow_schema(pa: Any, table: str) -> Any:
    """The Arrow schema of one of :data:`msgcli.tables.TABLES` (``pa``: pyarrow)."""
    types = {
        VARCHAR: pa.string(),
        BIGINT: pa.int64(),
        DOUBLE: pa.float64(),
        BOOLEAN: pa.bool_(),
        TIMESTAMP: pa.timestamp("us"),
    }
    return pa.schema([(name, types[kind]) for name, kind in TABLES[table]])


def arrow_batch(pa: Any, schema: Any, rows: list[tuple]) -> Any:
    """Rows of a table as one Arrow record batch of ``schema``."""
    columns = list(zip(*rows, strict=True)) if rows else [() for _ in schema]
    arrays = [pa.array(col, type=f.type) for col, f in zip(columns, schema, strict=True)]
    return pa.RecordBatch.from_arrays(arrays, schema=schema)


class ParquetWriter(TableWriter):
    def __init__(self, target: str):
        super().__init__(target)
        self.pa = require("pyarrow")
        self.pq = require("pyarrow.parquet")
        os.makedirs(self.temp)
        self.schemas = {t: arrow_schema(self.pa, t) for t in TABLES}
        self.writers = {
            t: self.pq.ParquetWriter(
                os.path.join(self.temp, f"{t}.parquet"), self.schemas[t], compression="zstd"
            )
            for t in TABLES
        }

    def write(self, table: str, rows: list[tuple]) -> None:
        self.writers[table].write_batch(arrow_batch(self.pa, self.schemas[table], rows))

    def finish(self) -> None:
        for writer in self.writers.values():
            writer.close()


class CsvWriter(TableWriter):
    def __init__(self, target: str):
        import csv

        super().__init__(target)
        os.makedirs(self.temp)
        self.files = {}
        self.writers = {}
        for table, columns in TABLES.items():
            out = open(  # noqa: SIM115 - closed in finish
                os.path.join(self.temp, f"{table}.csv"), "w", encoding="utf-8", newline=""
            )
            self.files[table] = out
            self.writers[table] = csv.writer(out)
            self.writers[table].writerow([name for name, _ in columns])

    def write(self, table: str, rows: list[tuple]) -> None:
        self.writers[table].writerows(
            tuple(v.isoformat(sep=" ") if hasattr(v, "isoformat") else v for v in row)
            for row in rows
        )

    def finish(self) -> None:
        for out in self.files.values():
            if not out.closed:
                out.close()


_SQLITE_TYPES = {
    VARCHAR: "TEXT",
    BIGINT: "INTEGER",
    DOUBLE: "REAL",
    TIMESTAMP: "TEXT",
    BOOLEAN: "INTEGER",
}
#: the tables with a full-text index on their ``text`` column
FTS_TABLES = ("messages", "blocks")


class SqliteWriter(TableWriter):
    def __init__(self, target: str):
        import sqlite3

        super().__init__(target)
        self.db = sqlite3.connect(self.temp)
        self.db.execute("PRAGMA journal_mode = OFF")
        self.db.execute("PRAGMA synchronous = OFF")
        self.inserts = {}
        for table, columns in TABLES.items():
            spec = ", ".join(f'"{name}" {_SQLITE_TYPES[kind]}' for name, kind in columns)
            self.db.execute(f'CREATE TABLE "{table}" ({spec})')
            marks = ", ".join("?" for _ in columns)
            self.inserts[table] = f'INSERT INTO "{table}" VALUES ({marks})'
        self.done = False

    def write(self, table: str, rows: list[tuple]) -> None:
        self.db.executemany(
            self.inserts[table],
            (
                tuple(v.isoformat(sep=" ") if hasattr(v, "isoformat") else v for v in row)
                for row in rows
            ),
        )

    def finish(self) -> None:
        if self.done:
            return
        self.done = True
        db = self.db
        for table in FTS_TABLES:
            db.execute(
                f"CREATE VIRTUAL TABLE {table}_fts USING fts5("
                f"text, content='{table}', content_rowid='rowid')"
            )
            db.execute(f"INSERT INTO {table}_fts({table}_fts) VALUES ('rebuild')")
        db.execute("CREATE INDEX findings_at ON findings(file, line)")
        db.execute("CREATE INDEX messages_at ON messages(file, line)")
        db.commit()
        db.close()


_DUCK_TYPES = {
    VARCHAR: "VARCHAR",
    BIGINT: "BIGINT",
    DOUBLE: "DOUBLE",
    TIMESTAMP: "TIMESTAMP",
    BOOLEAN: "BOOLEAN",
}


class DuckdbWriter(TableWriter):
    def __init__(self, target: str):
        super().__init__(target)
        duckdb = require("duckdb")
        self.pa = require("pyarrow")
        self.db = duckdb.connect(self.temp)
        self.schemas = {t: arrow_schema(self.pa, t) for t in TABLES}
        for table, columns in TABLES.items():
            spec = ", ".join(f'"{name}" {_DUCK_TYPES[kind]}' for name, kind in columns)
            self.db.execute(f'CREATE TABLE "{table}" ({spec})')
        self.done = False

    def write(self, table: str, rows: list[tuple]) -> None:
        batch = self.pa.Table.from_batches([arrow_batch(self.pa, self.schemas[table], rows)])
        self.db.register("_batch", batch)
        self.db.execute(f'INSERT INTO "{table}" SELECT * FROM _batch')
        self.db.unregister("_batch")

    def finish(self) -> None:
        if self.done:
            return
        self.done = True
        self.db.close()


_WRITERS: dict[str, type[TableWriter]] = {
    "parquet": ParquetWriter,
    "sqlite": SqliteWriter,
    "duckdb": DuckdbWriter,
    "csv": CsvWriter,
}


def open_writer(target: str, fmt: str | None = None) -> TableWriter:
    """A writer for ``target`` in ``fmt`` (default: by its suffix)."""
    chosen = fmt or format_of(target)
    if chosen is None:
        known = ", ".join(sorted(FORMATS))
        raise ValueError(f"cannot tell the format of {target!r} from its suffix (known: {known})")
    return _WRITERS[chosen](target)
