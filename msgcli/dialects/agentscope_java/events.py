"""AgentScope Java event records: type names to resolve before replay, and their schemas."""

from __future__ import annotations

from typing import Any

from ...textsafe import short
from ..base import (
    Dialect,
    Emit,
)

#: legacy names ``AgentEventType.fromValue`` still maps (never as an event's own type)
EVENT_ALIASES = {
    "RUN_STARTED": "AGENT_START",
    "REPLY_START": "AGENT_START",
    "RUN_FINISHED": "AGENT_END",
    "REPLY_END": "AGENT_END",
    "MODEL_CALL_STARTED": "MODEL_CALL_START",
    "MODEL_CALL_ENDED": "MODEL_CALL_END",
    "BINARY_BLOCK_START": "DATA_BLOCK_START",
    "BINARY_BLOCK_DELTA": "DATA_BLOCK_DELTA",
    "BINARY_BLOCK_END": "DATA_BLOCK_END",
    "TOOL_RESULT_BINARY_DELTA": "TOOL_RESULT_DATA_DELTA",
    "THREAD_EXPOSED": "SUBAGENT_EXPOSED",
}


class Events(Dialect):
    """Event records: what replay needs of them before they are applied."""

    replayer_class = "msgcli.dialects.agentscope_java.replay:JavaReplayer"

    def prepare_event(self, raw: bytes, obj: dict, emit: Emit) -> None:
        """Resolve the ``type`` Jackson writes twice, and legacy type names.

        orjson keeps the last ``type``; Jackson's reader takes the first (the
        type id that picks the event class), so that one wins when they differ.
        """
        kind = obj.get("type")
        if raw[:9] == b'{"type":"':
            end = raw.find(b'"', 9)
            if end > 0 and raw.find(b"\\", 9, end) < 0:
                first = raw[9:end].decode("utf-8", "replace")
                if first != kind:
                    emit(
                        "E010",
                        f"the event's two 'type' keys disagree: {short(first)} first, "
                        f"{short(kind)} last; replayed as {short(first)}, "
                        "the one AgentScope Java reads",
                        "/type",
                    )
                    obj["type"] = kind = first
        if type(kind) is str and kind in EVENT_ALIASES:
            current = EVENT_ALIASES[kind]
            emit(
                "E012",
                f"{kind} is a legacy name the framework no longer reads as an event type: "
                f"replayed as {current}",
                "/type",
            )
            obj["type"] = current

    def replayer(self, emit: Emit, sink: Any = None, zone: Any = None) -> Any:
        """The replayer of a Java event log; ``zone`` is the one its message times are written
        in (the JVM's local zone; ``None``: UTC)."""
        return self.replayer_type()(emit, sink, zone)

    def event_schema(self, obj: dict) -> str:
        """The deprecated coarse ``Event`` (``type, message, isLast``) has a schema of its own."""
        if "isLast" in obj and "createdAt" not in obj:
            return f"{self.name}/legacy-event"
        return f"{self.name}/event"
