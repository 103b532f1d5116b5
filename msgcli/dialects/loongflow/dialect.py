"""The LoongFlow dialect: its parts put together."""

from __future__ import annotations

from types import MappingProxyType

from .fast import FastPath
from .records import Records
from .rules import Rules


class LoongFlowDialect(FastPath, Rules, Records):
    name = "loongflow"
    title = "LoongFlow"
    usage_cache_in_input = False
    writer = "msgcli.converters.loongflow:WRITER"
    formatters = MappingProxyType(
        {
            "openai": "msgcli.formatters.python:OPENAI",
            "dashscope": "msgcli.formatters.python:DASHSCOPE",
            "anthropic": "msgcli.formatters.python:ANTHROPIC",
        }
    )
    keeps_extra_on = frozenset()
    tool_result_roles = frozenset({"tool"})
    tool_input_key = None
    tool_call_id_key = "call_id"
    tool_call_name_key = "target"
    block_word = "element"
    sender_key = "sender"
    typed = "msgcli.dialects.loongflow.typed:typed_path"


DIALECT = LoongFlowDialect()
