"""``--redact`` wherever content leaves msgcli: ``export`` (every table format), ``query``,
``sql``, ``view`` and ``diff``, as on ``show`` and ``convert``.

No real log holds a secret: secrets of every kind ``msgcli.redact`` knows are written into
copies of real logs (a Claude Code session's prompt and tool result, an AgentScope Python
reply's tool call id, which ``validate`` then quotes in a finding), as a user's keys would
be. Each command runs on them twice: without ``--redact`` the secrets are in what it writes
(so each test can fail), with it none is, and the words around them stay.
"""

from __future__ import annotations

import csv
import json
import sqlite3
from pathlib import Path

import pytest
from conftest import FIXTURES

SECRETS = {
    "anthropic": "sk-ant-api03-" + "Qx7" * 30,
    "openai": "sk-proj-" + "Z9k" * 15,
    "github": "ghp_" + "a1B2" * 9,
    "aws-access-key-id": "AKIAIOSFODNN7EXAMPLE",
    "google-api-key": "AIzaSyA" + "b" * 32,
    "slack": "xoxb-123456789012-abcdefghijkl",
}
PASSWORD = "hunter2hunter2"
TEXT = "\n".join(f"{k} is {v} here" for k, v in SECRETS.items()) + (
    f"\nDB_PASSWORD={PASSWORD} and\ncurl -H 'Authorization: Bearer abcdefghijklmnop1234'"
)
#: the secret a finding quotes: a tool call's id
CALL_ID = "ghp_" + "Zz90" * 9


def leaked(text: str) -> list[str]:
    """The secrets found in ``text``."""
    found = [name for name, secret in SECRETS.items() if secret in text]
    found += ["password"] if PASSWORD in text else []
    found += ["bearer"] if "abcdefghijklmnop1234" in text else []
    return found + (["call id"] if CALL_ID in text else [])


@pytest.fixture
def logs(tmp_path: Path) -> tuple[Path, Path]:
    """A real Claude Code session with secrets in a prompt and a tool result, and the real
    AgentScope Python transcript with a secret as a tool call's id (and in its text)."""
    session = tmp_path / "session.jsonl"
    records = [
        json.loads(line)
        for line in (FIXTURES / "real/claude-code/02-bash-ls/session.jsonl")
        .read_text()
        .splitlines()
    ]
    planted = 0
    for record in records:
        content = record.get("message", {}).get("content")
        if record.get("type") == "user" and isinstance(content, list):
            content[0]["content"] = TEXT
            record["toolUseResult"]["stdout"] = TEXT
            planted += 1
        elif record.get("type") == "user" and isinstance(content, str):
            record["message"]["content"] = f"{content}\nmy key is {SECRETS['anthropic']}"
            planted += 1
    assert planted >= 2
    session.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    transcript = tmp_path / "transcript.jsonl"
    records = [
        json.loads(line)
        for line in (FIXTURES / "real/agentscope-py/transcript.jsonl").read_text().splitlines()
    ]
    reply = records[2]
    call = next(b for b in reply["content"] if b["type"] == "tool_call")
    call["id"] = CALL_ID  # its result no longer answers it: validate quotes both ids
    reply["content"][2]["text"] = TEXT
    transcript.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return session, transcript


def both(run_cli, *args: str) -> tuple[str, str]:
    """The output of a command without and with ``--redact``."""
    code, plain = run_cli(*args)
    assert code in (0, 1), plain
    code, masked = run_cli(*args, "--redact")
    assert code in (0, 1), masked
    return plain, masked


def assert_masked(plain: str, masked: str) -> None:
    assert leaked(plain), "the secrets are not in the output without --redact"
    assert leaked(masked) == []
    assert "github is [REDACTED:github] here" in masked
    assert "DB_PASSWORD=[REDACTED:assignment]" in masked


@pytest.mark.parametrize(
    "form", [[], ["--neutral"], ["--show"]], ids=["records", "neutral", "show"]
)
def test_query(run_cli, logs, form):
    session, transcript = logs
    plain, masked = both(run_cli, "query", str(session), str(transcript), "--grep", "here", *form)
    assert_masked(plain, masked)
    assert CALL_ID in plain


