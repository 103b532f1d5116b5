"""Logs in object storage, and validate, stats and export on a Dask cluster.

Everything here is real: an S3 API served by moto's server on 127.0.0.1 (a real HTTP
endpoint that s3fs talks to), a LocalCluster of two worker processes, and a ``dask
scheduler`` with two ``dask worker`` processes started as commands. Each run on them is
compared with the same command on the same files on local disk.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import FIXTURES

pytest.importorskip("distributed")
pytest.importorskip("s3fs")
pytest.importorskip("moto")

# one S3 endpoint and one Dask cluster for the module: its tests share one xdist worker
# (make's --dist loadfile; xdist_group for --dist loadgroup);
# minutes of subprocesses and clusters: `make test` leaves them to `make test-all` and CI
pytestmark = [pytest.mark.xdist_group("cluster"), pytest.mark.slow]

BUCKET = "msgcli-logs"
PREFIX = f"s3://{BUCKET}/"
BIN = Path(sys.executable).parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _corpus(root: Path) -> Path:
    """The logs: the real producer logs, invalid ones, a gzip one; beside them (big/) a real
    transcript repeated past the size at which validate checks a log in byte ranges (its
    repeated ids are findings across part borders)."""
    logs = root / "logs"
    shutil.copytree(FIXTURES / "real", logs / "real")
    shutil.copytree(FIXTURES / "invalid" / "mixed-problems", logs / "invalid")
    (logs / "real" / "README.md").unlink()
    source = (FIXTURES / "real" / "agentscope-py" / "transcript.jsonl").read_bytes()
    big = root / "big" / "repeated.jsonl"
    big.parent.mkdir()
    big.write_bytes(source * (9_000_000 // len(source) + 1))
    with gzip.open(logs / "real" / "loongflow-copy.jsonl.gz", "wb") as out:
        out.write((FIXTURES / "real" / "loongflow" / "transcript.jsonl").read_bytes())
    return logs


@pytest.fixture(scope="module")
def s3(tmp_path_factory):
    """A local S3 endpoint holding the corpus under s3://msgcli-logs/logs/; yields
    ``(environment for msgcli, local copy of the corpus)``."""
    from moto.server import ThreadedMotoServer

    root = tmp_path_factory.mktemp("s3")
    logs = _corpus(root)
    port = _free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    env = dict(os.environ)
    for key in list(env):
        if key.startswith("AWS_") or key == "MSGCLI_SCHEDULER":
            del env[key]
    env.update(
        AWS_ACCESS_KEY_ID="testing",
        AWS_SECRET_ACCESS_KEY="testing",
        AWS_DEFAULT_REGION="us-east-1",
        AWS_ENDPOINT_URL=f"http://127.0.0.1:{port}",
        # never ask a cloud metadata service for credentials
        AWS_EC2_METADATA_DISABLED="true",
        AWS_CONFIG_FILE=str(root / "no-aws-config"),
        AWS_SHARED_CREDENTIALS_FILE=str(root / "no-aws-credentials"),
        NO_PROXY="127.0.0.1",
    )
    import boto3

    client = boto3.client(
        "s3",
        endpoint_url=env["AWS_ENDPOINT_URL"],
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
        region_name="us-east-1",
    )
    client.create_bucket(Bucket=BUCKET)
    for path in sorted([*logs.rglob("*"), *(root / "big").rglob("*")]):
        if path.is_file():
            client.upload_file(str(path), BUCKET, path.relative_to(root).as_posix())
    client.put_object(Bucket=BUCKET, Key="logs/notes.txt", Body=b"not a log")
    try:
        yield env, root
    finally:
        server.stop()


def msgcli(env: dict, *args: str, cwd: Path | None = None, timeout: float = 180):
    return subprocess.run(
        [sys.executable, "-m", "msgcli", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _log_count(root: Path) -> int:
    """The logs below ``root/logs``: JSONL, gzip and SSE files, and the JSON documents that are
    logs (state files, Claude Code's subagent records), not a JSON schema beside them; and
    the logs kept in files that are no JSON text (OpenCode's database, OTLP protobuf bodies),
    read from the store as from a local folder."""
    return sum(
        1
        for p in (root / "logs").rglob("*")
        if p.name.endswith((".jsonl", ".gz", ".sse", ".pb"))
        or p.name == "opencode.db"
        or (p.name.endswith(".json") and not p.name.endswith(".schema.json"))
    )


def _lines(text: str) -> list[str]:
    return sorted(text.replace(PREFIX, "").splitlines())


def _same_validate(local, remote) -> None:
    assert remote.returncode == local.returncode
    assert _lines(remote.stdout) == _lines(local.stdout)
    assert "Traceback" not in remote.stderr


def _validate_pair(env, root, *extra: str):
    local = msgcli(env, "validate", "-j", "1", "logs", "big", cwd=root)
    remote = msgcli(env, "validate", f"{PREFIX}logs/", f"{PREFIX}big/", *extra, cwd=root)
    return local, remote


def _stats_pair(env, root, *extra: str):
    local = msgcli(env, "stats", "-f", "json", "logs", cwd=root)
    remote = msgcli(env, "stats", "-f", "json", f"{PREFIX}logs/", *extra, cwd=root)
    assert remote.returncode == local.returncode, remote.stderr
    mine = json.loads(remote.stdout.replace(PREFIX, ""))
    theirs = json.loads(local.stdout)
    for report in (mine, theirs):
        report["files"].sort(key=lambda f: f["path"])
    assert mine == theirs  # a Claude Code session's subagent totals too
    return theirs


#: a Claude Code session in its projects layout, with a subagent file beside it
PROJECT = "logs/real/claude-code/09-subagent/projects/-tmp-cc-work-09-subagent"
SESSION = f"{PROJECT}/e53477da-f35b-4b62-8591-b926e937a2f0.jsonl"
AGENT = "a9cc50b2b12bfa1ca"


def test_stats_of_a_session_in_object_storage_counts_its_subagents(s3):
    env, root = s3
    local = msgcli(env, "stats", "-f", "json", "logs", cwd=root)
    remote = msgcli(env, "stats", "-f", "json", f"{PREFIX}logs/", cwd=root)
    subagents = json.loads(local.stdout)["total"]["claude_code"]["subagents"]
    assert subagents["files"] >= 2  # the 2.1.197 and the 2.1.332 run with a subagent
    assert json.loads(remote.stdout)["total"]["claude_code"].get("subagents") == subagents
    # the session alone, named by its URL: its subagent found beside it in the bucket
    one = msgcli(env, "stats", "-f", "json", f"{PREFIX}{SESSION}", cwd=root)
    assert one.returncode == 0, one.stderr
    found = json.loads(one.stdout)["files"][0]["claude_code"]["subagents"]
    assert list(found["by_agent"]) == [AGENT] and found["input"] > 0


def test_show_of_a_session_in_object_storage_nests_its_subagent(s3):
    env, root = s3
    local = msgcli(env, "show", "--no-pager", "--width", "160", SESSION, cwd=root)
    remote = msgcli(env, "show", "--no-pager", "--width", "160", f"{PREFIX}{SESSION}", cwd=root)
    assert remote.returncode == local.returncode == 0, remote.stderr
    assert f"({AGENT})" in remote.stdout  # the subagent's title, under the Agent call
    assert remote.stdout.replace(PREFIX, "") == local.stdout


def test_a_projects_prefix_shows_and_counts_each_subagent_once(s3):
    env, root = s3
    for command in (["show", "--no-pager", "--width", "160"], ["stats", "-f", "json"]):
        local = msgcli(env, *command, PROJECT, cwd=root)
        remote = msgcli(env, *command, f"{PREFIX}{PROJECT}/", cwd=root)
        assert remote.returncode == local.returncode == 0, remote.stderr
        assert remote.stdout.replace(PREFIX, "") == local.stdout
        assert remote.stdout.count(f"agent-{AGENT}.jsonl") == 0  # not a file of its own
    shown = msgcli(env, "show", "--no-pager", f"{PREFIX}{PROJECT}/", cwd=root).stdout
    assert shown.count(f"({AGENT})") == 1


def _parquet_rows(path: str, env: dict) -> dict[str, list]:
    """Every table's rows, sorted, whatever the files they are spread over."""
    import pyarrow.dataset as ds

    filesystem = None
    if path.startswith("s3://"):
        import s3fs

        filesystem = s3fs.S3FileSystem(
            key="testing", secret="testing", endpoint_url=env["AWS_ENDPOINT_URL"]
        )
        path = path[len("s3://") :]
    out = {}
    for table in ("messages", "blocks", "tool_calls", "findings"):
        where = f"{path.rstrip('/')}/{table}"
        if filesystem is None and Path(f"{where}.parquet").exists():
            where = f"{where}.parquet"
        data = ds.dataset(where, format="parquet", filesystem=filesystem).to_table()
        rows = [tuple(str(v).replace(PREFIX, "") for v in row.values()) for row in data.to_pylist()]
        out[table] = sorted(rows)
    return out


def _export_pair(env, root, target: str, *extra: str):
    local_target = root / "local-export.parquet"
    if local_target.exists():
        shutil.rmtree(local_target)
    local = msgcli(env, "export", "logs", "--to", str(local_target), cwd=root)
    assert local.returncode == 0, local.stderr
    remote = msgcli(env, "export", f"{PREFIX}logs/", "--to", target, *extra, cwd=root)
    assert remote.returncode == 0, remote.stderr
    assert "Traceback" not in remote.stderr
    theirs = _parquet_rows(str(local_target), env)
    mine = _parquet_rows(target if target.startswith("s3://") else str(root / target), env)
    assert mine == theirs
    assert len(theirs["messages"]) > 20 and theirs["findings"]
    return remote


# -- without a scheduler: the prefix read from S3 in this process ------------------------


def test_validate_a_prefix_on_s3_equals_the_local_run(s3):
    env, root = s3
    local, remote = _validate_pair(env, root)
    _same_validate(local, remote)
    assert local.returncode == 1  # the invalid logs have errors
    assert f"{PREFIX}logs/invalid/" in remote.stdout  # findings name the URL given
    assert "notes.txt" not in remote.stdout  # the suffix rules of a directory


def test_stats_and_export_of_a_prefix_on_s3_equal_the_local_run(s3):
    env, root = s3
    report = _stats_pair(env, root)
    # a Claude Code subagent file and its meta file are counted under their session
    nested = sum(1 for p in (root / "logs").rglob("*") if "subagents" in p.parts and p.is_file())
    assert nested == 2 * report["total"]["claude_code"]["subagents"]["files"] > 0
    assert report["total"]["files"] == _log_count(root) - nested
    _export_pair(env, root, "s3-export.parquet")


# -- a LocalCluster of two worker processes -----------------------------------------------


def test_validate_stats_export_on_a_local_cluster_equal_the_local_run(s3):
    env, root = s3
    local, remote = _validate_pair(env, root, "--scheduler", "local:2")
    _same_validate(local, remote)
    _stats_pair(env, root, "--scheduler", "local:2")
    run = _export_pair(env, root, f"{PREFIX}tables-local/", "--scheduler", "local:2", "--findings")
    assert f"from {_log_count(root)} files" in run.stderr


def test_a_local_cluster_beside_another_says_nothing_of_ports(recwarn):
    """Two msgcli runs with local clusters at once: the second warned that port 8787 (the
    scheduler's HTTP port) was taken, on every run of the kind, while it was."""
    from msgcli.cluster import connect

    taken = socket.socket()
    try:
        taken.bind(("", 8787))
        taken.listen()
    except OSError:
        pass  # (taken already)
    try:
        with connect("local:1") as client:
            assert client.submit(sum, [1, 2]).result() == 3
    finally:
        taken.close()
    assert [str(w.message) for w in recwarn if "8787" in str(w.message)] == []


def test_what_a_local_clusters_workers_log_as_it_closes_is_not_shown(capfd):
    """A worker can log a traceback while the local cluster goes down (a heartbeat cut off
    mid-way: seen once in CI on the run above). Once the work is done nothing of the
    shutdown reaches the user; an error while the work runs still does."""
    import logging

    from distributed.diagnostics.plugin import WorkerPlugin

    from msgcli.cluster import connect

    class LoudOnClose(WorkerPlugin):
        def setup(self, worker):
            logging.getLogger("distributed.worker").error("a worker error while running")

        def teardown(self, worker):
            logging.getLogger("distributed.worker").error("Traceback: a worker error on close")

    with connect("local:1") as client:
        client.register_plugin(LoudOnClose(), name="loud")
        assert client.submit(sum, [1, 2]).result() == 3
        client.run(lambda: sys.stderr.flush())
    err = capfd.readouterr().err
    assert "a worker error while running" in err
    assert "on close" not in err
    assert logging.getLogger("distributed").level < logging.CRITICAL


# -- a `dask scheduler` and two `dask worker` processes -------------------------------------


class Cluster:
    def __init__(self, env: dict, workers: int):
        self.port = _free_port()
        self.address = f"tcp://127.0.0.1:{self.port}"
        dask = str(BIN / "dask")
        self.scheduler = subprocess.Popen(
            [dask, "scheduler", "--host", "127.0.0.1", "--port", str(self.port), "--no-dashboard"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.workers = [
            subprocess.Popen(
                [
                    dask,
                    "worker",
                    self.address,
                    "--host",
                    "127.0.0.1",
                    "--nthreads",
                    "1",
                    "--no-nanny",
                    "--no-dashboard",
                    "--name",
                    f"w{i}",
                ],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            for i in range(workers)
        ]
        from distributed import Client

        self.client = Client(self.address, timeout=60)
        self.client.wait_for_workers(workers, timeout=60)

    def close(self) -> None:
        self.client.close()
        for process in [*self.workers, self.scheduler]:
            if process.poll() is None:
                process.terminate()
        for process in [*self.workers, self.scheduler]:
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()


@pytest.fixture(scope="module")
def cluster(s3):
    env, _ = s3
    running = Cluster(env, 2)
    try:
        yield running
    finally:
        running.close()


def test_validate_stats_export_on_a_dask_scheduler_equal_the_local_run(s3, cluster):
    from distributed import get_task_stream

    env, root = s3
    with get_task_stream(cluster.client) as stream:
        local, remote = _validate_pair(env, root, "--scheduler", cluster.address)
        _same_validate(local, remote)
        _stats_pair(env, root, "--scheduler", cluster.address)
        _export_pair(env, root, "dask-export.parquet", "--scheduler", cluster.address)
    ran = [(t["key"], t["worker"]) for t in stream.data]
    # the scheduler's workers, asked now (the client's copy of them is refreshed every few
    # seconds, and once held none at this point, with both workers running)
    cluster.client.wait_for_workers(2, timeout=60)
    workers = set(
        cluster.client.run_on_scheduler(lambda dask_scheduler: list(dask_scheduler.workers))
    )
    for label in ("msgcli-validate", "msgcli-stats", "msgcli-export"):
        assert any(key.startswith(label) for key, _ in ran), label
    # the tasks ran on the two workers, both of them
    assert {worker for _, worker in ran} == workers
    # the large log went out in byte ranges: more validate tasks than files
    assert sum(key.startswith("msgcli-validate") for key, _ in ran) > _log_count(root) + 1


def test_the_scheduler_can_come_from_the_environment(s3, cluster):
    env, root = s3
    local = msgcli(env, "validate", "-j", "1", "logs", cwd=root)
    remote = msgcli(
        {**env, "MSGCLI_SCHEDULER": cluster.address}, "validate", f"{PREFIX}logs/", cwd=root
    )
    _same_validate(local, remote)


def test_a_worker_killed_mid_run_changes_nothing(s3, tmp_path):
    env, _root = s3
    logs = tmp_path / "many"
    logs.mkdir()
    source = (FIXTURES / "real" / "agentscope-py" / "transcript.jsonl").read_bytes()
    for i in range(12):
        (logs / f"log-{i:02d}.jsonl").write_bytes(source * 400)  # 3 MB each
    local = msgcli(env, "validate", "-j", "1", str(logs))
    running = Cluster(env, 2)
    try:
        victim = running.workers[0]
        victim_address = None
        run = subprocess.Popen(
            [sys.executable, "-m", "msgcli", "validate", str(logs), "--scheduler", running.address],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

        def processing(dask_scheduler) -> list[tuple[str, str]]:
            return [
                (str(ts.key), ts.processing_on.address)
                for ts in dask_scheduler.tasks.values()
                if ts.processing_on is not None and str(ts.key).startswith("msgcli-")
            ]

        def worker_names(dask_scheduler) -> dict[str, str]:
            return {address: str(ws.name) for address, ws in dask_scheduler.workers.items()}

        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and run.poll() is None:
            busy = running.client.run_on_scheduler(processing)
            names = running.client.run_on_scheduler(worker_names)
            on_victim = [key for key, where in busy if names.get(where) == "w0"]
            if on_victim:
                victim_address = next(where for _, where in busy if names.get(where) == "w0")
                victim.send_signal(signal.SIGKILL)
                break
            time.sleep(0.05)
        out, err = run.communicate(timeout=180)
    finally:
        running.close()
    assert victim_address is not None, "the run ended before a task reached the worker"
    assert victim.wait(5) == -signal.SIGKILL
    assert run.returncode == local.returncode, err
    assert sorted(out.splitlines()) == sorted(local.stdout.splitlines())
    assert "Traceback" not in err


# -- bad input: one line, exit 2, within seconds ---------------------------------------------


def _one_line_failure(run, started: float, *words: str) -> None:
    assert run.returncode == 2, run.stderr
    assert "Traceback" not in run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1, run.stderr
    for word in words:
        assert word in lines[0]
    assert time.monotonic() - started < 30


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("s3://no-such-bucket-here/logs/", ("no-such-bucket-here", "no such bucket")),
        (f"{PREFIX}nothing-here/", ("nothing-here", "no such bucket, prefix or file")),
        (f"{PREFIX}logs/real/README", ("README", "no such")),
    ],
)
@pytest.mark.parametrize("command", ["validate", "stats"])
def test_a_missing_bucket_or_prefix_is_one_line_and_exit_2(s3, url, words, command):
    env, root = s3
    started = time.monotonic()
    _one_line_failure(msgcli(env, command, url, cwd=root), started, *words)


def test_missing_credentials_are_one_line_and_exit_2(s3):
    env, root = s3
    bare = {k: v for k, v in env.items() if k not in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY")}
    started = time.monotonic()
    run = msgcli(bare, "validate", f"{PREFIX}logs/", cwd=root)
    _one_line_failure(run, started, "no credentials")


def test_an_unreachable_scheduler_is_one_line_and_exit_2(s3):
    env, root = s3
    address = f"tcp://127.0.0.1:{_free_port()}"
    for command in (["validate"], ["stats"], ["export", "--to", "out.parquet"]):
        started = time.monotonic()
        run = msgcli(env, *command, "logs", "--scheduler", address, cwd=root)
        _one_line_failure(run, started, "cannot reach the Dask scheduler", address)
    assert not (root / "out.parquet").exists()


def test_a_bad_scheduler_address_is_one_line_and_exit_2(s3):
    env, root = s3
    started = time.monotonic()
    run = msgcli(env, "validate", "logs", "--scheduler", "local:many", cwd=root)
    _one_line_failure(run, started, "local:N")


def test_a_missing_extra_names_the_install_command(s3, tmp_path):
    env, root = s3
    # a distributed that cannot be imported, as where the extra is not installed
    (tmp_path / "distributed").mkdir()
    (tmp_path / "distributed" / "__init__.py").write_text("raise ImportError('no')\n")
    (tmp_path / "s3fs").mkdir()
    (tmp_path / "s3fs" / "__init__.py").write_text("raise ImportError('no')\n")
    bare = {**env, "PYTHONPATH": str(tmp_path)}
    started = time.monotonic()
    run = msgcli(bare, "validate", "logs", "--scheduler", "local:2", cwd=root)
    _one_line_failure(run, started, "pip install 'msgcli[dask]'")
    started = time.monotonic()
    run = msgcli(bare, "validate", f"{PREFIX}logs/", cwd=root)
    _one_line_failure(run, started, "pip install 'msgcli[s3]'")


# -- secrets never reach the output ------------------------------------------------------------


def test_secrets_in_a_url_are_masked_in_every_report(s3, tmp_path):
    env, root = s3
    port = env["AWS_ENDPOINT_URL"].rsplit(":", 1)[1]
    url = (
        f"http://alice:hunter2@127.0.0.1:{port}/{BUCKET}/logs/invalid/agentscope-py-run.jsonl"
        "?X-Amz-Credential=AKIDSECRET&X-Amz-Signature=deadbeefsig&sig=azuresig&token=tok123"
    )
    reports = [f"{fmt}:{tmp_path / fmt}" for fmt in ("json", "github", "junit", "sarif")]
    outputs = [arg for spec in reports for arg in ("-o", spec)]
    run = msgcli(env, "validate", url, *outputs, cwd=root)
    assert run.returncode == 1, run.stderr
    texts = [run.stdout, run.stderr] + [(tmp_path / f).read_text() for f in ("json", "github")]
    texts += [(tmp_path / f).read_text() for f in ("junit", "sarif")]
    for text in texts:
        for secret in ("hunter2", "AKIDSECRET", "deadbeefsig", "azuresig", "tok123"):
            assert secret not in text
    assert (
        f"http://***@127.0.0.1:{port}/{BUCKET}/logs/invalid/agentscope-py-run.jsonl" in run.stdout
    )
    assert "X-Amz-Signature=***" in run.stdout
    # the same findings as the file on disk
    local = msgcli(env, "validate", "logs/invalid/agentscope-py-run.jsonl", cwd=root)
    assert len(run.stdout.splitlines()) == len(local.stdout.splitlines())


def test_mask():
    from msgcli.remote import mask

    assert mask("s3://bucket/logs/a.jsonl") == "s3://bucket/logs/a.jsonl"
    assert mask("logs/user:pw@x.jsonl") == "logs/user:pw@x.jsonl"  # a local name: as it is
    assert (
        mask("https://u:p@host/a.jsonl?a=1&sig=S&b=2") == "https://***@host/a.jsonl?a=1&sig=***&b=2"
    )
    assert mask("https://h/a?X-Amz-Signature=abc#x") == "https://h/a?X-Amz-Signature=***#x"


# -- one file at a time, for Spark or Ray ------------------------------------------------------


def test_the_one_file_functions_give_plain_results_equal_to_the_commands(s3):
    env, root = s3
    code = (
        "import json, pickle, sys; from msgcli.api import validate_one, stats_one, export_one;"
        f"u = '{PREFIX}logs/invalid/agentscope-py-run.jsonl';"
        "v = validate_one(u); s = stats_one(u); e = export_one(u);"
        "pickle.dumps((v, s, e)); json.dumps(v); json.dumps(s);"
        "print(json.dumps([[[f['line'], f['code']] for f in v['findings']], s['records'],"
        " len(e['messages']), v['failed']]))"
    )
    run = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 0, run.stderr
    findings, records, messages, failed = json.loads(run.stdout)
    local = msgcli(env, "validate", "-f", "json", "logs/invalid/agentscope-py-run.jsonl", cwd=root)
    report = json.loads(local.stdout)
    assert findings == [[f["line"], f["code"]] for f in report["findings"]]
    assert failed is True
    stats = msgcli(env, "stats", "-f", "json", "logs/invalid/agentscope-py-run.jsonl", cwd=root)
    assert records == json.loads(stats.stdout)["files"][0]["records"]
    assert messages > 0


def test_every_command_reads_urls(s3):
    env, root = s3
    name = "logs/real/loongflow/transcript.jsonl"
    for command in (["show", "--no-pager"], ["convert", "--to", "agentscope-py", "--zone", "UTC"]):
        local = msgcli(env, *command, name, cwd=root)
        remote = msgcli(env, *command, PREFIX + name, cwd=root)
        assert (remote.returncode, remote.stdout.replace(PREFIX, "")) == (
            local.returncode,
            local.stdout,
        )
    started = time.monotonic()
    run = msgcli(env, "show", "--no-pager", "s3://no-such-bucket-here/x.jsonl", cwd=root)
    _one_line_failure(run, started, "no such bucket")
