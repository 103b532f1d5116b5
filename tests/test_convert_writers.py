"""Each dialect names its conversion writer and its formatters (``Dialect.writer``,
``Dialect.formatters``): ``convert`` and ``format`` offer and reach exactly those, through
the dialect, so a new target gets its own writer rather than another dialect's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import msgcli
from msgcli.converters import targets
from msgcli.converters.base import Out, Writer
from msgcli.dialects import DIALECTS
from msgcli.dialects.base import Dialect
from msgcli.formatters import DIALECTS as FORMATTED
from msgcli.formatters import PROVIDERS, format_request
from msgcli.model import Message, Turn

ROOT = Path(__file__).resolve().parent.parent
JAVA_LOG = ROOT / "fixtures/real/agentscope-java/transcript.jsonl"


def test_convert_writes_the_dialects_that_name_a_writer():
    assert targets() == tuple(name for name, d in DIALECTS.items() if d.writer is not None)
    assert set(targets()) >= {"agentscope-java", "agentscope-py", "loongflow", "openai-chat"}
    for name in targets():
        assert isinstance(DIALECTS[name].load_writer(), Writer)
    # Claude Code sessions are read, not written
    assert "claude-code" not in targets()
    with pytest.raises(ValueError, match="does not write"):
        DIALECTS["claude-code"].load_writer()
    with pytest.raises(ValueError, match="unknown dialect 'claude-code'"):
        msgcli.convert(str(JAVA_LOG), "claude-code")


def test_format_offers_the_formatters_the_dialects_name():
    assert tuple(name for name, d in DIALECTS.items() if d.formatters) == FORMATTED
    assert set(PROVIDERS) == {p for name in FORMATTED for p in DIALECTS[name].formatters}
    for name in FORMATTED:
        for provider in DIALECTS[name].formatters:
            assert DIALECTS[name].load_formatter(provider).name(False).endswith("ChatFormatter")
    with pytest.raises(ValueError, match="no formatter for nobody"):
        DIALECTS["agentscope-java"].load_formatter("nobody")
    with pytest.raises(ValueError, match="unknown dialect 'openai-chat'"):
        format_request([], "openai-chat", "openai")


class _Outline(Writer):
    """A target msgcli does not ship: one record per turn, naming its blocks."""

    has_metadata = False

    def __call__(self, turn: Turn, out: Out) -> list[dict]:
        return [
            {
                "to": out.dialect.name,
                "role": turn.role,
                "line": turn.line,
                "blocks": [block.type for _, block in turn.parts()],
            }
        ]


OUTLINE = _Outline()


class _OutlineDialect(Dialect):
    name = "outline"
    title = "Outline"
    writer = f"{__name__}:OUTLINE"

    def classify(self, obj: dict) -> str | None:
        return "message" if "blocks" in obj else None

    def read(self, obj: dict) -> Message:
        return Message(dialect=self.name, role=obj.get("role"))


def test_a_new_target_is_written_by_its_own_writer(monkeypatch: Any):
    monkeypatch.setitem(DIALECTS, "outline", _OutlineDialect())
    assert "outline" in targets()
    result = msgcli.convert(str(JAVA_LOG), "outline")
    # the Java log: USER (text, 2 images), ASSISTANT (thinking, text, tool call), its TOOL
    # message (the result), ASSISTANT (text); a tool message joins the turn of its call
    assert result.records == [
        {"to": "outline", "role": "user", "line": 1, "blocks": ["text", "data", "data"]},
        {
            "to": "outline",
            "role": "assistant",
            "line": 2,
            "blocks": ["thinking", "text", "tool_call", "tool_result"],
        },
        {"to": "outline", "role": "assistant", "line": 4, "blocks": ["text"]},
    ]
    # what the outline has no place for is reported as dropped
    assert {f.code for f in result.report.findings()} == {"X002"}
