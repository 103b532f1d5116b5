from msgcli.textsafe import lines, short, visible


def test_escape_sequences_and_controls_become_visible():
    hostile = "ok\x1b[2J\x1b]0;pwned\x07 \x00 \x9b \u202egnp.exe\nnext"
    shown = visible(hostile)
    assert "\x1b" not in shown and "\x07" not in shown and "\x00" not in shown
    assert "\x9b" not in shown and "\u202e" not in shown and "\n" not in shown
    assert shown == "ok\\e[2J\\e]0;pwned\\x07 \\x00 \\x9b \\u202egnp.exe\\nnext"


def test_multiline_keeps_newlines_and_tabs_and_plain_text_is_untouched():
    assert visible("a\n\tb", multiline=True) == "a\n\tb"
    assert visible("Zürich 中文 😀 [bold]x[/]") == "Zürich 中文 😀 [bold]x[/]"


def test_one_rule_for_line_separators_and_other_controls():
    """Line separators are line breaks when text is shown over several lines; every other
    control is escaped, and on a one-line field the separators are escaped too."""
    text = "a\u2028b\u2029c\x85d\r\ne\x0bf\x0cg\rh\ti"
    assert visible(text, multiline=True) == "a\nb\nc\nd\ne\\x0bf\\x0cg\\rh\ti"
    assert visible(text) == "a\\u2028b\\u2029c\\x85d\\r\\ne\\x0bf\\x0cg\\rh\\ti"
    assert lines(text) == ["a", "b", "c", "d", "e\x0bf\x0cg\rh\ti"]


def test_a_lone_surrogate_is_escaped_and_the_text_can_be_written():
    shown = visible("x\ud800y", multiline=True)
    assert shown == "x\\ud800y"
    shown.encode("utf-8")


def test_short_never_raises_on_what_a_record_may_hold():
    deep: list = []
    for _ in range(1000):
        deep = [deep]
    assert short(deep, 10).startswith("[[[[[")
    assert short({"n": float("nan"), "big": 2**70}, 80) == '{"n":null,"big":1180591620717411303424}'


def test_show_folds_thinking_at_the_same_separators(tmp_path, run_cli):
    import orjson
    from conftest import FIXTURES

    line = (FIXTURES / "real/agentscope-py/transcript.jsonl").read_bytes().splitlines()[2]
    record = orjson.loads(line)
    thinking = next(b for b in record["content"] if b["type"] == "thinking")
    thinking["thinking"] = "one\u2028two\u2029three\x85four\x0bstill four\x0cstill four\nfive\nsix"
    log = tmp_path / "thinking.jsonl"
    log.write_bytes(orjson.dumps(record) + b"\n")
    code, out = run_cli("show", "--no-pager", str(log))
    assert code == 0
    assert "\u2028" not in out and "\u2029" not in out and "\x85" not in out
    assert "    one\n    two\n    three\n" in out  # the first lines, one a line
    assert "more lines (--thinking full)" in out
    code, out = run_cli("show", "--no-pager", "--thinking", "full", str(log))
    assert "    four\\x0bstill four\\x0cstill four\n    five\n" in out
