"""``make bench``: time msgcli on generated logs, side by side with what it is measured against.

For every corpus (see corpora.py) it runs, each in its own process:

- the limit: an ``orjson.loads`` loop over the same lines (only the loop is timed);
- ``msgcli validate`` (with ``-j 1`` and ``-j 2`` when msgcli has that option), ``msgcli stats``,
  ``msgcli replay -o OUT`` (event logs; Anthropic streams with ``-j 1`` too) and
  ``msgcli show --no-pager``, ``--export-html`` and ``--export-markdown`` (on the 10k cuts);
- on the first 20,000 lines of each 100k corpus, a loop with the ``jsonschema`` package over the
  same schemas, what a user would write instead of msgcli;
- start-up: ``python -c pass``, ``msgcli --help``, ``msgcli validate`` of a one-line log and
  ``check-jsonschema`` of one message.

Each command runs ``--runs`` times (default 3); the table gives the median wall time of the whole
process (the loop time for the loops), the peak RSS (the largest of the runs, from ``wait4``),
records/s, MB/s and how many times slower than the orjson loop over the same lines. The results go
to stdout, to ``bench-out/results.json`` and between the markers of ``BENCHMARKS.md``.
"""

from __future__ import annotations

import argparse
import compileall
import datetime as dt
import hashlib
import importlib.metadata
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import corpora

ROOT = corpora.ROOT
OUT = ROOT / "bench-out"
BIN = Path(sys.executable).parent
MARK_BEGIN = "<!-- bench:begin -->"
MARK_END = "<!-- bench:end -->"
JSONSCHEMA_SAMPLE = 20_000
JSONSCHEMA_LABEL = f"jsonschema loop (first {JSONSCHEMA_SAMPLE // 1000}k)"
STARTUP = "start-up"
ORJSON = "orjson.loads loop"
PYTHON_PASS = "python -c pass"
BENCH_PACKAGES = ("check-jsonschema", "jsonschema", "referencing", "pyinstrument")

SQL_GROUP_BY = (
    "SELECT sender, count(*) AS messages, sum(output_tokens) AS output_tokens "
    "FROM messages GROUP BY sender ORDER BY messages DESC"
)

SUMMARY = re.compile(r"([\d,]+) errors?, ([\d,]+) warnings?")


@dataclass
class Row:
    """One command to time."""

    group: str  # the corpus name, or STARTUP
    label: str  # what is run, e.g. "msgcli validate -j 1"
    argv: list[str]
    records: int | None = None
    size: int | None = None
    loop: bool = False  # prints {"loop_s": ...}: time the loop, not the process
    stdout: Path | None = None  # where its output goes (None: discarded)
    baseline: str | None = None  # the corpus whose orjson loop it is compared with
    acceptance: bool = False  # its output is msgcli validate's: check it finds nothing
    ok_codes: tuple[int, ...] = (0,)  # exit statuses that are a run's expected end
    prepare: Callable[[], None] | None = None  # makes an input the command needs

    @property
    def key(self) -> str:
        return f"{self.group} {self.label}"


@dataclass
class Result:
    group: str
    label: str
    command: str
    runs: int
    wall_s: list[float]
    loop_s: list[float] = field(default_factory=list)
    peak_rss_kb: int = 0
    tree_rss_kb: int = 0  # the largest sum over the process and its workers (sampled)
    exit_codes: list[int] = field(default_factory=list)
    records: int | None = None
    bytes: int | None = None
    seconds: float = 0.0  # the median that the rates use: loop time or wall time
    records_per_s: float | None = None
    mb_per_s: float | None = None
    ratio: float | None = None  # times the limit: orjson loop, or bare python for start-up
    note: str = ""
    details: dict = field(default_factory=dict)


# -- running ----------------------------------------------------------------------------


def shell_words(argv: list[str]) -> str:
    """The command as typed in the repository's top folder."""
    words = []
    for arg in argv:
        path = Path(arg)
        if path.is_absolute() and path.is_relative_to(ROOT):
            arg = str(path.relative_to(ROOT))
        words.append(arg if re.fullmatch(r"[\w@%+=:,./-]+", arg) else repr(arg))
    return " ".join(words)