def _table_text(target: Path, suffix: str) -> str:
    """Every cell of every table, as text."""
    cells: list[str] = []
    tables = ("messages", "blocks", "tool_calls", "findings")
    if suffix == ".csv":
        for table in tables:
            with (target / f"{table}.csv").open(encoding="utf-8") as fh:
                cells += [cell for row in csv.reader(fh) for cell in row]
    elif suffix == ".sqlite":
        db = sqlite3.connect(target)
        for table in tables:
            cells += [str(v) for row in db.execute(f"SELECT * FROM {table}") for v in row]
        db.close()
    else:
        import duckdb

        db = duckdb.connect(str(target)) if suffix == ".duckdb" else duckdb.connect()
        for table in tables:
            where = table if suffix == ".duckdb" else f"'{target / (table + '.parquet')}'"
            cells += [
                str(v) for row in db.execute(f"SELECT * FROM {where}").fetchall() for v in row
            ]
        db.close()
    return "\n".join(cells)


@pytest.mark.parametrize("suffix", [".csv", ".sqlite", ".parquet", ".duckdb"])
def test_export_in_every_table_format(run_cli, logs, tmp_path, suffix):
    session, transcript = logs
    texts = []
    for redact in ((), ("--redact",)):
        target = tmp_path / f"tables{len(redact)}{suffix}"
        code, _ = run_cli("export", str(session), str(transcript), "--to", str(target), *redact)
        assert code == 0
        texts.append(_table_text(target, suffix))
    plain, masked = texts
    assert_masked(plain, masked)
    # the findings table quotes the call's id: masked there too
    assert "tool call " + json.dumps(CALL_ID) in plain
    assert '"[REDACTED:github]"' in masked


def test_sql(run_cli, logs):
    session, transcript = logs
    query = "SELECT text FROM blocks UNION ALL SELECT message FROM findings"
    plain, masked = both(
        run_cli, "sql", query, str(session), str(transcript), "--format", "json", "--findings"
    )
    assert_masked(plain.replace("\\n", "\n"), masked.replace("\\n", "\n"))
    assert CALL_ID in plain


def test_view_pages_and_their_findings(run_cli, logs, tmp_path):
    session, transcript = logs
    pages = []
    for redact in ((), ("--redact",)):
        site = tmp_path / f"site{len(redact)}"
        code, _ = run_cli(
            "view", str(session), str(transcript), "-o", str(site), "--findings", *redact
        )
        assert code in (0, 1)
        pages.append("\n".join(p.read_text(encoding="utf-8") for p in sorted(site.rglob("*.html"))))
    plain, masked = pages
    assert_masked(plain, masked)
    assert CALL_ID in plain  # quoted by a finding beside its message


@pytest.mark.parametrize("fmt", ["text", "json", "github"])
def test_diff(run_cli, logs, fmt):
    """The log with secrets against the real one it was made from: the changed texts."""
    _, transcript = logs
    original = FIXTURES / "real/agentscope-py/transcript.jsonl"
    args = ("diff", str(transcript), str(original), "--format", fmt, "--compare", "ids")
    plain, masked = both(run_cli, *args, "--max-chars", "0")
    if fmt == "json":
        plain, masked = plain.replace("\\n", "\n"), masked.replace("\\n", "\n")
    if fmt == "github":
        assert leaked(plain) and leaked(masked) == []
        return
    assert_masked(plain, masked)


@pytest.fixture
def database(tmp_path: Path) -> Path:
    """A copy of a real OpenCode database (with its write-ahead log) whose text parts say the
    secrets, as a user's keys pasted into a prompt would be kept."""
    import shutil

    folder = tmp_path / "opencode"
    folder.mkdir()
    source = FIXTURES / "real/opencode/02-bash/data/opencode/opencode.db"
    for suffix in ("", "-wal", "-shm"):
        if Path(f"{source}{suffix}").is_file():
            shutil.copyfile(f"{source}{suffix}", folder / f"opencode.db{suffix}")
    db = sqlite3.connect(folder / "opencode.db")
    with db:
        changed = db.execute(
            "UPDATE part SET data = json_set(data, '$.text', ?) "
            "WHERE json_extract(data, '$.type') = 'text'",
            (TEXT,),
        ).rowcount
    db.close()
    assert changed >= 2
    return folder / "opencode.db"


def test_an_opencode_database_through_query_export_and_sql(run_cli, database, tmp_path):
    plain, masked = both(run_cli, "query", str(database), "--grep", "here")
    assert leaked(plain) and not leaked(masked)
    assert "here" in masked
    plain, masked = both(run_cli, "sql", "SELECT text FROM blocks", str(database))
    assert leaked(plain) and not leaked(masked)
    texts = []
    for redact in ((), ("--redact",)):
        target = tmp_path / f"tables{len(redact)}.sqlite"
        code, _ = run_cli("export", str(database), "--to", str(target), *redact)
        assert code == 0
        texts.append(_table_text(target, ".sqlite"))
    plain, masked = texts
    assert_masked(plain, masked)
