"""``msgcli usage`` beside ccusage, side by side in one run, on ccusage's own ground.

Two corpora made from the real Claude Code sessions of ``fixtures/real/claude-code``
(:data:`corpora.CLAUDE_CODE`, every id and date rewritten per repetition, so no response is
a copy of another):

- ``sessions``: 3,000 session files, 445 MB in all, in 60 project folders, their sizes drawn
  from a log-normal mix like a real ``~/.claude/projects`` (most files tens of kB, a few of
  tens of MB);
- ``big``: one 400 MB session.

ccusage is installed from the npm registry into ``bench-out/usage/ccusage`` (never a
dependency of the project; ``--ccusage VERSION``, default the newest) and run as
``ccusage session --json --offline`` with ``CLAUDE_CONFIG_DIR`` on the corpus; msgcli as
``msgcli usage --by session --format json``. The two alternate, run after run; each row
shows the median time, the peak memory of the largest process (``ru_maxrss`` of the
children) and of the whole process tree (its proportional set size, sampled every 20 ms),
and msgcli's time over ccusage's.
The token totals of the two are compared on every corpus.

    python benchmarks/usage.py [--runs 3] [--ccusage 20.0.26] [--markdown]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpora

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench-out" / "usage"
FILES = 3000
TOTAL = 445_000_000
BIG = 400_000_000
PROJECTS = 60


def _first_lines(data: bytes, count: int) -> bytes:
    end = 0
    for _ in range(count):
        end = data.index(b"\n", end) + 1
    return data[:end]


def _renderer():
    template = corpora.Template(corpora.CLAUDE_CODE, "sources")
    state = {"rep": 0}

    def take(size: int) -> bytes:
        """Whole sessions (at least one) up to about ``size`` bytes."""
        out: list[bytes] = []
        got = 0
        while got < size:
            chunk = template.render(state["rep"])
            state["rep"] += 1
            if got + len(chunk) > size:
                # the sessions of the repetition that fit (a repetition is ten sessions)
                part = b""
                for cut in template.cuts:
                    bigger = _first_lines(chunk, cut)
                    if got + len(bigger) > size and (part or out):
                        break
                    part = bigger
                out.append(part)
                got += len(part)
                break
            out.append(chunk)
            got += len(chunk)
        return b"".join(out)

    return take


def build_sessions(root: Path) -> Path:
    """The 3,000 session files under ``root/claude/projects``."""
    home = root / "claude"
    stamp = root / "sessions.stamp"
    if stamp.exists() and stamp.read_text() == f"{FILES} {TOTAL} 2":
        return home
    shutil.rmtree(home, ignore_errors=True)
    rng = random.Random(34)
    raw = [rng.lognormvariate(0, 1.6) for _ in range(FILES)]
    scale = TOTAL / sum(raw)
    take = _renderer()
    for i, weight in enumerate(raw):
        folder = home / "projects" / f"-home-user-project-{i % PROJECTS:02}"
        folder.mkdir(parents=True, exist_ok=True)
        data = take(int(weight * scale))
        (folder / f"session-{i:04}.jsonl").write_bytes(data)
    stamp.write_text(f"{FILES} {TOTAL} 2")
    return home


def build_big(root: Path) -> Path:
    """One 400 MB session under ``root/big/projects``."""
    home = root / "big"
    path = home / "projects" / "-home-user-big" / "big-session.jsonl"
    if path.exists() and path.stat().st_size >= BIG:
        return home
    path.parent.mkdir(parents=True, exist_ok=True)
    take = _renderer()
    with path.open("wb") as fh:
        written = 0
        while written < BIG:
            data = take(8 << 20)
            fh.write(data)
            written += len(data)
    return home


def install_ccusage(version: str) -> Path:
    where = OUT / "ccusage"
    binary = where / "node_modules" / ".bin" / "ccusage"
    wanted = where / f"version-{version}"
    if binary.exists() and wanted.exists():
        return binary
    where.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        ["npm", "install", "--prefix", str(where), "--no-audit", "--no-fund", f"ccusage@{version}"],
        check=True,
        capture_output=True,
    )
    wanted.write_text("")
    return binary


def _tree_rss(pid: int) -> int:
    try:
        import psutil
    except ImportError:
        return 0
    try:
        proc = psutil.Process(pid)
        procs = [proc, *proc.children(recursive=True)]
    except psutil.Error:
        return 0
    total = 0
    for p in procs:
        with contextlib.suppress(psutil.Error):
            # proportional set size: a page the forked workers share with their owner is
            # counted once over the tree, not once in each
            total += p.memory_full_info().pss
    return total


def run(argv: list[str], env: dict) -> tuple[float, int, int, bytes]:
    """Seconds, peak RSS of the largest process and of the tree (bytes), standard output."""
    script = (
        "import resource, subprocess, sys\n"
        "done = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE)\n"
        "sys.stdout.buffer.write(done.stdout)\n"
        "sys.stderr.write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))\n"
        "sys.exit(done.returncode)\n"
    )
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-c", script, *argv],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    peak = [0]

    def sample() -> None:
        while proc.poll() is None:
            peak[0] = max(peak[0], _tree_rss(proc.pid))
            time.sleep(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out, err = proc.communicate()
    seconds = time.perf_counter() - start
    sampler.join()
    if proc.returncode != 0:
        raise RuntimeError(f"{argv[0]} failed: {err[-500:]!r}")
    wrapper = 5 << 20  # (the sampled tree includes the small wrapper that times it)
    return seconds, int(err.strip().splitlines()[-1]) * 1024, max(peak[0] - wrapper, 0), out


def totals_ccusage(out: bytes) -> dict:
    doc = json.loads(out)
    t = doc["totals"]
    return {
        "input": t["inputTokens"],
        "output": t["outputTokens"],
        "cache_read": t["cacheReadTokens"],
        "cache_write": t["cacheCreationTokens"],
    }


def totals_msgcli(out: bytes) -> dict:
    t = json.loads(out)["total"]
    return {k: t[k] for k in ("input", "output", "cache_read", "cache_write")}


def main(args: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--ccusage", default=None, help="the ccusage version (default newest)")
    parser.add_argument("--only", choices=("sessions", "big"), default=None)
    opts = parser.parse_args(args)
    version = opts.ccusage
    if version is None:
        version = subprocess.run(
            ["npm", "view", "ccusage", "version"], capture_output=True, text=True, check=True
        ).stdout.strip()
    OUT.mkdir(parents=True, exist_ok=True)
    ccusage = install_ccusage(version)
    corpora_built = []
    if opts.only in (None, "sessions"):
        corpora_built.append(("3,000 sessions", build_sessions(OUT)))
    if opts.only in (None, "big"):
        corpora_built.append(("one session", build_big(OUT)))
    results = []
    for title, home in corpora_built:
        env = {**os.environ, "CLAUDE_CONFIG_DIR": str(home), "TZ": "UTC"}
        env["PYTHONPATH"] = str(ROOT)
        commands = {
            f"ccusage {version}": [str(ccusage), "session", "--json", "--offline"],
            "msgcli usage": [
                sys.executable,
                "-m",
                "msgcli",
                "usage",
                str(home / "projects"),
                "--by",
                "session",
                "--format",
                "json",
            ],
        }
        measured: dict[str, list] = {name: [] for name in commands}
        outputs = {}
        for _ in range(opts.runs):
            for name, argv in commands.items():
                seconds, largest, tree, out = run(argv, env)
                measured[name].append((seconds, largest, tree))
                outputs[name] = out
        sums = {
            name: (totals_ccusage if name.startswith("ccusage") else totals_msgcli)(out)
            for name, out in outputs.items()
        }
        size = sum(p.stat().st_size for p in home.rglob("*.jsonl"))
        files = sum(1 for _ in home.rglob("*.jsonl"))
        row = {"corpus": title, "files": files, "bytes": size, "commands": {}, "totals": sums}
        for name, runs in measured.items():
            times = sorted(r[0] for r in runs)
            row["commands"][name] = {
                "median_s": statistics.median(times),
                "min_s": times[0],
                "max_s": times[-1],
                "largest_process_mb": max(r[1] for r in runs) / 1e6,
                "tree_mb": max(r[2] for r in runs) / 1e6,
            }
        names = list(commands)
        row["ratio"] = row["commands"][names[1]]["median_s"] / row["commands"][names[0]]["median_s"]
        row["same_totals"] = sums[names[0]] == sums[names[1]]
        results.append(row)
        print(json.dumps(row, indent=1), flush=True)
    (OUT / "results.json").write_text(json.dumps(results, indent=1))
    return 0 if all(r["same_totals"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
