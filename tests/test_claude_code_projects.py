"""A Claude Code ``projects`` folder given whole: each subagent once.

A folder holds a session (``<sessionId>.jsonl``) and, beside it, its subagents
(``<sessionId>/subagents/agent-<id>.jsonl`` with ``agent-<id>.meta.json``). ``show`` nests a
subagent's transcript under the Agent call that started it; given the folder, it must not show
the subagent a second time as a file of its own, and ``stats`` must not count it twice (under
the session's ``claude_code.subagents`` and again as a file). A subagent file given without
its session is shown and counted as itself. ``validate`` checks every file once; ``export`` and
``query`` read every file once (their rows tell the subagent apart by ``agent_id``).

Everything runs on the real sessions of ``fixtures/real/claude-code`` (2.1.197 and 2.1.332).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import FIXTURES

REAL = FIXTURES / "real" / "claude-code"
#: (projects folder, session file, subagent file) of each real run that started a subagent
RUNS = [
    (
        folder,
        session,
        sub,
    )
    for folder in sorted(REAL.rglob("projects"))
    for session in sorted(folder.rglob("*.jsonl"))
    if "subagents" not in session.parts
    for sub in sorted((session.parent / session.stem / "subagents").glob("agent-*.jsonl"))
]


def _label(run: tuple) -> str:
    return str(run[0].relative_to(REAL).parent)


def _records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_bytes().split(b"\n") if line.strip()]


def _prompt(sub: Path) -> str:
    """The subagent's first prompt: text only its own transcript holds."""
    first = next(r for r in _records(sub) if r.get("type") == "user")
    text = first["message"]["content"]
    assert isinstance(text, str)
    return text.splitlines()[0][:40]


def _show(run_cli, *paths: Path, extra: tuple[str, ...] = ()) -> str:
    code, out = run_cli("show", "--no-pager", "--width", "200", *extra, *map(str, paths))
    assert code == 0, out
    return out


def test_the_fixtures_hold_runs_with_subagents():
    assert len(RUNS) >= 2  # 09-subagent (2.1.197) and g05-subagent (2.1.332)


@pytest.mark.parametrize("run", RUNS, ids=_label)
def test_show_of_a_projects_folder_nests_each_subagent_once(run_cli, run):
    folder, session, sub = run
    whole = _show(run_cli, folder)
    alone = _show(run_cli, session)  # (the Agent call's input may quote the prompt too)
    assert alone.count(_prompt(sub)) >= 1
    assert whole.count(_prompt(sub)) == alone.count(_prompt(sub))  # not again on its own
    agent = sub.stem[len("agent-") :]
    assert f"({agent})" in whole  # the title of the nested transcript
    assert sub.name not in whole and ".meta.json" not in whole  # no section of their own
    # the folder shows what its session shows, the subagent nested under its call
    assert whole == alone


@pytest.mark.parametrize("run", RUNS, ids=_label)
def test_show_of_a_session_and_its_subagent_named_both_shows_the_subagent_once(run_cli, run):
    _folder, session, sub = run
    out = _show(run_cli, sub, session)
    assert out.count(_prompt(sub)) == _show(run_cli, session).count(_prompt(sub))
    assert out.count(f"({sub.stem[len('agent-') :]})") == 1  # nested once, under its call


@pytest.mark.parametrize("run", RUNS, ids=_label)
def test_a_subagent_file_given_alone_is_shown_as_itself(run_cli, run):
    _folder, _session, sub = run
    out = _show(run_cli, sub)
    assert out.count(_prompt(sub)) == 1
    assert re.search(r"subagent \S+ \(", out) is None  # not nested under a title


@pytest.mark.parametrize("run", RUNS, ids=_label)
@pytest.mark.parametrize("kind", ["html", "markdown"])
def test_html_and_markdown_of_a_projects_folder_hold_each_subagent_once(
    run_cli, run, kind, tmp_path
):
    folder, session, sub = run
    page = tmp_path / f"folder.{kind}"
    code, _ = run_cli("show", str(folder), f"--export-{kind}", str(page))
    assert code == 0
    text = page.read_text()
    prompt = _prompt(sub)
    if kind == "html":
        import html

        prompt = html.escape(prompt, quote=False)
    alone = tmp_path / f"session.{kind}"
    code, _ = run_cli("show", str(session), f"--export-{kind}", str(alone))
    assert code == 0
    assert alone.read_text().count(prompt) >= 1
    assert text.count(prompt) == alone.read_text().count(prompt)
    assert text.count(sub.name) == alone.read_text().count(sub.name)  # the nested one only


def _stats(run_cli, *paths: Path) -> dict:
    code, out = run_cli("stats", "--format", "json", *map(str, paths))
    assert code == 0, out
    return json.loads(out)


@pytest.mark.parametrize("run", RUNS, ids=_label)
def test_stats_of_a_projects_folder_counts_each_subagent_once(run_cli, run):
    folder, session, sub = run
    whole = _stats(run_cli, folder)
    alone = _stats(run_cli, session)
    # the session only: its subagent counted under it, not again as a file
    assert [Path(f["path"]).name for f in whole["files"]] == [session.name]
    assert whole["total"]["tokens"] == alone["total"]["tokens"]
    subagents = whole["total"]["claude_code"]["subagents"]
    recs = _records(sub)
    usage = {r["message"]["id"]: r["message"]["usage"] for r in recs if r["type"] == "assistant"}
    assert subagents["files"] == 1
    assert subagents["records"] == len(recs)
    assert subagents["input"] == sum(u["input_tokens"] for u in usage.values())
    assert subagents["output"] == sum(u["output_tokens"] for u in usage.values())
    # what the subagent file counts given alone is what its session counts of it
    own = _stats(run_cli, sub)["files"][0]
    assert own["claude_code"]["thread"] == "subagent"
    assert subagents["messages"] == own["messages"]["total"]
    assert subagents["tool_calls"] == own["tools"]["calls"]
    assert (subagents["input"], subagents["output"]) == (
        own["tokens"]["input"],
        own["tokens"]["output"],
    )


@pytest.mark.parametrize("run", RUNS, ids=_label)
def test_validate_of_a_projects_folder_checks_every_file_once(run_cli, run):
    folder, _session, sub = run
    code, out = run_cli("validate", "--no-config", "--format", "json", str(folder))
    assert code == 0, out
    report = json.loads(out)
    paths = [Path(f["path"]) for f in report["files"]]
    on_disk = sorted(p for p in folder.rglob("*") if p.is_file())
    assert sorted(paths) == on_disk  # session, subagent and its meta file: each once
    assert paths.count(sub) == 1


@pytest.mark.parametrize("run", RUNS, ids=_label)
def test_query_of_a_projects_folder_gives_each_subagent_response_once(run_cli, run):
    folder, _session, sub = run
    code, out = run_cli("query", "--role", "assistant", str(folder))
    assert code == 0
    written = [json.loads(line) for line in out.splitlines() if line]
    agent = sub.stem[len("agent-") :]
    theirs = [r["message"]["id"] for r in written if r.get("agentId") == agent]
    wanted = {r["message"]["id"] for r in _records(sub) if r["type"] == "assistant"}
    assert sorted(theirs) == sorted(wanted)  # one record per response, none twice
