"""The baselines run.py measures msgcli against, each in its own process.

    python benchmarks/loops.py orjson FILE [--limit N]
    python benchmarks/loops.py jsonschema FILE --schema SCHEMA [--ref SCHEMA ...] [--limit N]

Both read the lines first and time only the loop over them, then print one JSON object:
``{"records": N, "bytes": B, "loop_s": T, ...}``.

- ``orjson``: ``orjson.loads`` of every line, the least any checker that parses each record
  has to do.
- ``jsonschema``: what a user would write instead of msgcli: the ``jsonschema`` package's
  validator for the schema (``validator_for(schema)(schema)``), stdlib ``json.loads`` per line and
  ``list(v.iter_errors(obj))``. ``--ref`` adds a schema that the first one refers to by its
  ``$id`` (the event schemas use the message schema's definitions).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path


def read_lines(path: Path, limit: int | None) -> list[bytes]:
    lines: list[bytes] = []
    with path.open("rb") as fh:
        for line in fh:
            if limit is not None and len(lines) >= limit:
                break
            if line.strip():
                lines.append(line)
    return lines


def run_orjson(lines: list[bytes]) -> dict:
    import orjson

    loads = orjson.loads
    started = time.perf_counter()
    for line in lines:
        loads(line)
    return {"loop_s": time.perf_counter() - started}


def run_jsonschema(lines: list[bytes], schema_path: Path, refs: list[Path]) -> dict:
    from jsonschema.validators import validator_for
    from referencing import Registry, Resource

    started = time.perf_counter()
    schema = json.loads(schema_path.read_text(encoding="utf-8"))
    registry: Registry = Registry()
    for ref in refs:
        contents = json.loads(ref.read_text(encoding="utf-8"))
        registry = registry.with_resource(contents["$id"], Resource.from_contents(contents))
    validator = validator_for(schema)(schema, registry=registry)
    setup = time.perf_counter() - started

    invalid = errors = 0
    started = time.perf_counter()
    for line in lines:
        found = list(validator.iter_errors(json.loads(line)))
        if found:
            invalid += 1
            errors += len(found)
    return {
        "loop_s": time.perf_counter() - started,
        "setup_s": setup,
        "invalid_records": invalid,
        "errors": errors,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("engine", choices=("orjson", "jsonschema"))
    parser.add_argument("file", type=Path)
    parser.add_argument("--limit", type=int, help="only the first N lines")
    parser.add_argument("--schema", type=Path, help="the schema (jsonschema)")
    parser.add_argument("--ref", type=Path, action="append", default=[], help="a referred schema")
    args = parser.parse_args(argv)

    lines = read_lines(args.file, args.limit)
    if args.engine == "orjson":
        result = run_orjson(lines)
    else:
        if args.schema is None:
            parser.error("jsonschema needs --schema")
        result = run_jsonschema(lines, args.schema, args.ref)
    result = {"records": len(lines), "bytes": sum(len(line) for line in lines), **result}
    json.dump(result, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
