"""Deterministic benchmark logs, made by repeating real or valid logs with fresh ids.

A corpus repeats a list of source logs (one "repetition" holds every source once, in order).
Each source line is turned once into a template: its bytes cut at every id and at the date of
every time stamp. A repetition fills the gaps:

- ids: every id (message, block, tool call, reply, event) keeps its first characters and gets a
  10-digit counter as its tail, so it keeps its form (a UUID stays a lower-case UUID, a
  ``call_...`` id stays one) and a tool call and its result still share one id. The counter
  differs per source and per repetition, so ids are unique across the whole corpus.
- time: every stamp keeps its text exactly (format, fraction digits, zone suffix) except its
  date, which moves by whole days: each source starts on the day after the previous one ended,
  and each repetition starts on the day after the previous repetition ended, so time only moves
  forward.

The same parameters give the same bytes; a stamp file beside each corpus records them, and the
corpus is rebuilt only when they change (or the file's size does not match).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import operator
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# keys whose string values are ids to make fresh in every repetition
ID_KEYS = frozenset(
    {"id", "reply_id", "replyId", "block_id", "blockId", "tool_call_id", "toolCallId", "call_id"}
    # Claude Code: record uuids and what points at them, tool results, requests
    | {"uuid", "leafUuid", "tool_use_id", "requestId", "promptId", "messageId"}
)
# shorter values at those keys are names, not ids ("text", "thinking", "" in AgentScope Java)
MIN_ID_LENGTH = 16
COUNTER_DIGITS = 10

# the date of a time stamp: in a stamp field, or in the time hint AgentScope Python writes
STAMP_DATE = re.compile(
    rb'"(?:created_at|finished_at|timestamp|createdAt)": ?"(\d{4}-\d\d-\d\d)'
    rb"|<current-time>(\d{4}-\d\d-\d\d)"
)

WRITE_CHUNK = 8 << 20


@dataclass(frozen=True)
class Spec:
    """One corpus: what to repeat and how much of it."""

    name: str
    dialect: str
    kind: str  # "messages" or "events"
    sources: tuple[str, ...]  # paths relative to the repository
    cut: str  # a key of SIZES, or "1gib"
    records: int | None = None  # stop at (at most) this many records
    size: int | None = None  # or at (at most) this many bytes

    @property
    def path(self) -> Path:
        return corpus_dir() / f"{self.name}.jsonl"

    def params(self) -> dict:
        return {
            "name": self.name,
            "dialect": self.dialect,
            "kind": self.kind,
            "records": self.records,
            "size": self.size,
            "sources": {src: _sha256(ROOT / src) for src in self.sources},
            "generator": _sha256(Path(__file__)),
        }


@dataclass
class Built:
    spec: Spec
    path: Path
    records: int
    size: int
    repetitions: float  # whole repetitions plus the fraction of the last one
    template_records: int
    seconds: float | None  # None: reused from an earlier run


def corpus_dir() -> Path:
    return ROOT / "bench-out" / "corpora"


# -- sources ----------------------------------------------------------------------------


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _ids_in(obj: object, out: set[str]) -> None:
    if isinstance(obj, dict):
        for key, value in obj.items():
            if key in ID_KEYS and isinstance(value, str) and len(value) >= MIN_ID_LENGTH:
                out.add(value)
            else:
                _ids_in(value, out)
    elif isinstance(obj, list):
        for value in obj:
            _ids_in(value, out)


def _read_lines(path: Path) -> list[bytes]:
    lines = [line for line in path.read_bytes().split(b"\n") if line.strip()]
    return [line.rstrip(b"\r") for line in lines]


# -- the template -----------------------------------------------------------------------


class Template:
    """One repetition of the sources, cut into literal bytes and slots to fill.

    ``literals`` has one more element than ``slots``; slot ``i`` sits between literals ``i``
    and ``i + 1`` and names an entry of the table ``render`` fills per repetition: the id
    tails first (one counter per source: the heads, in the literals, tell the ids apart), then
    one date per day offset.
    """

    def __init__(self, sources: tuple[str, ...], boundaries: str) -> None:
        self.literals: list[bytes] = []
        self.slots: list[int] = []
        self.day_offsets: list[int] = []  # per date slot: days after the first day
        self.n_sources = len(sources)
        self.cuts: list[int] = []  # line counts at which a repetition may be cut cleanly

        per_source = [_read_lines(ROOT / src) for src in sources]
        self.records = sum(len(lines) for lines in per_source)
        self._check_prefixes(per_source)

        day_shift = self._day_shifts(per_source)
        first_day = day_shift[0][1]
        day_slot: dict[int, int] = {}
        pending: list[tuple[int, int]] = []  # (day offset, position in self.slots)
        spans: dict[tuple[int, str], list[int]] = {}
        literal = bytearray()
        line_no = 0
        for src_index, lines in enumerate(per_source):
            shift = day_shift[src_index][0]
            # every mention of an id is rewritten, also where it is not at an id key (a reply id
            # in a pause's metadata, a call id in a confirmation)
            ids: set[str] = set()
            for line in lines:
                _ids_in(json.loads(line), ids)
            longest_first = sorted(ids, key=len, reverse=True)
            id_pattern = re.compile(b"|".join(re.escape(v.encode()) for v in longest_first))
            for line in lines:
                marks = self._marks(line, id_pattern if ids else None)
                pos = 0
                for start, end, what in marks:
                    literal += line[pos:start]
                    self.literals.append(bytes(literal))
                    literal.clear()
                    if isinstance(what, str):
                        first_last = spans.setdefault((src_index, what), [line_no, line_no])
                        first_last[1] = line_no
                        self.slots.append(src_index)
                    else:
                        offset = what + shift - first_day
                        day_slot.setdefault(offset, len(day_slot))
                        pending.append((offset, len(self.slots)))
                        self.slots.append(-1)
                    pos = end
                literal += line[pos:] + b"\n"
                line_no += 1
            if boundaries == "sources":
                self.cuts.append(line_no)
        self.literals.append(bytes(literal))

        for offset, index in pending:
            self.slots[index] = self.n_sources + day_slot[offset]
        self.day_offsets = sorted(day_slot, key=day_slot.__getitem__)
        self.first_day = first_day
        self.period_days = max(self.day_offsets, default=0) + 1
        if boundaries == "ids":
            # a cut is clean when no id is used on both sides of it (a tool call and its
            # result, a reply and its end): the line counts no id span crosses
            crossing = [0] * (self.records + 1)
            for first, last in spans.values():
                for cut in range(first + 1, last + 1):
                    crossing[cut] = 1
            self.cuts = [cut for cut in range(1, self.records + 1) if not crossing[cut]]
        if not self.cuts or self.cuts[-1] != self.records:
            self.cuts.append(self.records)
        self._pick = operator.itemgetter(*self.slots) if len(self.slots) > 1 else None

    @staticmethod
    def _check_prefixes(per_source: list[list[bytes]]) -> None:
        ids: set[str] = set()
        for lines in per_source:
            for line in lines:
                _ids_in(json.loads(line), ids)
        seen: dict[str, str] = {}
        for value in ids:
            prefix = value[:-COUNTER_DIGITS]
            if seen.setdefault(prefix, value) != value:
                raise ValueError(f"ids {seen[prefix]!r} and {value!r} differ only in their tails")

    @staticmethod
    def _day_shifts(per_source: list[list[bytes]]) -> list[tuple[int, int]]:
        """For each source: the days to add to its dates, and its first day (an ordinal)."""
        out: list[tuple[int, int]] = []
        last_day: int | None = None
        for lines in per_source:
            days = [
                dt.date.fromisoformat((m.group(1) or m.group(2)).decode()).toordinal()
                for line in lines
                for m in STAMP_DATE.finditer(line)
            ]
            if not days:
                out.append((0, last_day or 0))
                continue
            shift = 0 if last_day is None else last_day + 1 - min(days)
            out.append((shift, min(days)))
            last_day = max(days) + shift
        return out

    @staticmethod
    def _marks(line: bytes, ids: re.Pattern[bytes] | None) -> list[tuple[int, int, str | int]]:
        """Where the ids (by value) and the stamp dates (by day ordinal) are in ``line``."""
        marks: list[tuple[int, int, str | int]] = []
        if ids is not None:
            # the tail of an id (its last COUNTER_DIGITS characters) is what changes
            for m in ids.finditer(line):
                value = m.group().decode()
                marks.append((m.end() - COUNTER_DIGITS, m.end(), value))
        for m in STAMP_DATE.finditer(line):
            group = 1 if m.group(1) else 2
            day = dt.date.fromisoformat(m.group(group).decode()).toordinal()
            marks.append((m.start(group), m.end(group), day))
        marks.sort()
        return marks

    def render(self, repetition: int) -> bytes:
        """The bytes of one repetition."""
        base = repetition * self.n_sources
        values = [b"%0*d" % (COUNTER_DIGITS, base + src) for src in range(self.n_sources)]
        start = self.first_day + repetition * self.period_days
        values += [dt.date.fromordinal(start + d).isoformat().encode() for d in self.day_offsets]
        if self._pick is None:
            filled = [values[slot] for slot in self.slots]
        else:
            filled = list(self._pick(values))
        pieces: list[bytes] = [b""] * (2 * len(self.literals) - 1)
        pieces[::2] = self.literals
        pieces[1::2] = filled
        return b"".join(pieces)


class Rollout:
    """One Codex thread made long: the first source's ``session_meta``, then the records of
    every source after its own ``session_meta`` again and again, as a thread resumed many
    times writes them: one thread id throughout, ordinals going on, and fresh response and
    call ids in every repetition (so the file validates as the CLI would have written it)."""

    def __init__(self, sources: tuple[str, ...]) -> None:
        per_source = [_read_lines(ROOT / src) for src in sources]
        header = json.loads(per_source[0][0])
        thread = header["payload"]["id"].encode()
        self.header = per_source[0][0] + b"\n"
        body: list[bytes] = []
        ids: set[bytes] = set()
        for lines in per_source:
            own = json.loads(lines[0])["payload"]["id"].encode()
            for line in lines[1:]:
                obj = json.loads(line)
                payload = obj.get("payload")
                if isinstance(payload, dict):
                    for key in ("response_id", "call_id"):
                        if isinstance(payload.get(key), str):
                            ids.add(payload[key].encode())
                body.append(line.replace(own, thread))
        self.body = b"\n".join(body) + b"\n"
        self.records = len(body)
        self.cuts = list(range(1, self.records + 1))
        self._ids = re.compile(
            b'"(' + b"|".join(re.escape(i) for i in sorted(ids, key=len, reverse=True)) + b')"'
        )
        self._ordinal = re.compile(rb'"ordinal":\d+')
        self._next = 1

    def render(self, repetition: int) -> bytes:
        """The bytes of one repetition (the header before the first)."""
        tail = b"-r%d" % repetition
        data = self._ids.sub(lambda m: b'"' + m.group(1) + tail + b'"', self.body)
        first = self._next
        counter = iter(range(first, first + self.records))
        data = self._ordinal.sub(lambda _m: b'"ordinal":%d' % next(counter), data)
        self._next = first + self.records
        return self.header + data if repetition == 0 else data


# -- building ---------------------------------------------------------------------------


def _first_lines(data: bytes, count: int) -> bytes:
    end = 0
    for _ in range(count):
        end = data.index(b"\n", end) + 1
    return data[:end]


def _generate(spec: Spec, template: Template | Rollout, out: Path) -> tuple[int, int, float]:
    """Write the corpus; return its records, bytes and repetitions."""
    tmp = out.with_suffix(".tmp")
    records = size = 0
    reps = 0.0
    buffer: list[bytes] = []
    buffered = 0
    limit_records = spec.records if spec.records is not None else sys.maxsize
    limit_size = spec.size if spec.size is not None else sys.maxsize
    with tmp.open("wb") as fh:
        repetition = 0
        while True:
            chunk = template.render(repetition)
            if records + template.records <= limit_records and size + len(chunk) <= limit_size:
                take, data = template.records, chunk
            else:
                take, data = 0, b""
                for cut in template.cuts:
                    part = _first_lines(chunk, cut)
                    if records + cut > limit_records or size + len(part) > limit_size:
                        break
                    take, data = cut, part
            if take:
                buffer.append(data)
                buffered += len(data)
                records += take
                size += len(data)
                reps = repetition + take / template.records
            if buffered >= WRITE_CHUNK or take < template.records:
                fh.write(b"".join(buffer))
                buffer.clear()
                buffered = 0
            if take < template.records:
                break
            repetition += 1
    tmp.replace(out)
    return records, size, reps


def build(spec: Spec, log=print) -> Built:
    """Make the corpus of ``spec``, or reuse the one built earlier with the same parameters."""
    path = spec.path
    stamp_path = path.with_suffix(".stamp.json")
    params = spec.params()
    if path.exists() and stamp_path.exists():
        stamp = json.loads(stamp_path.read_text())
        if stamp.get("params") == params and stamp.get("size") == path.stat().st_size:
            return Built(
                spec,
                path,
                stamp["records"],
                stamp["size"],
                stamp["repetitions"],
                stamp["template_records"],
                None,
            )
    path.parent.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    template: Template | Rollout
    if spec.dialect == "codex":
        template = Rollout(spec.sources)
    else:
        template = Template(spec.sources, "sources" if spec.kind == "events" else "ids")
    records, size, reps = _generate(spec, template, path)
    seconds = time.perf_counter() - started
    stamp = {
        "params": params,
        "records": records,
        "size": size,
        "repetitions": reps,
        "template_records": template.records,
        "seconds": round(seconds, 3),
    }
    stamp_path.write_text(json.dumps(stamp, indent=2) + "\n")
    log(f"  built {path.name}: {records:,} records, {size / 1e6:,.1f} MB in {seconds:.1f} s")
    return Built(spec, path, records, size, reps, template.records, seconds)


# -- the corpora of the benchmark -------------------------------------------------------


def _logs(folder: str, *names: str) -> tuple[str, ...]:
    return tuple(f"{folder}/{name}.jsonl" for name in names)


JAVA_MESSAGES = _logs(
    "fixtures/valid/agentscope-java",
    "react-weather",
    "parallel-tools",
    "permission-denied",
    "max-iterations",
    "hints",
    "multi-agent",
)
# the real log, then every scenario log with no expected findings (its `.expect` sidecar)
PY_EVENTS = _logs("fixtures/real/agentscope-py", "events") + _logs(
    "fixtures/events/agentscope-py",
    "error-reply",
    "exceed-max-iters",
    "external-execution",
    "external-execution-parked",
    "hitl",
    "hitl-parked",
    "hitl-concurrent",
    "hitl-concurrent-parked",
    "interleaved-fragments",
    "interrupted",
    "interrupted-model",
    "interrupted-parked",
    "multi-agent",
    "parallel-tools",
    "with-custom",
)
JAVA_EVENTS = _logs(
    "fixtures/events/agentscope-java",
    "single-tool",
    "parallel-tools",
    "fragments",
    "hitl",
    "external-execution",
    "interrupted",
    "max-iters",
    "multi-agent",
    "minimal-run",
)
# every complete Anthropic Messages stream of the SDK corpus (streams one after another)
ANTHROPIC_EVENTS = _logs(
    "fixtures/provider-streams/anthropic-messages",
    "text-unicode/events",
    "thinking/events",
    "tool-use/events",
    "parallel-tools/events",
    "usage-cache/events",
    "stop-max-tokens/events",
    "structured-output/events",
)

# real Claude Code 2.1.197 sessions (no subagent, no resume): one repetition is ten sessions
CLAUDE_CODE = tuple(
    f"fixtures/real/claude-code/{name}/session.jsonl"
    for name in (
        "02-bash-ls",
        "03-parallel-read",
        "04-write-edit-read",
        "05a-todowrite",
        "06-thinking",
        "07-bash-fails",
        "08-tool-denied",
        "10-image-read",
        "15-max-tokens",
        "17-partial-messages",
    )
)
# real Codex CLI 0.171.0 rollouts of one thread each (no fork, no sub-agent): the body of each
# (all but its session_meta) is repeated in one rollout, as a thread resumed again and again
CODEX = tuple(
    str(
        next(
            (ROOT / "fixtures/real/codex" / name / "sessions").rglob("rollout-*.jsonl")
        ).relative_to(ROOT)
    )
    for name in (
        "02-shell-one",
        "04-write-edit-read",
        "05-failing-command",
        "08-resume",
        "12-compaction",
    )
)
FAMILIES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("agentscope-py", "messages", ("fixtures/real/agentscope-py/transcript.jsonl",)),
    ("loongflow", "messages", ("fixtures/real/loongflow/transcript.jsonl",)),
    ("agentscope-java", "messages", JAVA_MESSAGES),
    ("agentscope-py", "events", PY_EVENTS),
    ("agentscope-java", "events", JAVA_EVENTS),
    ("anthropic", "events", ANTHROPIC_EVENTS),
    ("claude-code", "messages", CLAUDE_CODE),
)
SIZES = {"10k": 10_000, "100k": 100_000, "1m": 1_000_000}
BIG_SIZE = 1 << 30


def family_name(dialect: str, kind: str) -> str:
    return f"{dialect}-{kind}"


def specs(sizes: tuple[str, ...], big: bool) -> list[Spec]:
    """The corpora for these sizes (keys of SIZES), and the 1 GiB log if ``big``."""
    out = [
        Spec(f"{family_name(dialect, kind)}-{cut}", dialect, kind, sources, cut, records=SIZES[cut])
        for cut in sizes
        for dialect, kind, sources in FAMILIES
    ]
    if big:
        for dialect, kind, sources in (FAMILIES[0], FAMILIES[-1], ("codex", "messages", CODEX)):
            name = f"{family_name(dialect, kind)}-1gib"
            out.append(Spec(name, dialect, kind, sources, "1gib", size=BIG_SIZE))
    return out


def main(argv: list[str]) -> int:
    """Build the corpora named on the command line (all sizes if none): a debugging aid."""
    wanted = set(argv)
    for spec in specs(tuple(SIZES), big=True):
        if not wanted or spec.name in wanted:
            built = build(spec)
            print(f"{built.path}: {built.records:,} records, {built.size:,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