def run_once(row: Row) -> tuple[float, int, int, int, dict, str]:
    """Run the command once: wall seconds, peak RSS (KB) of one process and of the process
    tree, exit code, its JSON line, stderr.

    The command is started by spawn.py (see there why), which times it and reads its rusage.
    """
    launcher = [sys.executable, "-I", "-S", str(ROOT / "benchmarks" / "spawn.py")]
    with tempfile.TemporaryDirectory(prefix="msgcli-bench-") as tmp:
        out = row.stdout if row.stdout is not None and not row.loop else Path(tmp) / "stdout"
        with open(Path(tmp) / "stderr", "wb") as err:
            proc = subprocess.run(
                [*launcher, str(out), *row.argv], cwd=ROOT, stdout=subprocess.PIPE, stderr=err
            )
        stderr = (Path(tmp) / "stderr").read_text(encoding="utf-8", errors="replace")
        if proc.returncode != 0:
            raise RuntimeError(f"the launcher failed on {row.argv}: {stderr}")
        measured = json.loads(proc.stdout)
        payload: dict = {}
        if row.loop and measured["exit_code"] == 0:
            payload = json.loads(out.read_text(encoding="utf-8"))
    tree = max(measured["tree_kb"], measured["maxrss_kb"])
    return (
        measured["wall_s"],
        measured["maxrss_kb"],
        tree,
        measured["exit_code"],
        payload,
        stderr,
    )


def measure(row: Row, runs: int, log) -> Result:
    result = Result(row.group, row.label, shell_words(row.argv), runs, [])
    if row.stdout is not None:
        result.command += f" > {shell_words([str(row.stdout)])}"
    stderr = ""
    if row.prepare is not None:
        row.prepare()
    for _ in range(runs):
        wall, rss, tree, code, payload, stderr = run_once(row)
        result.wall_s.append(wall)
        result.peak_rss_kb = max(result.peak_rss_kb, rss)
        result.tree_rss_kb = max(result.tree_rss_kb, tree)
        result.exit_codes.append(code)
        if payload:
            result.loop_s.append(payload.pop("loop_s"))
            result.details = payload
        if code not in row.ok_codes:
            break
    result.records = row.records
    result.bytes = row.size
    if row.loop and result.details:
        result.records = result.details.get("records", row.records)
        result.bytes = result.details.get("bytes", row.size)
    timed = result.loop_s if row.loop else result.wall_s
    result.seconds = statistics.median(timed) if timed else statistics.median(result.wall_s)
    if result.records and result.seconds > 0:
        result.records_per_s = result.records / result.seconds
        if result.bytes:
            result.mb_per_s = result.bytes / 1e6 / result.seconds
    if any(code not in row.ok_codes for code in result.exit_codes):
        said = [line.strip() for line in stderr.splitlines() if line.strip()]
        last = said[-1][:200] if said else "nothing on stderr"
        result.note = f"exit status {max(result.exit_codes)}: {last}"
    if row.acceptance and row.stdout is not None and not any(result.exit_codes):
        result.note = acceptance_note(row.stdout)
    log(
        f"  {row.group:<34} {row.label:<28} {result.seconds:9.3f} s "
        f"{result.peak_rss_kb / 1024:8.1f} MiB  {result.note}"
    )
    return result


def acceptance_note(report: Path) -> str:
    """'' when msgcli validate found nothing, otherwise what it found."""
    text = report.read_text(encoding="utf-8", errors="replace")
    match = SUMMARY.search(text.splitlines()[-1] if text.strip() else "")
    if match is None:
        return "no summary line in the report"
    errors, warnings = (int(g.replace(",", "")) for g in match.groups())
    if errors or warnings:
        return f"FINDINGS: {errors} errors, {warnings} warnings (see {report.relative_to(ROOT)})"
    return ""


# -- what to run ------------------------------------------------------------------------


def has_jobs_option() -> bool:
    proc = subprocess.run(
        [str(BIN / "msgcli"), "validate", "--help"], capture_output=True, text=True, check=False
    )
    return re.search(r"(^|[\s,])(-j\b|--jobs\b)", proc.stdout, re.MULTILINE) is not None


