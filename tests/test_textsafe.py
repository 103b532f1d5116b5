from msgcli.textsafe import visible


def test_escape_sequences_and_controls_become_visible():
    hostile = "ok\x1b[2J\x1b]0;pwned\x07 \x00 \x9b \u202egnp.exe\nnext"
    shown = visible(hostile)
    assert "\x1b" not in shown and "\x07" not in shown and "\x00" not in shown
    assert "\x9b" not in shown and "\u202e" not in shown and "\n" not in shown
    assert shown == "ok\\e[2J\\e]0;pwned\\x07 \\x00 \\x9b \\u202egnp.exe\\nnext"


def test_multiline_keeps_newlines_and_tabs_and_plain_text_is_untouched():
    assert visible("a\n\tb", multiline=True) == "a\n\tb"
    assert visible("Zürich 中文 😀 [bold]x[/]") == "Zürich 中文 😀 [bold]x[/]"
