"""``msgcli show`` renders every bundled log exactly as it did when these goldens were made.

The goldens pin the rendering byte for byte, so a change to how the view is laid out (for
speed) cannot change what a reader sees. For every log under ``fixtures/`` (all dialects,
message and event logs, valid and invalid) and a few folders (several logs, Claude Code
subagents under their calls), in several modes: without colour and with it, narrow and wide,
thinking folded, in full or hidden, metadata, ``--full``, Markdown, a deep nesting at the
narrowest width. The plain 100-column rendering is kept readable, one file per fixture folder
(``tests/golden/show/``); every other mode as a SHA-256 digest per log
(``tests/golden/show-digests.json``).

A rendering that changed on purpose is written anew with ``MSGCLI_UPDATE_GOLDEN=1``; read the
diff of the readable goldens before committing it.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
from pathlib import Path

import pytest
from conftest import FIXTURES, ROOT, examples, log_files
from hypothesis import given, settings
from hypothesis import strategies as st

from msgcli.render.thread import ShowOptions
from msgcli.render.view import View, console_for

GOLDEN = Path(__file__).parent / "golden"
READABLE = GOLDEN / "show"
DIGESTS = GOLDEN / "show-digests.json"
UPDATE = bool(os.environ.get("MSGCLI_UPDATE_GOLDEN"))

#: mode -> (colour, width, ShowOptions keywords)
MODES: dict[str, tuple[bool, int, dict]] = {
    "plain-100": (False, 100, {}),
    "colour-100": (True, 100, {}),
    "plain-40": (False, 40, {}),
    "colour-24-thinking-full": (True, 24, {"thinking": "full"}),
    "plain-100-full-metadata": (False, 100, {"thinking": "full", "metadata": True, "full": True}),
    "colour-80-no-thinking-cut": (True, 80, {"thinking": "hide", "max_chars": 200}),
    "plain-100-markdown": (False, 100, {"markdown": True}),
    "colour-60-markdown-metadata": (True, 60, {"markdown": True, "metadata": True}),
    "plain-20-full": (False, 20, {"full": True, "thinking": "full"}),
}
READABLE_MODE = "plain-100"


def _inputs() -> list[str]:
    """Every log file, and folders that hold several logs, as paths relative to the root."""
    files = [p.relative_to(ROOT).as_posix() for p in log_files(FIXTURES)]
    folders = [
        "fixtures/real/claude-code",
        "fixtures/newer/claude-code",
        "fixtures/real/agentscope-java",
        "fixtures/invalid/bad-input",
    ]
    return files + [f for f in folders if (ROOT / f).is_dir()]


INPUTS = _inputs()


@pytest.fixture(autouse=True)
def _steady_terminal(monkeypatch):
    """The same colours on every machine: rich reads the colour depth from the environment."""
    for name in ("COLORTERM", "NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.chdir(ROOT)


@pytest.fixture(autouse=True)
def _styles_drawn_afresh():
    """rich keeps the colour codes of a style on the style object, made for the first console
    that drew it, and shares its styles across the process; a test before this one that drew
    for a terminal of 16 colours would give these renderings its codes. Each test starts
    from styles no console has drawn."""
    from rich.default_styles import DEFAULT_STYLES
    from rich.style import Style

    for style in DEFAULT_STYLES.values():
        style._ansi = None
    Style.parse.cache_clear()
    Style._add.cache_clear()
    Style.normalize.cache_clear()


def render(path: str, mode: str) -> str:
    colour, width, keywords = MODES[mode]
    out = io.StringIO()
    console = console_for(out, colour=colour, width=width)
    code = View(console, ShowOptions(**keywords)).run([path], None)
    return f"{out.getvalue()}[exit {code}]\n"


def _readable_file(path: str) -> Path:
    """The golden file a log's plain rendering is kept in: one per fixture folder."""
    parts = Path(path).parts
    folder = parts[1:3] if len(parts) > 3 else parts[1:2]
    return READABLE / ("-".join(folder) + ".txt")


def _readable_chunks(renderings: dict[str, str]) -> dict[Path, str]:
    chunks: dict[Path, list[str]] = {}
    for path, text in renderings.items():
        chunks.setdefault(_readable_file(path), []).append(f"===== {path}\n{text}")
    return {file: "".join(parts) for file, parts in chunks.items()}


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _stored_digests() -> dict[str, dict[str, str]]:
    return json.loads(DIGESTS.read_text(encoding="utf-8")) if DIGESTS.is_file() else {}


