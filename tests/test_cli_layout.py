"""The command line's shape: a command is imported only when it runs, ``--help`` still lists
them all, and every list of choices is read from its registry."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from conftest import FIXTURES

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "msgcli"
LOG = FIXTURES / "real" / "agentscope-py" / "transcript.jsonl"


def test_validate_imports_no_other_command():
    code = (
        "import sys\n"
        "from msgcli.cli import main\n"
        f"sys.argv = ['msgcli', 'validate', {str(LOG)!r}]\n"
        "try:\n"
        "    main()\n"
        "except SystemExit as exc:\n"
        "    status = exc.code\n"
        "loaded = sorted(m for m in sys.modules if m.endswith('_cmd'))\n"
        "print(status, loaded, file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stderr.strip().splitlines()[-1] == "0 ['msgcli.cli.validate_cmd']"
    assert "Checked 1 file" in done.stdout


def test_help_lists_every_command_with_its_own_first_line(run_cli):
    from msgcli.cli.app import COMMANDS, load_command

    code, out = run_cli("--help")
    assert code == 0
    listed = out.split("Commands:", 1)[1].splitlines()
    names = [line.split()[0] for line in listed if line.strip()]
    assert names == list(COMMANDS)
    shown = dict(line.split(None, 1) for line in listed if line.strip())
    for name in COMMANDS:
        own = " ".join((load_command(name).help or "").split())
        assert own.startswith(shown[name].removesuffix("...")), name


def test_every_command_answers_help(run_cli):
    from msgcli.cli.app import COMMANDS

    for name in COMMANDS:
        code, out = run_cli(name, "--help")
        assert code == 0 and out.startswith(f"Usage: msgcli {name} "), name


def test_a_mistyped_command_is_named_with_a_suggestion(run_cli):
    code, _, err = run_cli("valdate", "x", stderr=True)
    assert code == 2
    assert "No such command 'valdate'. Did you mean 'validate'?" in err


def test_a_dialect_added_to_the_registry_is_a_choice(run_cli, monkeypatch):
    from msgcli.dialects import DIALECTS

    monkeypatch.setitem(DIALECTS, "toy-dialect", DIALECTS["loongflow"])
    for command in ("validate", "convert", "show", "stats", "diff"):
        code, out = run_cli(command, "--help")
        assert code == 0 and "toy-dialect" in out, command
    code, _, err = run_cli("validate", "-d", "no-such-dialect", str(LOG), stderr=True)
    assert code == 2 and "'toy-dialect'" in err


def test_a_reporter_added_to_the_registry_is_a_format(run_cli, monkeypatch):
    from msgcli.report import REPORTERS, Reporter

    monkeypatch.setitem(REPORTERS, "toy", Reporter("json:report", ".toy"))
    code, out = run_cli("validate", "--format", "json", str(LOG))
    code_toy, out_toy = run_cli("validate", "--format", "toy", str(LOG))
    assert (code_toy, out_toy) == (code, out)
    assert out.lstrip().startswith("{")
    code, out = run_cli("validate", "--help")
    assert "toy" in out


def test_the_providers_are_those_the_formatters_serve(run_cli):
    from msgcli.formatters import PROVIDERS

    code, out = run_cli("format", "--help")
    assert code == 0
    assert f"<{'|'.join(PROVIDERS)}>" in out


def _private_imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            parts = (node.module or "").split(".")
            private_module = any(p.startswith("_") and not p.startswith("__") for p in parts)
            for alias in node.names:
                if private_module or (alias.name.startswith("_") and alias.name != "__version__"):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} {alias.name}")
    return found


def test_the_cli_and_the_renderers_import_no_private_name():
    files = [p for d in ("cli", "report", "render") for p in (PACKAGE / d).rglob("*.py")]
    found = [hit for path in files for hit in _private_imports(path)]
    assert found == []


def test_one_plural_helper():
    defined = [
        str(path.relative_to(ROOT))
        for path in PACKAGE.rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.FunctionDef) and node.name.lstrip("_") == "plural"
    ]
    assert defined == ["msgcli/render/words.py"]