def one_message_files() -> tuple[Path, Path]:
    """A one-line log and the same message as one JSON document (for check-jsonschema)."""
    source = ROOT / "fixtures/real/agentscope-py/transcript.jsonl"
    line = source.read_bytes().split(b"\n", 1)[0] + b"\n"
    jsonl = corpora.corpus_dir() / "one-message.jsonl"
    doc = corpora.corpus_dir() / "one-message.json"
    jsonl.parent.mkdir(parents=True, exist_ok=True)
    for path in (jsonl, doc):
        if not path.exists() or path.read_bytes() != line:
            path.write_bytes(line)
    return jsonl, doc


def corpus_rows(built: corpora.Built, jobs: bool) -> list[Row]:
    """What runs on one corpus: the 10k cuts get show, the others the checking commands."""
    spec = built.spec
    path = str(built.path)
    msgcli = str(BIN / "msgcli")
    loops = [sys.executable, str(ROOT / "benchmarks" / "loops.py")]
    out = OUT / "out" / spec.name
    rows: list[Row] = []

    def add(label: str, argv: list[str], **how) -> None:
        how.setdefault("records", built.records)
        how.setdefault("size", built.size)
        rows.append(Row(spec.name, label, argv, baseline=spec.name, **how))

    add(ORJSON, [*loops, "orjson", path], loop=True)
    validate = [msgcli, "validate"]
    add(
        "msgcli validate",
        [*validate, path],
        stdout=out.with_suffix(".validate.txt"),
        acceptance=True,
    )
    if spec.cut == "10k":
        add(
            "msgcli show", [msgcli, "show", "--no-pager", path], stdout=out.with_suffix(".show.txt")
        )
        # the page and the Markdown a reader shares (issue: under 5 s for 10k messages)
        html = str(out.with_suffix(".html"))
        add("msgcli show --export-html", [msgcli, "show", "--export-html", html, path])
        markdown = str(out.with_suffix(".md"))
        add("msgcli show --export-markdown", [msgcli, "show", "--export-markdown", markdown, path])
        return rows
    for n in (1, 2) if jobs else ():
        argv = [*validate, "-j", str(n), path]
        report = out.with_suffix(f".validate-j{n}.txt")
        add(f"msgcli validate -j {n}", argv, stdout=report, acceptance=True)
    if spec.kind == "events":
        replayed = str(out.with_suffix(".replay.jsonl"))
        add("msgcli replay -o OUT", [msgcli, "replay", "-o", replayed, path])
        if jobs and spec.dialect == "anthropic":
            # the one event log replay cuts into parts (default -j): in one process beside it
            add("msgcli replay -j 1 -o OUT", [msgcli, "replay", "-j", "1", "-o", replayed, path])
    add("msgcli stats", [msgcli, "stats", path])
    if spec.kind == "messages" and spec.cut == "100k":
        # convert to the next dialect (the way back is the same work); format to OpenAI
        other = {"agentscope-py": "agentscope-java", "agentscope-java": "loongflow"}.get(
            spec.dialect, "agentscope-py"
        )
        converted = str(out.with_suffix(f".{other}.jsonl"))
        add(
            f"msgcli convert --to {other}",
            [msgcli, "convert", "-q", "--zone", "UTC", "--to", other, "-o", converted, path],
        )
        if spec.dialect != "claude-code":  # format follows the frameworks' formatters
            request = str(out.with_suffix(".openai.json"))
            add("msgcli format -p openai", [msgcli, "format", "-p", "openai", "-o", request, path])
    if spec.kind == "messages" and spec.cut == "100k":
        # msgcli diff of the corpus and a copy with one text in 1,000 changed, beside
        # msgcli validate of the same two logs
        changed = out.with_suffix(".changed.jsonl")
        both = {"records": 2 * built.records, "size": 2 * built.size}

        def make_copy() -> None:
            changed_copy(built.path, changed)

        add(
            "msgcli validate A B",
            [*validate, path, str(changed)],
            prepare=make_copy,
            ok_codes=(0, 1),
            **both,
        )
        if jobs:
            add(
                "msgcli validate -j 1 A B",
                [*validate, "-j", "1", path, str(changed)],
                prepare=make_copy,
                ok_codes=(0, 1),
                **both,
            )
        add(
            "msgcli diff --stat A B",
            [msgcli, "diff", "--stat", path, str(changed)],
            prepare=make_copy,
            ok_codes=(0, 1),
            **both,
        )
    if spec.dialect == "agentscope-py" and spec.kind == "messages" and spec.cut in ("1m", "1gib"):
        # logs as data: the tables in Parquet, and a group-by over them (built on the fly)
        tables = str(out.with_suffix(".parquet"))
        add(
            "msgcli export --to .parquet",
            [msgcli, "export", "-q", "--overwrite", path, "--to", tables],
        )
        add(
            "msgcli sql (group by)",
            [msgcli, "sql", "-f", "csv", SQL_GROUP_BY, path],
            stdout=out.with_suffix(".sql.csv"),
        )
    if spec.cut == "100k":
        schemas = ROOT / "schemas" / spec.dialect
        argv = [*loops, "jsonschema", path, "--limit", str(JSONSCHEMA_SAMPLE)]
        if spec.kind == "events":
            argv += ["--schema", str(schemas / "event.schema.json")]
            argv += ["--ref", str(schemas / "message.schema.json")]
        else:
            argv += ["--schema", str(schemas / "message.schema.json")]
        add(JSONSCHEMA_LABEL, argv, loop=True, records=None, size=None)
    return rows


