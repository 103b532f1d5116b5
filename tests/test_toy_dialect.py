"""A fourth dialect, added by a package of its own: every command picks it up with no edit
to msgcli.

The package is made in a temporary directory (``toy_dialect``: a ``Dialect`` subclass, its
JSON Schema, and a distribution's metadata declaring it in the ``msgcli.dialects``
entry-point group, as ``pip install`` of such a package would leave it). Nothing else is
done to register it: msgcli finds it through the entry point.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from msgcli import api
from msgcli.cli import app
from msgcli.config import ConfigError, load
from msgcli.dialects import DIALECTS, classify, get_dialect, load_installed, unregister

PACKAGE = '''
"""A toy chat log: {"id": ..., "speaker": "user" | "bot", "says": "...", "at": ISO time}."""

from datetime import datetime
from pathlib import Path

from msgcli.converters.base import Writer
from msgcli.dialects.base import MESSAGE, Dialect
from msgcli.model import Message, TextBlock

KEYS = ("id", "speaker", "says", "at")


class ToyDialect(Dialect):
    name = "toy"
    title = "Toy chat"
    schema_root = Path(__file__).parent / "schemas"
    distinct = True
    writer = "toy_dialect:WRITER"
    formatters = {"openai": "toy_dialect:OPENAI"}

    def classify(self, obj):
        return MESSAGE if isinstance(obj, dict) and "says" in obj and "speaker" in obj else None

    def read(self, obj):
        msg = Message(dialect=self.name, id=obj.get("id"), timestamp=obj.get("at"))
        speaker = obj.get("speaker")
        msg.role = "assistant" if speaker == "bot" else speaker
        msg.content = [TextBlock(type="text", path=("says",), text=obj.get("says"))]
        msg.extra = {k: v for k, v in obj.items() if k not in KEYS}
        return msg

    def write(self, msg):
        text = " ".join(b.text for b in msg.content if isinstance(b, TextBlock) and b.text)
        speaker = "bot" if msg.role == "assistant" else msg.role
        return {"id": msg.id, "speaker": speaker, "says": text, "at": msg.timestamp}

    def parse_time(self, value):
        try:
            return datetime.fromisoformat(value)
        except (TypeError, ValueError):
            return None


DIALECT = ToyDialect()


class ToyWriter(Writer):
    """convert's writer: a record per message of the turn (and, as a source, the defaults)."""

    def __call__(self, turn, out):
        return [DIALECT.write(m) for m in turn.messages]


WRITER = ToyWriter()


class ToyOpenAI:
    """format's formatter for OpenAI: the messages as they are, their text as content."""

    def name(self, multi_agent):
        return "Toy OpenAI formatter"

    def prepare(self, messages, dialect, ctx):
        return messages

    def build(self, messages, multi_agent, ctx):
        sent = [{"role": m.role, "content": DIALECT.write(m)["says"]} for m in messages]
        return {"messages": sent}