@pytest.mark.parametrize("mode", list(MODES))
def test_rendering_is_pinned(mode):
    renderings = {path: render(path, mode) for path in INPUTS}
    if mode == READABLE_MODE:
        chunks = _readable_chunks(renderings)
        if UPDATE:
            READABLE.mkdir(parents=True, exist_ok=True)
            for old in READABLE.glob("*.txt"):
                old.unlink()
            for file, text in chunks.items():
                file.write_text(text, encoding="utf-8", errors="surrogatepass", newline="")
            return
        stored = sorted(READABLE.glob("*.txt"))
        assert stored == sorted(chunks), "the fixture folders changed: update the goldens"
        changed = [
            f.name
            for f in stored
            if f.read_text(encoding="utf-8", errors="surrogatepass") != chunks[f]
        ]
        for name in changed[:1]:
            import difflib

            old = (READABLE / name).read_text(encoding="utf-8").splitlines()
            new = chunks[READABLE / name].splitlines()
            diff = "\n".join(list(difflib.unified_diff(old, new, lineterm=""))[:80])
            pytest.fail(f"the rendering changed in {changed}; first diff:\n{diff}")
        return
    digests = {path: _digest(text) for path, text in renderings.items()}
    if UPDATE:
        stored = _stored_digests()
        stored[mode] = digests
        DIGESTS.parent.mkdir(parents=True, exist_ok=True)
        DIGESTS.write_text(json.dumps(stored, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        return
    pinned = _stored_digests().get(mode)
    assert pinned is not None, f"no goldens for {mode}: make them with MSGCLI_UPDATE_GOLDEN=1"
    assert sorted(pinned) == sorted(digests), "the fixtures changed: update the goldens"
    changed = [p for p in INPUTS if pinned[p] != digests[p]]
    assert not changed, f"{mode}: the rendering of {len(changed)} logs changed: {changed[:10]}"


def test_goldens_cover_every_dialect():
    """The pinned logs hold every dialect's messages and event logs (a guard against a
    fixture move leaving the goldens pinning little)."""
    text = "".join(f.read_text(encoding="utf-8") for f in READABLE.glob("*.txt"))
    for folder in (
        "fixtures/real/agentscope-py/",
        "fixtures/real/agentscope-java/",
        "fixtures/real/loongflow/",
        "fixtures/real/claude-code/",
        "fixtures/real/openai-chat/",
        "fixtures/real/openai-responses/",
        "fixtures/real/anthropic/",
        "fixtures/events/agentscope-py/",
        "fixtures/events/agentscope-java/",
    ):
        assert f"===== {folder}" in text, folder
    assert " ASSISTANT " in text and "→ " in text and "← " in text


@pytest.mark.parametrize("mode", ["colour-100", "plain-40", "colour-24-thinking-full"])
def test_rendering_through_the_console_is_the_same(mode, monkeypatch):
    """A console that records (``--export-svg``) or shows a live display (``--follow``) is
    printed to through rich, not written to directly: the same text."""
    if UPDATE:
        pytest.skip("the goldens are being written")
    import msgcli.render.view

    monkeypatch.setattr(msgcli.render.view, "_writes_directly", lambda console: False)
    pinned = _stored_digests()[mode]
    some = [p for p in INPUTS if p.startswith(("fixtures/real/", "fixtures/events/"))]
    changed = [p for p in some if pinned[p] != _digest(render(p, mode))]
    assert not changed, f"{mode}: the rendering of {len(changed)} logs changed: {changed[:10]}"


@pytest.mark.parametrize(
    ("args", "shown"),
    [
        (("--tail", "2"), 2),
        (("--head", "2"), 2),
        (("--id", "cc915ff6"), 1),
        (("--grep", "Compare these two images"), 1),
        (("--name", "Alice"), 2),
    ],
)
def test_filters_render_only_what_they_print(run_cli, monkeypatch, args, shown):
    """``--tail``, ``--head``, ``--id``, ``--grep`` and the other filters lay out only the
    messages they print: each rendered message is one printed header."""
    import msgcli.render.view

    rendered = []
    real = msgcli.render.view.render_unit

    def counting(unit, options):
        rendered.append(unit.item.line)
        return real(unit, options)

    monkeypatch.setattr(msgcli.render.view, "render_unit", counting)
    path = "fixtures/real/agentscope-py/transcript.jsonl"
    code, out = run_cli("show", "--no-pager", *args, path)
    headers = [
        line
        for line in out.splitlines()
        if line.split(" ")[1:2] and line.split(" ")[1] in ("SYSTEM", "USER", "ASSISTANT")
    ]
    assert code == 0
    assert len(headers) == shown, out
    assert len(rendered) == shown


_WORDS = ["a", "bc", " ", "  ", "     ", "\t", "Zürich", "-", "ñ.", "x" * 30, "supercalifragilist"]


@settings(max_examples=examples(2000), deadline=None)
@given(
    line=st.lists(st.sampled_from(_WORDS), max_size=40).map("".join),
    width=st.integers(min_value=1, max_value=50),
)
def test_lines_wrap_where_rich_wraps_them(line, width):
    """A printable line of one-cell characters, tabs among them, is cut where rich's word
    wrap cuts it (the view wraps such lines itself, without making a rich text per line)."""
    from rich.console import Console
    from rich.text import Text

    from msgcli.render.thread import wrap_plain

    console = Console(file=io.StringIO(), width=200, no_color=True)
    options = console.options.update_width(width)
    want = [
        "".join(s.text for s in segments)
        for segments in console.render_lines(Text(line), options, pad=False)
    ]
    assert wrap_plain(line, width) == want


def test_a_console_of_another_colour_system_before_changes_nothing():
    """rich keeps the codes of a style for the first console that drew it; a view drawn for
    a 16-colour terminal first must not give a 256-colour one its colours. (In a process of
    its own: what it leaves in rich's shared styles would reach the tests after it.)"""
    import subprocess
    import sys

    path = "fixtures/events/agentscope-java/hitl.jsonl"
    script = f"""
import io, sys
sys.path.insert(0, "tests")
from rich.color import ColorSystem
from msgcli.render.thread import ShowOptions
from msgcli.render.view import View, console_for
from test_show_golden import _digest, render
out = io.StringIO()
console = console_for(out, colour=True, width=100)
console._color_system = ColorSystem.STANDARD  # (as on a terminal of 16 colours)
View(console, ShowOptions()).run([{path!r}], None)
print(_digest(render({path!r}, "colour-100")))
"""
    env = {k: v for k, v in os.environ.items() if k not in ("COLORTERM", "NO_COLOR", "FORCE_COLOR")}
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == _stored_digests()["colour-100"][path]
