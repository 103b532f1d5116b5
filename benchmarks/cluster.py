"""``make bench-cluster``: validate of a 1 GiB real-derived log read from a local S3 endpoint.

The 1 GiB AgentScope Python message log of ``make bench`` (the real transcripts repeated with
fresh ids, see corpora.py) is put into moto's S3 server on 127.0.0.1, and read back by

- ``msgcli validate -j 1 s3://...`` (one process),
- ``msgcli validate -j 2 s3://...`` (two worker processes, byte ranges),
- ``msgcli validate --scheduler local:2 s3://...`` (a LocalCluster of two worker processes).

Each row gives the wall time, the throughput, and the peak resident memory of the main
process and of each worker process (sampled every 50 ms). The results go to
bench-out/cluster.json and are printed as a Markdown table for BENCHMARKS.md.

``--from disk`` reads the same log from local disk instead (the cost of the cluster itself,
without the S3 server's); ``--rows local`` runs only the LocalCluster row (``one``, ``j2``,
``local``, comma-separated). ``make bench-cluster BENCH_CLUSTER_ARGS="--from disk"``.
The load average of the machine before and after each row is written beside it.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import corpora
import psutil

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench-out"
BUCKET = "msgcli-bench"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _sample(pid: int, peaks: dict[int, tuple[str, int]], stop: threading.Event) -> None:
    """The largest RSS of the process and of each of its descendants."""
    try:
        top = psutil.Process(pid)
    except psutil.Error:
        return
    while not stop.wait(0.05):
        try:
            family = [top, *top.children(recursive=True)]
        except psutil.Error:
            return
        for proc in family:
            try:
                rss = proc.memory_info().rss
                role = " ".join(proc.cmdline()[1:4])[:60]
            except psutil.Error:
                continue
            if rss > peaks.get(proc.pid, ("", 0))[1]:
                peaks[proc.pid] = (role, rss)


def run(label: str, argv: list[str], env: dict, size: int) -> dict:
    load_before = os.getloadavg()
    peaks: dict[int, tuple[str, int]] = {}
    stop = threading.Event()
    started = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    sampler = threading.Thread(target=_sample, args=(proc.pid, peaks, stop), daemon=True)
    sampler.start()
    _, err = proc.communicate()
    wall = time.perf_counter() - started
    stop.set()
    sampler.join()
    main = peaks.pop(proc.pid, ("", 0))[1]
    # the workers: the processes that checked (a LocalCluster's nanny and its resource
    # tracker are small; the largest ones are the workers)
    others = sorted((rss for _, rss in peaks.values()), reverse=True)
    workers = 0 if "-j 1" in label else 2
    row = {
        "label": label,
        "command": " ".join(argv[2:]),
        "exit_code": proc.returncode,
        "wall_s": round(wall, 2),
        "mb_per_s": round(size / 1e6 / wall, 1),
        "main_peak_mib": round(main / 2**20, 1),
        "worker_peak_mib": [round(r / 2**20, 1) for r in others[:workers]],
        "stderr": err.decode(errors="replace")[-300:],
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
    }
    print(json.dumps(row), file=sys.stderr, flush=True)
    return row


def main(argv: list[str]) -> int:
    import argparse

    from moto.server import ThreadedMotoServer

    parser = argparse.ArgumentParser(prog="benchmarks/cluster.py")
    parser.add_argument(
        "--cut", default="1gib", help="the corpus: 1gib (default), or 100k / 1m records"
    )
    parser.add_argument(
        "--from",
        dest="source",
        choices=("s3", "disk"),
        default="s3",
        help="read the log from the local S3 endpoint (default) or from local disk",
    )
    parser.add_argument(
        "--rows",
        default="one,j2,local",
        help="the rows to run: one (-j 1), j2 (-j 2), local (--scheduler local:2)",
    )
    args = parser.parse_args(argv)
    wanted = {r.strip() for r in args.rows.split(",") if r.strip()}
    if not wanted or wanted - {"one", "j2", "local"}:
        parser.error("--rows takes one, j2 and local, comma-separated")
    sizes = () if args.cut == "1gib" else (args.cut,)
    specs = corpora.specs(sizes, big=args.cut == "1gib")
    (spec,) = [s for s in specs if s.dialect == "agentscope-py" and s.kind == "messages"][:1]
    built = corpora.build(spec)
    if args.source == "disk":
        rows = _rows(str(built.path), dict(os.environ), built.size, wanted)
        return _report(spec, built, rows, "from local disk")
    port = _free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    env = dict(os.environ)
    env.update(
        AWS_ACCESS_KEY_ID="bench",
        AWS_SECRET_ACCESS_KEY="bench",
        AWS_DEFAULT_REGION="us-east-1",
        AWS_ENDPOINT_URL=f"http://127.0.0.1:{port}",
        AWS_EC2_METADATA_DISABLED="true",
    )
    env.pop("MSGCLI_SCHEDULER", None)
    try:
        import boto3

        s3 = boto3.client(
            "s3",
            endpoint_url=env["AWS_ENDPOINT_URL"],
            region_name="us-east-1",
            aws_access_key_id="bench",
            aws_secret_access_key="bench",
        )
        s3.create_bucket(Bucket=BUCKET)
        s3.upload_file(str(built.path), BUCKET, f"logs/{built.path.name}")
        rows = _rows(f"s3://{BUCKET}/logs/", env, built.size, wanted)
    finally:
        server.stop()
    return _report(spec, built, rows, "from s3:// (moto)")


def _rows(where: str, env: dict, size: int, wanted: set[str]) -> list[dict]:
    msgcli = [sys.executable, "-m", "msgcli", "validate", "-q"]
    rows = []
    if "one" in wanted:
        rows.append(run("validate -j 1 (one process)", [*msgcli, "-j", "1", where], env, size))
    if "j2" in wanted:
        rows.append(run("validate -j 2", [*msgcli, "-j", "2", where], env, size))
    if "local" in wanted:
        argv = [*msgcli, "--scheduler", "local:2", where]
        rows.append(run("validate --scheduler local:2", argv, env, size))
    return rows


def _report(spec, built, rows: list[dict], source: str) -> int:
    OUT.mkdir(exist_ok=True)
    report = {
        "corpus": {"name": spec.name, "bytes": built.size, "records": built.records},
        "source": source,
        "cores": os.cpu_count(),
        "load_average": os.getloadavg(),
        "rows": rows,
    }
    (OUT / "cluster.json").write_text(json.dumps(report, indent=2) + "\n")
    print(f"{spec.name}: {built.size / 1e9:.2f} GB, {built.records:,} records, {source}")
    print(
        "| command | exit | wall s | MB/s | main peak MiB | worker peak MiB | load before, after |"
    )
    print("|---|---:|---:|---:|---:|---|---|")
    for r in rows:
        workers = ", ".join(str(w) for w in r["worker_peak_mib"]) or "-"
        load = f"{r['load_average_before'][0]}, {r['load_average_after'][0]}"
        print(
            f"| `{r['label']}` | {r['exit_code']} | {r['wall_s']} | {r['mb_per_s']} "
            f"| {r['main_peak_mib']} | {workers} | {load} |"
        )
    return 0 if all(r["exit_code"] == 0 for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
