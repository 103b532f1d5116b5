"""The AgentScope Java dialect: its parts put together."""

from __future__ import annotations

from types import MappingProxyType

from .events import Events
from .fast import FastPath
from .records import NAME, Records
from .rules import Rules


class AgentScopeJavaDialect(FastPath, Rules, Events, Records):
    name = NAME
    title = "AgentScope Java"
    usage_cache_in_input = False
    writer = "msgcli.converters.agentscope_java:WRITER"
    typed = "msgcli.dialects.agentscope_java.typed:typed_path"
    formatters = MappingProxyType(
        {
            "openai": "msgcli.formatters.java.openai:FORMATTER",
            "dashscope": "msgcli.formatters.java.dashscope:FORMATTER",
            "anthropic": "msgcli.formatters.java.anthropic:FORMATTER",
        }
    )
    keeps_extra_on = frozenset()
    # TOOL messages carry results; the engine's suspended and stopped replies
    # (buildSuspendedMsg, buildStopMsg) hold a call and its result in one ASSISTANT message.
    tool_result_roles = frozenset({"tool", "assistant"})
    tool_input_key = "content"
    call_keys = ("content", "input")
    hint_lists = False


DIALECT = AgentScopeJavaDialect()