OPENAI = ToyOpenAI()
'''

SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "urn:msgcli:schema:toy:message",
    "title": "Toy chat message",
    "type": "object",
    "required": ["speaker", "says"],
    "properties": {
        "id": {"type": "string"},
        "speaker": {"enum": ["user", "bot"]},
        "says": {"type": "string"},
        "at": {"type": "string"},
    },
}

LOG = [
    {
        "id": "m1",
        "speaker": "user",
        "says": "What is the capital of France?",
        "at": "2026-01-01T10:00:00",
    },
    {"id": "m2", "speaker": "bot", "says": "Paris.", "at": "2026-01-01T10:00:02"},
    {"id": "m3", "speaker": "robot", "says": "Anything else?", "at": "2026-01-01T10:00:03"},
    {"id": "m2", "speaker": "user", "says": "No, thanks.", "at": "2026-01-01T09:00:00"},
]


def _make_package(root: Path) -> None:
    package = root / "toy_dialect"
    (package / "schemas" / "toy").mkdir(parents=True)
    (package / "__init__.py").write_text(textwrap.dedent(PACKAGE))
    (package / "schemas" / "toy" / "message.schema.json").write_text(json.dumps(SCHEMA))
    info = root / "toy_dialect-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-dialect\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[msgcli.dialects]\ntoy = toy_dialect:DIALECT\n")


@pytest.fixture
def toy(tmp_path, monkeypatch):
    """The toy package installed on ``sys.path``, and a log of it; taken away afterwards."""
    site = tmp_path / "site"
    site.mkdir()
    _make_package(site)
    log = tmp_path / "chat.jsonl"
    log.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in LOG))
    monkeypatch.syspath_prepend(str(site))
    assert "toy" not in DIALECTS
    load_installed(again=True)  # what a new process does when it first needs it
    yield site, log
    unregister("toy")
    sys.modules.pop("toy_dialect", None)


def _cli(*args: str):
    return CliRunner().invoke(app, [*args])


def test_the_entry_point_registers_it(toy):
    assert DIALECTS["toy"].title == "Toy chat"
    assert get_dialect("toy") is DIALECTS["toy"]
    found = classify(LOG[0])
    assert found is not None and found[0].name == "toy"


def test_validate_checks_its_records(toy):
    _, log = toy
    result = _cli("validate", "--no-config", "--format", "json", str(log))
    assert result.exit_code == 1, result.output
    report = orjson.loads(result.stdout)
    (file,) = report["files"]
    assert file["dialect"] == "toy"
    found = {(f["line"], f["code"]) for f in report["findings"]}
    # its schema: "robot" is no speaker; the shared rules across records: a repeated id,
    # and a message older than the one before it
    assert (3, "S001") in found
    assert (4, "I001") in found
    assert (4, "C002") in found
    assert {line for line, _ in found} == {3, 4}


def test_the_library_validates_it(toy):
    _, log = toy
    report = api.validate([str(log)])
    (file,) = report.files
    assert file.summary.dialect == "toy"
    assert {f.code for f in file.findings} >= {"S001", "I001", "C002"}


def test_show_and_stats_read_it(toy):
    _, log = toy
    shown = _cli("show", "--no-pager", str(log))
    assert shown.exit_code == 0, shown.output
    assert "What is the capital of France?" in shown.stdout and "Paris." in shown.stdout
    stats = _cli("stats", "--format", "json", str(log))
    assert stats.exit_code == 0, stats.output
    assert '"toy"' in stats.stdout
    messages = orjson.loads(stats.stdout)["files"][0]["messages"]
    assert messages["total"] == 4
    assert messages["by_role"] == {"user": 2, "assistant": 1, "robot": 1}


def test_schema_lists_and_prints_its_schema(toy):
    listed = _cli("schema", "list")
    assert listed.exit_code == 0, listed.output
    assert "toy/message\tToy chat message" in listed.stdout.splitlines()
    shown = _cli("schema", "show", "toy")
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.stdout)["$id"] == "urn:msgcli:schema:toy:message"


def test_configuration_takes_its_name(toy, tmp_path):
    config = tmp_path / "msgcli.toml"
    config.write_text('dialect = "toy"\n')
    assert load(str(config)).dialect == "toy"
    config.write_text('dialect = "toys"\n')
    with pytest.raises(ConfigError, match=r"must be one of .*toy"):
        load(str(config))


def test_a_new_process_finds_it_through_the_entry_point(toy):
    site, log = toy
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), *sys.path])}
    env.pop("MSGCLI_TRACEBACK", None)
    done = subprocess.run(
        [sys.executable, "-m", "msgcli", "validate", "--no-config", "--format", "json", str(log)],
        env=env,
        capture_output=True,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    (file,) = orjson.loads(done.stdout)["files"]
    assert file["dialect"] == "toy"


def test_the_cli_takes_it_as_a_dialect_choice(toy):
    _, log = toy
    result = _cli("validate", "--no-config", "--dialect", "toy", "--format", "json", str(log))
    assert result.exit_code == 1, result.output
    assert orjson.loads(result.stdout)["files"][0]["dialect"] == "toy"


def test_convert_reads_it(toy):
    _, log = toy
    result = _cli("convert", "--no-config", "--to", "agentscope-py", str(log))
    records = [orjson.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    texts = [block["text"] for r in records for block in r["content"]]
    assert texts == [r["says"] for r in LOG]
    assert [r["role"] for r in records[:2]] == ["user", "assistant"]


def test_convert_writes_it(toy, tmp_path):
    _, log = toy
    python = tmp_path / "python.jsonl"
    first = _cli("convert", "--no-config", "--to", "agentscope-py", "-o", str(python), str(log))
    assert first.exit_code in (0, 1), first.output
    back = _cli("convert", "--no-config", "--to", "toy", str(python))
    records = [orjson.loads(line) for line in back.stdout.splitlines() if line.startswith("{")]
    assert [r["says"] for r in records][:2] == ["What is the capital of France?", "Paris."]


def test_format_builds_its_request(toy):
    _, log = toy
    result = _cli("format", "--provider", "openai", str(log))
    assert result.exit_code == 0, result.output
    messages = orjson.loads(result.stdout)["messages"]
    assert messages[0] == {"role": "user", "content": "What is the capital of France?"}