def changed_copy(source: Path, target: Path, every: int = 1000) -> None:
    """``source`` with the first text of every ``every``-th line changed (for msgcli diff)."""
    import orjson

    def change(value) -> bool:
        if isinstance(value, dict):
            if isinstance(value.get("text"), str):
                value["text"] += " (changed)"
                return True
            return any(change(v) for v in value.values())
        if isinstance(value, list):
            return any(change(v) for v in value)
        return False

    target.parent.mkdir(parents=True, exist_ok=True)
    with open(source, "rb") as src, open(target, "wb") as out:
        for number, line in enumerate(src, 1):
            if number % every == 0 and line.strip():
                record = orjson.loads(line)
                if change(record):
                    line = orjson.dumps(record) + b"\n"
            out.write(line)


def diff_notes(results: list[Result]) -> list[str]:
    """msgcli diff of two logs against msgcli validate of the same two, per corpus."""
    by_key = {f"{r.group} {r.label}": r for r in results}
    notes = []
    for r in results:
        if r.label != "msgcli diff --stat A B":
            continue
        for label in ("msgcli validate A B", "msgcli validate -j 1 A B"):
            base = by_key.get(f"{r.group} {label}")
            if base is None or base.seconds <= 0:
                continue
            notes.append(
                f"{r.group}: `msgcli diff` of the corpus and a copy with one text in 1,000 "
                f"changed takes {r.seconds / base.seconds:.2f}× the time of `{label}` "
                f"({r.seconds:.2f} s against {base.seconds:.2f} s)."
            )
    return notes


def startup_rows() -> list[Row]:
    one_line, one_doc = one_message_files()
    schema = ROOT / "schemas" / "agentscope-py" / "message.schema.json"
    msgcli = str(BIN / "msgcli")
    return [
        Row(STARTUP, PYTHON_PASS, [sys.executable, "-c", "pass"]),
        Row(STARTUP, "msgcli --help", [msgcli, "--help"]),
        Row(STARTUP, "msgcli validate (one line)", [msgcli, "validate", str(one_line)]),
        Row(
            STARTUP,
            "check-jsonschema (one message)",
            [str(BIN / "check-jsonschema"), "--schemafile", str(schema), str(one_doc)],
        ),
    ]


# -- the machine ------------------------------------------------------------------------


