"""AgentScope Python event records: the native events, the AG-UI form and the 1.x
streaming wrapper."""

from __future__ import annotations

from ..base import (
    Dialect,
)

#: the event types of the AG-UI protocol (``ag_ui.core.events.EventType``)
AGUI_TYPES = frozenset(
    {
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "TEXT_MESSAGE_CHUNK",
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
        "TOOL_CALL_CHUNK",
        "TOOL_CALL_RESULT",
        "STATE_SNAPSHOT",
        "STATE_DELTA",
        "MESSAGES_SNAPSHOT",
        "ACTIVITY_SNAPSHOT",
        "ACTIVITY_DELTA",
        "RAW",
        "CUSTOM",
        "RUN_STARTED",
        "RUN_FINISHED",
        "RUN_ERROR",
        "STEP_STARTED",
        "STEP_FINISHED",
        "REASONING_START",
        "REASONING_MESSAGE_START",
        "REASONING_MESSAGE_CONTENT",
        "REASONING_MESSAGE_END",
        "REASONING_MESSAGE_CHUNK",
        "REASONING_END",
        "REASONING_ENCRYPTED_VALUE",
        "SUBAGENT_STARTED",
        "SUBAGENT_FINISHED",
        "SUBAGENT_ERROR",
        "THINKING_START",
        "THINKING_END",
        "THINKING_TEXT_MESSAGE_START",
        "THINKING_TEXT_MESSAGE_CONTENT",
        "THINKING_TEXT_MESSAGE_END",
    }
)


def is_agui(obj: dict) -> bool:
    """An AG-UI event (camelCase keys, no ``created_at``), as AgentScope's service sends it."""
    kind = obj.get("type")
    return (
        type(kind) is str
        and kind in AGUI_TYPES
        and "created_at" not in obj
        and "reply_id" not in obj
        and ("content" not in obj or kind == "TOOL_CALL_RESULT")
    )


def is_stream_wrapper(obj: dict) -> bool:
    """AgentScope 1.x's streamed snapshot ``{"msg": ..., "last": ...}``."""
    return "msg" in obj and "last" in obj and type(obj.get("msg")) is dict


class Events(Dialect):
    """Event records: the schema each form is checked against, and the replayer."""

    replayer_class = "msgcli.dialects.agentscope_py.replay:PyReplayer"

    def event_schema(self, obj: dict) -> str:
        """The AG-UI form and the 1.x streaming wrapper have schemas of their own."""
        if is_agui(obj):
            return f"{self.name}/agui-event"
        if is_stream_wrapper(obj):
            return f"{self.name}/stream-wrapper"
        return f"{self.name}/event"
