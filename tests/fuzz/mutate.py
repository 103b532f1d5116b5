"""Hostile inputs made from real logs.

:func:`seeds` reads the logs the frameworks wrote (``fixtures/real``, and the Java event
and message logs the fixtures hold where no real Java run exists); :func:`mutate` takes a
window of one and breaks it in one to four ways, at three levels:

- bytes: flips, truncation, invalid UTF-8, NUL and escape bytes dropped anywhere;
- lines (records, events): dropped, duplicated, swapped, reversed;
- values: a value of a record swapped for another JSON type (an object or a list where
  a string or number is expected), for very deep nesting (just under and over the
  parser's 1,024 levels), for integers beyond 64 bits, lone surrogates, NaN beside a
  surrogate, or text full of escape sequences (ESC, C1, bidirectional overrides,
  NUL, line separators) or of markup (rich's, HTML's: a script, an event handler).

Everything is drawn from one :class:`random.Random`, so a seed gives the same inputs
on every machine. :func:`inputs` is the hypothesis strategy over the same mutator.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"


@dataclass(frozen=True)
class Seed:
    name: str
    data: bytes

    @property
    def sse(self) -> bool:
        return self.name.endswith(".sse")

    @property
    def suffix(self) -> str:
        """The suffix an input made from this log is written under (its reader goes by it)."""
        return ".sse" if self.sse else (".json" if self.name.endswith(".json") else ".jsonl")

    @property
    def document(self) -> bool:
        """A pretty-printed JSON document (an array or a state file), not JSONL."""
        return self.data.lstrip()[:1] in (b"[", b"{") and b"\n " in self.data[:200]


def seeds() -> list[Seed]:
    """The real logs, and the hand-made Java logs where no real Java run is in the fixtures."""
    paths = sorted((FIXTURES / "real").rglob("*"))
    paths += sorted((FIXTURES / "valid" / "agentscope-java").glob("*.jsonl"))
    paths += sorted((FIXTURES / "events" / "agentscope-java").glob("*.jsonl"))
    out = []
    for path in paths:
        if path.is_file() and path.suffix in (".jsonl", ".sse", ".json"):
            out.append(Seed(str(path.relative_to(ROOT)), path.read_bytes()))
    return out


# -- hostile values -------------------------------------------------------------

#: text with every kind of character a terminal may act on
HOSTILE_TEXT = [
    "\x1b[2J\x1b[31mred\x1b[0m",
    "\x1b]0;title\x07",
    "\x9b31m C1 CSI",
    "\x85NEL\x0bVT\x0cFF\rCR",
    "bidi \u202eevil\u202c \u2066iso\u2069 \u200f",
    "NUL\x00byte",
    "line\u2028sep\u2029para",
    "[bold]markup[/bold] :smile:",
    "<script>alert(1)</script><img src=x onerror=alert(2)>",
    '</code></pre><!-- <details><a href="javascript:alert(3)">x</a>',
    "\x7fDEL\x08BS",
    "tab\tnewline\nend",
]

# raw JSON text put in place of a value (what json.dumps cannot write, or writes too slowly)
_RAW = [
    "18446744073709551616",
    "-9223372036854775809",
    "123456789012345678901234567890123456789",
    "1e400",
    "-1e400",
    '"\\ud800"',
    '"abc\\udfff"',
    '"\\udc00\\u001b[31m"',
    "NaN",
    "Infinity",
    '[NaN, "\\ud800"]',
    '{"x": NaN, "y": "\\udbff"}',
    '"\\u0000"',
]


def _deep(rnd: random.Random) -> str:
    depth = rnd.choice([64, 300, 900, 1000, 1015, 1030])
    if rnd.random() < 0.5:
        return "[" * depth + '"deep"' + "]" * depth
    return '{"a":' * depth + "1" + "}" * depth


def _paths(value, prefix=()):
    """Every path into ``value``, depth first, without recursion (values nest past the
    interpreter's recursion limit)."""
    stack = [(value, prefix)]
    while stack:
        value, prefix = stack.pop()
        yield prefix
        if isinstance(value, dict):
            children = [(item, (*prefix, key)) for key, item in value.items()]
        elif isinstance(value, list):
            children = [(item, (*prefix, index)) for index, item in enumerate(value)]
        else:
            continue
        stack.extend(reversed(children))


def _set(obj, path, value):
    target = obj
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value


_OTHER_TYPES = [
    lambda rnd: {"k": rnd.choice(HOSTILE_TEXT)},
    lambda rnd: [rnd.choice(HOSTILE_TEXT), 1],
    lambda rnd: rnd.choice(HOSTILE_TEXT),
    lambda rnd: rnd.choice([0, -1, 2**31, 2**63 - 1]),
    lambda rnd: rnd.choice([0.5, -1e300, 1e-300]),
    lambda rnd: rnd.choice([True, False]),
    lambda rnd: None,
    lambda rnd: {},
    lambda rnd: [],
    lambda rnd: "",
]


def _mutate_value(line: bytes, rnd: random.Random, indent: int | None = None) -> bytes:
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError):
        return line
    if not isinstance(obj, (dict, list)):
        return line
    raws: list[str] = []
    for _ in range(rnd.randint(1, 3)):
        paths = [p for p in _paths(obj) if p]
        if not paths:
            break
        # leaves and the keys a renderer reads are the interesting places
        path = rnd.choice(paths)
        choice = rnd.random()
        if choice < 0.35:
            _set(obj, path, rnd.choice(_OTHER_TYPES)(rnd))
        elif choice < 0.55:
            _set(obj, path, rnd.choice(HOSTILE_TEXT) + rnd.choice(["", "x" * rnd.randint(1, 50)]))
        else:
            marker = f"@@RAW{len(raws)}@@"
            raws.append(_deep(rnd) if rnd.random() < 0.4 else rnd.choice(_RAW))
            _set(obj, path, marker)
    try:
        text = json.dumps(obj, ensure_ascii=rnd.random() < 0.3, indent=indent)
    except (ValueError, RecursionError):
        return line
    for index, raw in enumerate(raws):
        text = text.replace(f'"@@RAW{index}@@"', raw)
    return text.encode("utf-8", "surrogatepass")


