"""The LoongFlow dialect: its parts put together."""

from __future__ import annotations

from .fast import FastPath
from .records import Records
from .rules import Rules


class LoongFlowDialect(FastPath, Rules, Records):
    name = "loongflow"
    title = "LoongFlow"
    keeps_extra_on = frozenset()
    tool_result_roles = frozenset({"tool"})
    tool_input_key = None
    tool_call_id_key = "call_id"
    tool_call_name_key = "target"
    block_word = "element"


DIALECT = LoongFlowDialect()