def machine() -> dict:
    cpu = "unknown"
    with open("/proc/cpuinfo", encoding="utf-8") as fh:
        for line in fh:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    ram_kb = 0
    with open("/proc/meminfo", encoding="utf-8") as fh:
        for line in fh:
            if line.startswith("MemTotal:"):
                ram_kb = int(line.split()[1])
    os_name = platform.system()
    try:
        release = platform.freedesktop_os_release()
        os_name = release.get("PRETTY_NAME", os_name)
    except OSError:
        pass
    requires = importlib.metadata.requires("msgcli") or []
    deps = [
        re.split(r"[\s<>=!~;\[]", req, maxsplit=1)[0] for req in requires if "extra ==" not in req
    ]
    versions = {}
    for name in ("msgcli", *deps, *BENCH_PACKAGES):
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "cores_usable": len(os.sched_getaffinity(0)),
        "ram_gib": round(ram_kb / 1024 / 1024, 1),
        "os": f"{os_name}, Linux {platform.release()}",
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "versions": versions,
        "commit": git_commit(),
    }


def code_digest() -> str:
    """A digest of msgcli's source files, to tell whether they changed during a run."""
    digest = hashlib.sha256()
    for path in sorted((ROOT / "msgcli").rglob("*.py")):
        digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def git_commit() -> str:
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=ROOT,
            capture_output=True,
            text=True,
        ).stdout.strip()
    except OSError:
        return "unknown"
    return f"{head} (with uncommitted changes)" if dirty else head


# -- output -----------------------------------------------------------------------------


def fmt_rate(value: float | None, digits: int = 0) -> str:
    return "" if value is None else f"{value:,.{digits}f}"


def fmt_ratio(value: float | None) -> str:
    return "" if value is None else f"{value:,.1f}×"


def table_rows(results: list[Result]) -> list[list[str]]:
    rows = []
    for r in results:
        rows.append(
            [
                r.group,
                r.label,
                str(len(r.wall_s)),
                f"{r.seconds:.3f}",
                f"{r.peak_rss_kb / 1024:.0f}",
                f"{r.tree_rss_kb / 1024:.0f}",
                fmt_rate(r.records, 0) if r.records else "",
                fmt_rate(r.records_per_s),
                fmt_rate(r.mb_per_s, 1),
                fmt_ratio(r.ratio),
            ]
        )
    return rows


HEADER = [
    "corpus",
    "command",
    "runs",
    "median s",
    "peak MiB",
    "all MiB",
    "records",
    "rec/s",
    "MB/s",
    "× limit",
]


