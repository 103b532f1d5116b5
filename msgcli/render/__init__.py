"""Rendering logs for people: the conversation view of ``msgcli show``.

Everything taken from a log is turned into ``rich.text.Text`` (never parsed
as rich markup) after :func:`msgcli.textsafe.visible` has made its control
characters visible, so a log can neither style nor drive the terminal.
"""
