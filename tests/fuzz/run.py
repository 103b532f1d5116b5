"""``make fuzz``: mutations of the real logs through every command.

    python -m tests.fuzz.run [--count N] [--seed S] [--cli-every K] [--keep DIR] [--start I]
                             [--memory MIB] [--commands REGEX]
    python -m tests.fuzz.run --sweep [--limit N] [--shard I/N] [--commands REGEX]
                             [--cli-every K] [--keep DIR]

Input ``i`` is a mutation of a real log made from ``random.Random(f"{seed}:{i}")``, run
through the command ``i`` names in turn (so every command gets a share), through the
library, and every ``K``-th input also through the command line. The clean logs are
first converted to every dialect and back, which must give them byte for byte. Prints
per command how many inputs it tried and how many failed, then each kind of failure
once with how often it happened; failing inputs are kept in ``DIR`` to replay (each beside
the clean window it was made from, ``N-command.clean.jsonl``, which ``diff`` compares with). Exits 1
when anything failed. The run's address space is capped (4 GiB unless told), so an input
that makes a command ask for gigabytes is a failure (a MemoryError where it was asked),
not a machine out of memory.

``--sweep`` runs no random mutations: each key path of the records of the real logs (once
per family of logs, kind of record and path), set in turn to each of a fixed list of
hostile values (``mutate.SWEEP_VALUES``: nesting 1,000 and 1,100 deep, every other JSON
type, huge and non-finite numbers, empty values, markup, control characters), one record
changed per input in a window of its log, through every command; ``--limit N`` sweeps N of
the key paths, spread evenly over them; ``--shard I/N`` every N-th from the I-th, to share
the whole sweep among processes. It reports as the random mode does.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from .drive import COMMANDS, DIALECTS, check, run_cli
from .mutate import ROOT, SWEEP_VALUES, Seed, mutate_window, seeds, sweep_cases


@dataclass
class Tally:
    tried: Counter = field(default_factory=Counter)
    failed: Counter = field(default_factory=Counter)
    kinds: Counter = field(default_factory=Counter)
    examples: dict = field(default_factory=dict)
    cli: int = 0
    spent: Counter = field(default_factory=Counter)  # CPU seconds per command (library)

    @property
    def failures(self) -> int:
        return sum(self.failed.values())

    def run(self, command: str, path: Path, clean: Path, cli: bool) -> list[str]:
        """``command`` on the input ``path`` (made from ``clean``) through the library, and
        through the command line too when ``cli``: counted, its CPU time added up."""
        started = time.process_time()
        failures = check(command, path, clean)
        self.spent[command] += time.process_time() - started
        if cli:
            self.cli += 1
            failures += run_cli(command, path, clean)
        self.tried[command] += 1
        return failures

    def record(
        self, command: str, failures: list[str], example: tuple, inputs: tuple, keep: Path | None
    ) -> None:
        """Each of ``failures`` counted by kind; the first of a kind kept as ``example``
        (where the input came from, its number) and, in ``keep``, its input and the clean
        log it was made from (``inputs``: a file name, the input, the clean bytes)."""
        if not failures:
            return
        self.failed[command] += 1
        for why in failures:
            kind = f"{command}: {why}"
            self.kinds[kind] += 1
            if kind not in self.examples:
                self.examples[kind] = example
                if keep is not None:
                    name, data, window = inputs
                    stem, suffix = name.rsplit(".", 1)
                    keep.mkdir(parents=True, exist_ok=True)
                    (keep / name).write_bytes(data)
                    (keep / f"{stem}.clean.{suffix}").write_bytes(window)


def round_trips(pool: list[Seed]) -> list[str]:
    """Each clean message log, converted to every other dialect and back: the same bytes."""
    import orjson

    import msgcli
    from msgcli.writer import dumps

    failures = []
    for seed in pool:
        if seed.sse or seed.document:
            continue
        found = msgcli.detect_dialect(ROOT / seed.name)
        if found is None or found[1] != "message":
            continue
        source, _ = found
        if source not in DIALECTS:
            continue  # msgcli writes no Claude Code, and provider forms carry no metadata back
        if "/v1/" in seed.name:
            continue  # an AgentScope 1.x log comes home in the 2.x shape (see the README)
        # the same values, keys in the same order, written the same way (LoongFlow's own
        # writer puts a space after ':' and ',', which no converter keeps)
        original = [dumps(orjson.loads(line)) for line in seed.data.split(b"\n") if line.strip()]
        for target in DIALECTS:
            if target == source:
                continue
            there = msgcli.convert(ROOT / seed.name, target).records
            with tempfile.NamedTemporaryFile("wb", suffix=".jsonl") as tmp:
                tmp.write(b"".join(dumps(r) + b"\n" for r in there))
                tmp.flush()
                back = [dumps(r) for r in msgcli.convert(tmp.name, source).records]
            if back != original:
                failures.append(f"{seed.name}: {source} -> {target} -> {source} differs")
    return failures


def fuzz(
    count: int,
    seed: str = "0",
    cli_every: int = 50,
    keep: Path | None = None,
    commands: list[str] | None = None,
    progress: bool = False,
    start: int = 0,
) -> Tally:
    pool = seeds()
    names = commands or list(COMMANDS)
    tally = Tally()
    with tempfile.TemporaryDirectory(prefix="msgcli-fuzz-") as tmp:
        for i in range(start, start + count):
            rnd = random.Random(f"{seed}:{i}")
            base = rnd.choice(pool)
            window, data = mutate_window(base, rnd)
            command = names[i % len(names)]
            path = Path(tmp) / f"input{base.suffix}"
            path.write_bytes(data)
            clean = Path(tmp) / f"clean{base.suffix}"
            clean.write_bytes(window)
            failures = tally.run(command, path, clean, bool(cli_every) and i % cli_every == 0)
            name = f"{i}-{command.split()[0]}{base.suffix}"
            tally.record(command, failures, (base.name, i), (name, data, window), keep)
            if progress and i and i % 5000 == 0:
                print(f"  {i:,} inputs, {tally.failures} failed", file=sys.stderr, flush=True)
    return tally


def sweep(
    limit: int | None = None,
    commands: list[str] | None = None,
    cli_every: int = 50,
    keep: Path | None = None,
    progress: bool = False,
    values: list[str] | None = None,
    shard: tuple[int, int] = (0, 1),
) -> Tally:
    """Every key path of the seeds' records (:func:`sweep_cases`), set in turn to each of
    :data:`SWEEP_VALUES`, one record changed per input, each input through every command
    named (and every ``cli_every``-th also through the command line); with ``limit``, that
    many of the cases, spread evenly over them; ``shard=(i, n)``: only every ``n``-th case
    from the ``i``-th (to share the sweep among processes)."""
    cases = sweep_cases(seeds())[shard[0] :: shard[1]]
    if limit is not None and limit < len(cases):
        cases = [cases[i * len(cases) // limit] for i in range(limit)]
    names = commands or list(COMMANDS)
    chosen = values or list(SWEEP_VALUES)
    tally = Tally()
    n = 0
    with tempfile.TemporaryDirectory(prefix="msgcli-sweep-") as tmp:
        for number, case in enumerate(cases):
            suffix = case.seed.suffix
            path = Path(tmp) / f"input{suffix}"
            clean = Path(tmp) / f"clean{suffix}"
            for value in chosen:
                window, data = case.data(SWEEP_VALUES[value])
                path.write_bytes(data)
                clean.write_bytes(window)
                for command in names:
                    failures = tally.run(
                        command, path, clean, bool(cli_every) and n % cli_every == 0
                    )
                    n += 1
                    name = f"sweep-{n}-{command.split()[0]}{suffix}"
                    example = (f"{case.describe()} = {value}", n)
                    tally.record(command, failures, example, (name, data, window), keep)
            if progress and number and number % 100 == 0:
                print(
                    f"  {number:,} of {len(cases):,} key paths, {tally.failures} failed",
                    file=sys.stderr,
                    flush=True,
                )
    return tally


def _limit_memory(size: int) -> None:
    """Cap the address space (where the platform can): a memory bomb in one input then
    fails that input instead of the machine."""
    try:
        import resource
    except ImportError:  # (not on Windows)
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        size = min(size, hard)
    if soft == resource.RLIM_INFINITY or soft > size:
        resource.setrlimit(resource.RLIMIT_AS, (size, hard))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--seed", default="0")
    parser.add_argument("--cli-every", type=int, default=50)
    parser.add_argument("--keep", type=Path, default=None)
    parser.add_argument(
        "--start", type=int, default=0, help="the first input's number (to replay a failure)"
    )
    parser.add_argument(
        "--memory",
        type=int,
        default=4096,
        help="address space in MiB the run may take (0: no limit): a command that asks "
        "for gigabytes on a small input fails with a MemoryError, named where it was asked",
    )
    parser.add_argument(
        "--commands",
        metavar="REGEX",
        default=None,
        help="only the commands whose name this matches (re.search), e.g. 'export|sql'",
    )
    parser.add_argument(
        "--sweep",
        action="store_true",
        help="instead of random mutations: every key path of the records of every real log, "
        "set in turn to each of a fixed list of hostile values, through every command",
    )
    parser.add_argument(
        "--limit",
        type=int,
        default=None,
        metavar="N",
        help="with --sweep: only N of the key paths, spread evenly over all",
    )
    parser.add_argument(
        "--shard",
        default="0/1",
        metavar="I/N",
        help="with --sweep: only every N-th key path from the I-th (0 <= I < N), to share "
        "the sweep among processes",
    )
    args = parser.parse_args(argv)
    shard = tuple(int(x) for x in args.shard.split("/"))
    if len(shard) != 2 or not 0 <= shard[0] < shard[1]:
        parser.error("--shard takes I/N with 0 <= I < N")
    if args.memory:
        _limit_memory(args.memory * 1024**2)
    names = [name for name in COMMANDS if re.search(args.commands or "", name)]
    if not names:
        parser.error(f"no command matches {args.commands!r}")
    started = time.monotonic()
    trips: list[str] = []
    if args.sweep:
        size = len(sweep_cases(seeds()))
        paths = len(range(shard[0], size, shard[1]))
        paths = min(paths, args.limit) if args.limit is not None else paths
        print(
            f"sweep: {paths:,} of {size:,} key paths x {len(SWEEP_VALUES)} values "
            f"x {len(names)} commands",
            file=sys.stderr,
            flush=True,
        )
        tally = sweep(args.limit, names, args.cli_every, args.keep, progress=True, shard=shard)
    else:
        trips = round_trips(seeds())
        tally = fuzz(
            args.count,
            args.seed,
            args.cli_every,
            args.keep,
            commands=names,
            progress=True,
            start=args.start,
        )
    took = time.monotonic() - started
    width = max(len("all commands"), *(len(name) for name in names))
    print(f"{'command':<{width}}  {'inputs':>8}  {'failed':>6}  {'CPU s/1,000':>11}")
    for name in names:
        tried = tally.tried[name]
        rate = f"{tally.spent[name] / tried * 1000:.1f}" if tried else "-"
        print(f"{name:<{width}}  {tried:>8,}  {tally.failed[name]:>6,}  {rate:>11}")
    total = sum(tally.tried.values())
    rate = f"{sum(tally.spent.values()) / total * 1000:.1f}" if total else "-"
    print(f"{'all commands':<{width}}  {total:>8,}  {tally.failures:>6,}  {rate:>11}")
    print(f"{tally.cli:,} of them also through the command line; {took:.0f} s")
    if not args.sweep:
        print(f"round trips of the clean logs through every dialect: {len(trips)} differ")
    for line in trips:
        print("  " + line)
    for kind, n in tally.kinds.most_common():
        name, i = tally.examples[kind]
        print(f"  {n:>6}x {kind}  (e.g. input {i}, from {name})")
    return 1 if tally.failures or trips else 0


if __name__ == "__main__":
    sys.exit(main())
