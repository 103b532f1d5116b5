"""What OpenCode writes that msgcli knows, shared by the dialect's modules (imported with
the dialect: nothing heavy here)."""

from __future__ import annotations

__all__ = ["KNOWN_PARTS", "MARK", "STEP_PARTS"]

#: the key under which msgcli notes what it learned while reading a record
MARK = "_msgcli"

#: part types that are no content of the conversation (kept in the message's fields)
STEP_PARTS = frozenset({"step-start", "step-finish", "snapshot", "patch", "retry", "agent"})
#: every part type a release msgcli knows writes
KNOWN_PARTS = frozenset({*STEP_PARTS, "text", "reasoning", "tool", "file", "subtask", "compaction"})