def text_table(results: list[Result]) -> str:
    rows = [HEADER, *table_rows(results)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(HEADER))]
    right = {2, 3, 4, 5, 6, 7, 8, 9}
    lines = []
    previous = None
    for n, row in enumerate(rows):
        if n > 1 and row[0] != previous:
            lines.append("")
        previous = row[0]
        cells = [
            c.rjust(w) if i in right else c.ljust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def md_table(header: list[str], rows: list[list[str]], right: set[int]) -> str:
    align = ["---:" if i in right else "---" for i in range(len(header))]
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(align) + " |"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def markdown(report: dict, results: list[Result], built: list[corpora.Built]) -> str:
    m = report["machine"]
    v = m["versions"]
    deps = ", ".join(
        f"{name} {ver}" for name, ver in v.items() if name not in ("msgcli", *BENCH_PACKAGES)
    )
    bench = ", ".join(f"{name} {v[name]}" for name in BENCH_PACKAGES)
    out = [
        f"_Generated by `{report['command']}` on {report['finished']}, "
        f"in {report['total_s'] / 60:.1f} min._",
        "",
        "### Machine",
        "",
        f"- CPU: {m['cpu']}, {m['cores']} logical cores ({m['cores_usable']} usable)",
        f"- RAM: {m['ram_gib']} GiB",
        f"- OS: {m['os']}",
        f"- Python: {m['python']}",
        f"- load average (1, 5, 15 min) at the start: {report['load_average']['start']}, "
        f"at the end: {report['load_average']['end']}",
        f"- msgcli {v['msgcli']} at commit {m['commit']}; its dependencies: {deps}",
        f"- measured beside: {bench}",
        "",
        "### Corpora",
        "",
        "Made by `benchmarks/corpora.py` (deterministic; ids made fresh and dates moved on in "
        "every repetition of the sources). `msgcli validate` finds nothing in any of them"
        + (" (except as noted below)." if report["findings"] else "."),
        "",
    ]
    corpus_table = []
    for b in built:
        sources = ", ".join(f"`{src}`" for src in b.spec.sources)
        if len(b.spec.sources) > 2:
            folders: dict[str, int] = {}
            for src in b.spec.sources:
                folder = str(Path(src).parent)
                folders[folder] = folders.get(folder, 0) + 1
            sources = ", ".join(f"{n} from `{folder}`" for folder, n in folders.items())
        corpus_table.append(
            [
                f"`{b.path.relative_to(ROOT)}`",
                b.spec.dialect,
                b.spec.kind,
                f"{b.records:,}",
                f"{b.size / 1e6:,.1f}",
                f"{b.template_records}",
                sources,
            ]
        )
    out.append(
        md_table(
            ["file", "dialect", "kind", "records", "MB", "records per repetition", "repeats"],
            corpus_table,
            {3, 4, 5},
        )
    )
    out += [
        "",
        "### Results",
        "",
        f"Median of {report['runs']} run{'s' if report['runs'] != 1 else ''} per command "
        "(*runs* says how many were made). *median s* is the wall time of the whole "
        "process, except for the two loops, where it is the loop alone (reading the file and "
        "starting Python are left out). *peak MiB* is the largest peak resident set size over the "
        "runs (`ru_maxrss` from `wait4`; for a command with worker processes, the largest single "
        "process). *all MiB* is the largest sum over the process and its workers, sampled every "
        "50 ms (for a single process the two agree, up to the sampling). *× limit* is how many "
        "times slower than the `orjson.loads` "
        "loop over the same corpus (rate against rate, so the jsonschema sample compares too); "
        "for the start-up rows, how many times `python -c pass`.",
        "",
    ]
    right = {2, 3, 4, 5, 6, 7, 8, 9}
    rows = [[*row[1:]] for row in table_rows(results)]
    grouped: dict[str, list[list[str]]] = {}
    for r, row in zip(results, rows, strict=True):
        grouped.setdefault(r.group, []).append([row[0], f"`{r.command}`", *row[1:]])
    for group, group_rows in grouped.items():
        out += [f"#### {group}", ""]
        out.append(
            md_table(
                ["what", "command", *HEADER[2:]],
                group_rows,
                {i + 1 for i in right},
            )
        )
        out.append("")
    if report["summary"]:
        out += [
            "### msgcli validate against a jsonschema loop",
            "",
            "Records per second; jsonschema on the first 20,000 lines of the 100k corpus, msgcli "
            "validate on the whole corpus (the largest one run), start-up included.",
            "",
        ]
        summary_rows = [
            [
                s["family"],
                s["corpus"],
                fmt_rate(s["orjson"]),
                fmt_rate(s["msgcli"]),
                fmt_rate(s["jsonschema"]),
                fmt_ratio(s["speedup"]),
            ]
            for s in report["summary"]
        ]
        out.append(
            md_table(
                [
                    "logs",
                    "msgcli corpus",
                    "orjson loop",
                    "msgcli validate",
                    "jsonschema loop",
                    "msgcli faster by",
                ],
                summary_rows,
                {2, 3, 4, 5},
            )
        )
        out.append("")
    if report["notes"]:
        out += ["### Notes", ""]
        out += [f"- {note}" for note in report["notes"]]
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def write_markdown(text: str) -> Path:
    path = ROOT / "BENCHMARKS.md"
    if path.exists():
        current = path.read_text(encoding="utf-8")
    else:
        current = (
            "# Benchmarks\n\n"
            "How fast msgcli reads logs, measured by `make bench` (`benchmarks/run.py`): see "
            "`benchmarks/README.md` for what each row measures. Everything between the two "
            "markers below is rewritten by each run; text outside them stays.\n\n"
            f"{MARK_BEGIN}\n{MARK_END}\n"
        )
    if MARK_BEGIN not in current or MARK_END not in current:
        current = current.rstrip() + f"\n\n{MARK_BEGIN}\n{MARK_END}\n"
    head, rest = current.split(MARK_BEGIN, 1)
    _, tail = rest.split(MARK_END, 1)
    path.write_text(f"{head}{MARK_BEGIN}\n{text}{MARK_END}{tail}", encoding="utf-8")
    return path


# -- main -------------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="benchmarks/run.py", description="Time msgcli on generated logs (make bench)."
    )
    parser.add_argument(
        "--runs", type=int, metavar="N", help="runs per command (default 3, 1 with --quick)"
    )
    parser.add_argument(
        "--quick", action="store_true", help="the 10k and 100k corpora only (no 1M), one run each"
    )
    parser.add_argument(
        "--big",
        action="store_true",
        help="add a 1 GiB agentscope-py message log, a 1 GiB Claude Code session and a 1 GiB "
        "Codex CLI rollout",
    )
    parser.add_argument(
        "--only",
        metavar="PATTERN",
        help="only the rows whose 'corpus command' matches this regular expression "
        "(e.g. 'events-100k', 'loongflow.*validate', 'start-up'); the results go to "
        "bench-out/results-subset.json, BENCHMARKS.md is left as it is",
    )
    parser.add_argument(
        "--profile",
        metavar="PATTERN",
        help="also run the msgcli rows matching PATTERN once under pyinstrument "
        "(HTML into bench-out/profiles/)",
    )
    args = parser.parse_args(argv)
    if args.runs is None:
        args.runs = 1 if args.quick else 3
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    return args


