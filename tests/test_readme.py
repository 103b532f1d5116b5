"""The README shows real output: these tests fail when the tool and the README drift apart."""

from __future__ import annotations

import re

from conftest import ROOT


def _console_block(readme: str, command: str) -> list[str]:
    """The output lines under ``$ command`` in the README's console examples."""
    block = readme.split(f"$ {command}\n", 1)[1].split("```", 1)[0]
    return block.rstrip("\n").splitlines()


def test_validate_example_is_what_msgcli_prints(run_cli, monkeypatch):
    monkeypatch.chdir(ROOT)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    command = "msgcli validate fixtures/invalid/mixed-problems/agentscope-py-run.jsonl"
    shown = _console_block(readme, command)
    code, out = run_cli(*command.split()[1:])
    assert code == 1
    assert shown == out.rstrip("\n").splitlines()


def test_every_rule_code_in_the_readme_exists():
    from msgcli.rules import RULES

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    mentioned = set(re.findall(r"`([PDSTICMBE]\d{3})`", readme))
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
