"""The README shows real output: these tests fail when the tool and the README drift apart."""

from __future__ import annotations

import json
import re

import pytest
from conftest import ROOT


def _console_block(readme: str, command: str) -> list[str]:
    """The output lines under ``$ command`` in the README's console examples."""
    block = readme.split(f"$ {command}\n", 1)[1].split("```", 1)[0]
    return block.rstrip("\n").splitlines()


@pytest.mark.project_config
def test_validate_example_is_what_msgcli_prints(run_cli, monkeypatch):
    """The README's first example, run as a newcomer runs it: from the repository's root,
    where its own configuration is found (and --no-config leaves it out)."""
    monkeypatch.chdir(ROOT)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    command = readme.split("```console\n$ msgcli validate ", 1)[1].split("\n", 1)[0]
    command = "msgcli validate " + command
    shown = _console_block(readme, command)
    code, out = run_cli(*command.split()[1:])
    assert code == 1
    assert shown == out.rstrip("\n").splitlines()


def test_every_rule_code_in_the_readme_exists():
    from msgcli.rules import RULES

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    mentioned = set(re.findall(r"`([PDSTICMBEX]\d{3})`", readme))
    assert mentioned <= set(RULES)


def test_replay_example_is_what_msgcli_prints(run_cli, monkeypatch):
    monkeypatch.chdir(ROOT)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    command = "msgcli replay fixtures/events/agentscope-py/invalid/stream-cut-mid-reply.jsonl"
    shown = _console_block(readme, command + " > rebuilt.jsonl")
    code, out, err = run_cli(*command.split()[1:], stderr=True)
    assert code == 1
    assert shown == err.rstrip("\n").splitlines()
    assert out.count("\n") == 1  # the message, kept


def test_show_picture_is_what_msgcli_draws(run_cli, monkeypatch, tmp_path):
    monkeypatch.chdir(ROOT)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    command = (
        "msgcli show --export-svg docs/show.svg --head 4 "
        "fixtures/real/agentscope-py/transcript.jsonl"
    )
    assert command in readme.replace("`;\n", "`; ").replace("\n", " ")
    fresh = tmp_path / "show.svg"
    args = command.split()[1:]
    args[args.index("docs/show.svg")] = str(fresh)
    assert run_cli(*args)[0] == 0
    assert fresh.read_text(encoding="utf-8") == (ROOT / "docs" / "show.svg").read_text(
        encoding="utf-8"
    )


def test_stats_example_is_what_msgcli_prints(run_cli, monkeypatch):
    monkeypatch.chdir(ROOT)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    command = "msgcli stats fixtures/real/agentscope-py/transcript.jsonl"
    shown = _console_block(readme, command)
    code, out = run_cli(*command.split()[1:])
    assert code == 0
    assert shown == out.rstrip("\n").splitlines()


def _example(readme: str, tag: str) -> list:
    """The JSON documents of the README block marked ``<!-- example: tag -->``."""
    block = readme.split(f"<!-- example: {tag} -->\n```json\n", 1)[1].split("\n```", 1)[0]
    decoder, documents, at = json.JSONDecoder(), [], 0
    while at < len(block):
        document, at = decoder.raw_decode(block, at)
        documents.append(document)
        while at < len(block) and block[at].isspace():
            at += 1
    return documents


def test_one_conversation_in_three_dialects_and_a_request(run_cli, monkeypatch):
    monkeypatch.chdir(ROOT)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    log = "fixtures/readme/weather.jsonl"
    original = [json.loads(line) for line in (ROOT / log).read_text(encoding="utf-8").splitlines()]
    assert _example(readme, "agentscope-py") == original
    for dialect in ("agentscope-java", "loongflow"):
        command = f"msgcli convert {log} --to {dialect} --zone UTC --no-carry"
        assert f"`{command}`" in readme.replace("\n", " ")
        code, out = run_cli(*command.split()[1:])
        assert code == 0
        shown = _example(readme, dialect)
        assert shown == [json.loads(line) for line in out.splitlines()]
        assert [list(d) for d in shown] == [list(json.loads(line)) for line in out.splitlines()]
    command = f"msgcli format {log} --provider openai"
    assert f"`{command}`" in readme.replace("\n", " ")
    code, out = run_cli(*command.split()[1:])
    assert code == 0
    assert _example(readme, "openai") == [json.loads(out)]
    # the LoongFlow log is formatted by the same rules, and gives the same request but for
    # the tool call's id, which is LoongFlow's UUID
    _, converted = run_cli("convert", log, "--to", "loongflow", "--zone", "UTC")
    code, out = run_cli("format", "-", "--provider", "openai", input=converted)
    uuid = json.loads(converted.splitlines()[1])["content"][0]["call_id"]
    same = out.replace(uuid, "call_7268933a41f141eeb6bf7a90")
    assert uuid not in json.dumps(_example(readme, "openai"))
    assert [json.loads(same)] == _example(readme, "openai")
    # the Java log by AgentScope Java's rules, which send plain strings
    _, converted = run_cli("convert", log, "--to", "agentscope-java", "--zone", "UTC")
    code, out = run_cli("format", "-", "--provider", "openai", input=converted)
    assert json.loads(out)["messages"][0]["content"] == "Weather in Zürich?"
    assert '"content": "Weather in Zürich?"' in readme


def test_rules_example_is_what_msgcli_prints(run_cli):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    shown = _console_block(readme, "msgcli rules T005")
    code, out = run_cli("rules", "T005")
    assert code == 0
    assert shown == out.rstrip("\n").splitlines()


def test_format_summary_example_is_what_msgcli_prints(run_cli, monkeypatch):
    monkeypatch.chdir(ROOT)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    command = "msgcli format fixtures/readme/weather.jsonl"
    shown = _console_block(readme, command + " > request.json")
    code, _, err = run_cli(*command.split()[1:], stderr=True)
    assert code == 0
    assert shown == err.rstrip("\n").splitlines()


def test_overwrite_example_is_what_msgcli_prints(run_cli, monkeypatch, tmp_path):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    command = "msgcli convert run.jsonl --to loongflow -o run.jsonl"
    shown = _console_block(readme, command)
    monkeypatch.chdir(tmp_path)
    log = (ROOT / "fixtures" / "readme" / "weather.jsonl").read_bytes()
    (tmp_path / "run.jsonl").write_bytes(log)
    code, _, err = run_cli(*command.split()[1:], stderr=True)
    assert code == 2
    assert shown == err.rstrip("\n").splitlines()
    assert (tmp_path / "run.jsonl").read_bytes() == log