def profile(row: Row, log) -> None:
    """One run of a msgcli row under pyinstrument."""
    if not row.argv[0].endswith("msgcli"):
        return
    folder = OUT / "profiles"
    folder.mkdir(parents=True, exist_ok=True)
    slug = re.sub(r"[^\w.-]+", "_", row.key).strip("_")
    html = folder / f"{slug}.html"
    argv = [sys.executable, "-m", "pyinstrument", "-r", "html", "-o", str(html), "-m", "msgcli"]
    with open(os.devnull, "wb") as sink:
        subprocess.run([*argv, *row.argv[1:]], cwd=ROOT, stdout=sink, check=False)
    log(f"  profile: {html.relative_to(ROOT)}")


def select(args: argparse.Namespace, jobs: bool, log) -> tuple[list[corpora.Built], list[Row]]:
    """Build the corpora the selected rows need; return them and the rows, in running order."""
    only = re.compile(args.only) if args.only else None

    def chosen(row: Row) -> bool:
        return only is None or only.search(row.key) is not None

    sizes = ("100k",) if args.quick else ("100k", "1m")
    specs = corpora.specs(sizes, args.big) + corpora.specs(("10k",), big=False)
    built: list[corpora.Built] = []
    rows: list[Row] = []
    for spec in specs:
        # the rows of a corpus are known before it is built: build only what is needed
        unbuilt = corpora.Built(spec, spec.path, 0, 0, 0, 0, None)
        if not any(chosen(row) for row in corpus_rows(unbuilt, jobs)):
            continue
        log(f"corpus {spec.name}")
        done = corpora.build(spec, log=log)
        built.append(done)
        # the orjson loop comes along: the other rows are measured against it
        rows += [row for row in corpus_rows(done, jobs) if chosen(row) or row.label == ORJSON]
    startup = startup_rows()
    if any(chosen(row) for row in startup[1:]):
        rows += [row for row in startup if chosen(row) or row is startup[0]]
    return built, rows


def set_ratios(rows: list[Row], results: list[Result]) -> None:
    """Rate against the orjson loop over the same corpus; start-up against bare python."""
    by_key = {row.key: result for row, result in zip(rows, results, strict=True)}
    for row, result in zip(rows, results, strict=True):
        if row.group == STARTUP:
            base = by_key.get(f"{STARTUP} {PYTHON_PASS}")
            if base and base.seconds > 0:
                result.ratio = result.seconds / base.seconds
        elif row.baseline:
            base = by_key.get(f"{row.baseline} {ORJSON}")
            if base and base.records_per_s and result.records_per_s:
                result.ratio = base.records_per_s / result.records_per_s


