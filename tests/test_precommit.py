"""The pre-commit hook (``.pre-commit-hooks.yaml``), tested the way pre-commit runs it.

pre-commit itself checks the manifest; the hook's ``files``/``types`` are applied
to example names as pre-commit applies them; then the hook's exact ``entry`` and
``args`` are run, with the matching files as arguments, from the root of a
project, on folders of passing and failing logs.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import FIXTURES, ROOT, log_files, read_expect, sidecar
from identify.identify import tags_from_filename

from msgcli.rules import RULES

MANIFEST = ROOT / ".pre-commit-hooks.yaml"
HOOKS = {hook["id"]: hook for hook in yaml.safe_load(MANIFEST.read_text(encoding="utf-8"))}
HOOK = HOOKS["msgcli-validate"]
BIN = Path(sys.executable).parent


def test_pre_commit_accepts_the_manifest():
    done = subprocess.run(
        [sys.executable, "-m", "pre_commit", "validate-manifest", str(MANIFEST)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert list(HOOKS) == ["msgcli-validate"]


def selected(name: str) -> bool:
    """Whether pre-commit hands ``name`` to the hook: ``files`` and not ``exclude`` searched
    in the path, and every tag of ``types``/``types_or`` among the file's tags."""
    tags = tags_from_filename(name) | {"file"}
    if not re.search(HOOK.get("files", ""), name):
        return False
    if re.search(HOOK.get("exclude", "^$"), name):
        return False
    if not set(HOOK.get("types", ["file"])) <= tags:
        return False
    types_or = HOOK.get("types_or", [])
    return not types_or or bool(set(types_or) & tags)


@pytest.mark.parametrize(
    "name",
    [
        "transcript.jsonl",
        "logs/run-1.jsonl",
        "logs/archive/run-2.jsonl.gz",
        "events/stream.sse",
        "a b/agent log.ndjson",
        "fixtures/real/agentscope-py/events.sse",
    ],
)
def test_the_hook_takes_logs(name):
    assert selected(name)


@pytest.mark.parametrize(
    "name",
    [
        "package.json",
        "tsconfig.json",
        "README.md",
        "pyproject.toml",
        "notes.jsonl.txt",
        "data.jsonl.bak",
        "run.jsonl.zip",
        "logs/sse.py",
    ],
)
def test_the_hook_leaves_other_files(name):
    assert not selected(name)


def run_hook(files: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """The hook's entry and args, then the file names, as pre-commit runs it."""
    command = shlex.split(HOOK["entry"]) + list(HOOK.get("args", [])) + files
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", NO_COLOR="1")
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)


def staged(root: Path) -> list[str]:
    """Every file under ``root`` the hook would be given, relative, as pre-commit names them."""
    names = [p.relative_to(root).as_posix() for p in sorted(root.rglob("*")) if p.is_file()]
    return [n for n in names if selected(n)]


def copy_tree(source: Path, target: Path) -> None:
    shutil.copytree(source, target, dirs_exist_ok=True)


def test_the_hook_passes_a_repository_of_good_logs(tmp_path):
    copy_tree(FIXTURES / "real", tmp_path / "transcripts" / "real")
    copy_tree(FIXTURES / "valid", tmp_path / "transcripts" / "valid")
    (tmp_path / "package.json").write_text("{}", encoding="utf-8")
    files = staged(tmp_path)
    assert len(files) >= 25 and "package.json" not in files
    done = run_hook(files, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"Checked {len(files)} files" in done.stdout


def test_the_hook_fails_on_broken_logs_and_says_where(tmp_path):
    copy_tree(FIXTURES / "invalid" / "agentscope-java", tmp_path / "logs")
    copy_tree(FIXTURES / "real" / "loongflow", tmp_path / "logs")
    files = staged(tmp_path)
    done = run_hook(files, tmp_path)
    assert done.returncode == 1
    for name in files:
        log = tmp_path / name
        if not sidecar(log).is_file():
            continue  # the clean transcript
        for line, code in read_expect(sidecar(log)):
            assert f"{name}:{line}: {RULES[code].severity} {code} " in done.stdout
    assert "Traceback" not in done.stderr


def test_the_hook_keeps_negative_fixtures_under_test_through_the_configuration(tmp_path):
    copy_tree(FIXTURES / "invalid", tmp_path / "tests" / "broken")
    copy_tree(FIXTURES / "valid" / "loongflow", tmp_path / "tests" / "golden")
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "agent"\n\n[tool.msgcli]\n'
        '[[tool.msgcli.overrides]]\npaths = ["tests/broken"]\nexpect = "invalid"\n',
        encoding="utf-8",
    )
    files = staged(tmp_path)
    done = run_hook(files, tmp_path)
    assert done.returncode == 0, done.stdout
    broken = [f for f in files if f.startswith("tests/broken/")]
    assert f"{len(broken)} negative fixtures, {len(broken)} as expected" in done.stdout
    # a sidecar that no longer holds fails the commit
    target = tmp_path / "tests" / "broken" / "agentscope-py" / "tool-pairing.expect"
    target.write_text("# expect: T\n", encoding="utf-8")
    done = run_hook(files, tmp_path)
    assert done.returncode == 1
    assert "tests/broken/agentscope-py/tool-pairing.jsonl:6: error F003 I002 " in done.stdout


def test_the_hook_passes_on_this_repository():
    """``pre-commit run --all-files`` here: the fixtures under the project's own settings."""
    files = [p.relative_to(ROOT).as_posix() for p in log_files(FIXTURES)]
    files = [f for f in files if selected(f)]
    done = run_hook(files, ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "negative fixtures" in done.stdout
