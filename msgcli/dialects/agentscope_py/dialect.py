"""The AgentScope Python dialect: its parts put together."""

from __future__ import annotations

from types import MappingProxyType

from .events import Events
from .fast import FastPath
from .records import NAME, Records
from .rules import Rules


class AgentScopePyDialect(FastPath, Rules, Events, Records):
    name = NAME
    title = "AgentScope Python"
    usage_cache_in_input = False
    writer = "msgcli.converters.agentscope_py:WRITER"
    typed = "msgcli.dialects.agentscope_py.typed:typed_path"
    formatters = MappingProxyType(
        {
            "openai": "msgcli.formatters.python:OPENAI",
            "dashscope": "msgcli.formatters.python:DASHSCOPE",
            "anthropic": "msgcli.formatters.python:ANTHROPIC",
        }
    )
    keeps_extra_on = frozenset({"thinking"})
    tool_result_roles = frozenset({"assistant", "system"})
    tool_input_key = "input"
    # 1.x writes tool results as system messages
    system_tool_results = True


DIALECT = AgentScopePyDialect()
