"""The AgentScope Python dialect: its parts put together."""

from __future__ import annotations

from .events import Events
from .fast import FastPath
from .records import NAME, Records
from .rules import Rules


class AgentScopePyDialect(FastPath, Rules, Events, Records):
    name = NAME
    title = "AgentScope Python"
    keeps_extra_on = frozenset({"thinking"})
    tool_result_roles = frozenset({"assistant", "system"})
    tool_input_key = "input"


DIALECT = AgentScopePyDialect()