def against_jsonschema(results: list[Result]) -> list[dict]:
    """Per log family: msgcli validate on its largest corpus beside the jsonschema loop."""
    by_key = {f"{r.group} {r.label}": r for r in results}
    summary = []
    for dialect, kind, _ in corpora.FAMILIES:
        family = corpora.family_name(dialect, kind)
        loop = by_key.get(f"{family}-100k {JSONSCHEMA_LABEL}")
        validated = [
            r for r in results if r.group.startswith(f"{family}-") and r.label == "msgcli validate"
        ]
        if loop is None or not loop.records_per_s or not validated:
            continue
        largest = max(validated, key=lambda r: r.records or 0)
        limit = by_key.get(f"{largest.group} {ORJSON}")
        summary.append(
            {
                "family": family,
                "corpus": largest.group,
                "orjson": limit.records_per_s if limit else None,
                "msgcli": largest.records_per_s,
                "jsonschema": loop.records_per_s,
                "speedup": (largest.records_per_s or 0) / loop.records_per_s,
            }
        )
    return summary


def corpus_entry(b: corpora.Built) -> dict:
    return {
        "name": b.spec.name,
        "path": str(b.path.relative_to(ROOT)),
        "dialect": b.spec.dialect,
        "kind": b.spec.kind,
        "records": b.records,
        "bytes": b.size,
        "records_per_repetition": b.template_records,
        "repetitions": round(b.repetitions, 3),
        "sources": list(b.spec.sources),
        "build_s": b.seconds,
    }


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    started = time.perf_counter()
    load_at_start = os.getloadavg()
    code_at_start = code_digest()

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    if not (BIN / "msgcli").exists():
        log(f"no msgcli beside {sys.executable}: run this with the project's venv (make bench)")
        return 2
    jobs = has_jobs_option()
    notes = []
    if not jobs:
        notes.append(
            "`msgcli validate` has no `-j` option in this version: "
            "the `-j 1` and `-j 2` rows are skipped."
        )
    (OUT / "out").mkdir(parents=True, exist_ok=True)
    # msgcli's modules compiled once, as an install has them: where the environment forbids
    # writing bytecode (PYTHONDONTWRITEBYTECODE), every timed process would compile them again
    compileall.compile_dir(str(ROOT / "msgcli"), quiet=1)
    built, rows = select(args, jobs, log)
    log(f"running {len(rows)} commands, {args.runs} run(s) each")
    results = [measure(row, args.runs, log) for row in rows]
    set_ratios(rows, results)
    if args.profile:
        pattern = re.compile(args.profile)
        for row in rows:
            if pattern.search(row.key):
                profile(row, log)

    findings = [f"{r.group}: `{r.label}`: {r.note}" for r in results if r.note]
    if code_digest() != code_at_start:
        notes.append(
            "msgcli's source files changed while this ran: the rows do not all measure the "
            "same code. Run again on a quiet tree."
        )
    total = time.perf_counter() - started
    words = sys.argv[1:] if argv is None else argv
    report = {
        "command": " ".join(["python benchmarks/run.py", *words]),
        "finished": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "total_s": total,
        "runs": args.runs,
        "options": {"quick": args.quick, "big": args.big, "only": args.only, "jobs_option": jobs},
        "machine": machine(),
        "load_average": {
            "start": [round(x, 2) for x in load_at_start],
            "end": [round(x, 2) for x in os.getloadavg()],
        },
        "corpora": [corpus_entry(b) for b in built],
        "results": [asdict(r) for r in results],
        "summary": against_jsonschema(results),
        "findings": findings,
        "notes": notes + diff_notes(results) + findings,
    }
    # a subset goes to its own file: results.json belongs with BENCHMARKS.md
    results_path = OUT / ("results.json" if args.only is None else "results-subset.json")
    results_path.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(text_table(results))
    for note in report["notes"]:
        print(f"note: {note}")
    written = [results_path]
    if args.only is None:  # a subset would replace the whole table
        written.insert(0, write_markdown(markdown(report, results, built)))
    names = " and ".join(str(path.relative_to(ROOT)) for path in written)
    log(f"wrote {names} in {total / 60:.1f} min")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