_BYTES = [b"\x00", b"\x1b", b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x9b", b"\xc2\x9b", b"\n", b'"']


def _mutate_bytes(data: bytes, rnd: random.Random) -> bytes:
    if not data:
        return data
    at = rnd.randrange(len(data))
    choice = rnd.random()
    if choice < 0.3:
        return data[:at] + bytes([data[at] ^ (1 << rnd.randrange(8))]) + data[at + 1 :]
    if choice < 0.5:
        return data[:at]  # cut off
    if choice < 0.8:
        return data[:at] + rnd.choice(_BYTES) + data[at:]
    end = min(len(data), at + rnd.randint(1, 40))
    return data[:at] + data[end:]


def _mutate_lines(lines: list[bytes], rnd: random.Random) -> list[bytes]:
    if not lines:
        return lines
    lines = list(lines)
    i = rnd.randrange(len(lines))
    choice = rnd.random()
    if choice < 0.25:
        del lines[i]
    elif choice < 0.5:
        lines.insert(i, lines[i])
    elif choice < 0.75:
        j = rnd.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    else:
        j = rnd.randrange(len(lines))
        lo, hi = min(i, j), max(i, j) + 1
        lines[lo:hi] = reversed(lines[lo:hi])
    return lines


def _window(seed: Seed, rnd: random.Random) -> list[bytes]:
    lines = seed.data.split(b"\n")
    if seed.sse or seed.document or len(lines) <= 12:
        return lines
    size = rnd.randint(1, 12)
    start = rnd.randrange(len(lines) - size + 1)
    return lines[start : start + size]


def mutate(seed: Seed, rnd: random.Random) -> bytes:
    """A broken copy of (a window of) ``seed``: one to four mutations of any level."""
    return mutate_window(seed, rnd)[1]


def mutate_window(seed: Seed, rnd: random.Random) -> tuple[bytes, bytes]:
    """``(the window of seed, its broken copy)``, as :func:`mutate` makes it."""
    lines = _window(seed, rnd)
    clean = b"\n".join(lines)
    for _ in range(rnd.randint(1, 4)):
        level = rnd.random()
        if level < 0.55 and seed.document:
            # a pretty-printed document: its values are mutated as one (it may not parse
            # any more after an earlier byte-level mutation; then it stays as it is)
            lines = _mutate_value(b"\n".join(lines), rnd, indent=2).split(b"\n")
        elif level < 0.55:
            candidates = [i for i, line in enumerate(lines) if line.strip()]
            if candidates:
                i = rnd.choice(candidates)
                line = lines[i]
                prefix = b""
                if line.startswith(b"data: "):
                    prefix, line = b"data: ", line[6:]
                lines[i] = prefix + _mutate_value(line, rnd)
        elif level < 0.8:
            lines = _mutate_lines(lines, rnd)
        else:
            data = _mutate_bytes(b"\n".join(lines), rnd)
            lines = data.split(b"\n")
    return clean, b"\n".join(lines)


def inputs():
    """A hypothesis strategy: ``(seed name, mutated bytes)``."""
    from hypothesis import strategies as st

    pool = seeds()
    return st.tuples(st.sampled_from(pool), st.randoms(use_true_random=False)).map(
        lambda pair: (pair[0].name, mutate(pair[0], pair[1]))
    )


# -- the sweep: every key path of the records, set in turn to each hostile value ----------

#: name -> raw JSON text of a value the sweep puts at every key path in turn
SWEEP_VALUES: dict[str, str] = {
    "list 1,000 deep": "[" * 1000 + '"deep"' + "]" * 1000,
    "object 1,000 deep": '{"a":' * 1000 + "1" + "}" * 1000,
    "list 1,100 deep": "[" * 1100 + "1" + "]" * 1100,  # past the parser's 1,024 levels
    "zero": "0",
    "negative": "-1",
    "huge int": "18446744073709551616",
    "float": "0.5",
    "1e400": "1e400",
    "NaN": "NaN",
    "true": "true",
    "false": "false",
    "null": "null",
    "empty string": '""',
    "empty list": "[]",
    "empty object": "{}",
    "rich markup": '"[bold]x[/] [link=https://x]y[/link]"',
    "HTML markup": '"<script>alert(1)</script><img src=x onerror=alert(2)>"',
    "control text": '"\\u001b[2J\\u001b]0;t\\u0007\\u009b31m\\u202eevil\\u0000\\r"',
    "lone surrogate": '"\\ud800x"',
}

#: lines of a log around the changed record in a sweep input
SWEEP_WINDOW = 8


@dataclass(frozen=True)
class SweepCase:
    seed: Seed
    line: int  # the changed record's line in the seed (0: a document, as one)
    path: tuple  # the key path in it

    def data(self, raw: str) -> tuple[bytes, bytes]:
        """``(the clean window, the window with the value at the path set to raw JSON)``."""
        if self.seed.document:
            lines, at, prefix = [self.seed.data], 0, b""
        else:
            lines, lo = self.seed.data.split(b"\n"), 0
            if len(lines) > SWEEP_WINDOW and not self.seed.sse:
                lo = min(max(0, self.line - SWEEP_WINDOW // 2), len(lines) - SWEEP_WINDOW)
                lines = lines[lo : lo + SWEEP_WINDOW]
            at = self.line - lo
            prefix = b"data: " if lines[at].startswith(b"data: ") else b""
        clean = b"\n".join(lines)
        obj = json.loads(lines[at][len(prefix) :])
        _set(obj, self.path, "@@SWEEP@@")
        text = json.dumps(obj, ensure_ascii=False, indent=2 if self.seed.document else None)
        changed = list(lines)
        changed[at] = prefix + text.replace('"@@SWEEP@@"', raw).encode("utf-8", "surrogatepass")
        return clean, b"\n".join(changed)

    def describe(self) -> str:
        pointer = "/" + "/".join(str(key) for key in self.path)
        return f"{self.seed.name}:{self.line + 1} at {pointer}"


def _kind(obj) -> tuple:
    """What kind of record: its keys, and the values that name its type."""
    if not isinstance(obj, dict):
        return ("list",)
    named = ("type", "role", "event", "object")
    return (
        tuple(sorted(obj)),
        tuple(str(obj[k])[:40] for k in named if isinstance(obj.get(k), (str, int))),
    )


def sweep_cases(pool: list[Seed]) -> list[SweepCase]:
    """Every key path of the records of ``pool``, once per family of logs (the fixtures'
    folder), kind of record and path (list indices as one): the first record that has it."""
    seen: set[tuple] = set()
    cases = []
    for seed in pool:
        family = seed.name.split("/")[2]
        lines = [seed.data] if seed.document else seed.data.split(b"\n")
        records = list(enumerate(lines))
        for line, record in records:
            if record.startswith(b"data: "):
                record = record[6:]
            try:
                obj = json.loads(record)
            except (ValueError, RecursionError):
                continue
            if not isinstance(obj, (dict, list)):
                continue
            kind = _kind(obj)
            for path in _paths(obj):
                if not path:
                    continue
                key = (family, kind, tuple("*" if type(k) is int else k for k in path))
                if key not in seen:
                    seen.add(key)
                    cases.append(SweepCase(seed, line, path))
    return cases
