"""What msgcli knows of the records Codex CLI writes (release 0.171): record types,
payload types, item types, and the names of its ``codex exec --json`` events.

A name not listed here is what a newer release wrote: an info finding on its line,
kept and counted, never an error.
"""

from __future__ import annotations

#: the ``type`` of a rollout line
RECORD_TYPES = frozenset(
    {
        "session_meta",
        "event_msg",
        "response_item",
        "world_state",
        "turn_context",
        "token_usage_record",
        "compacted",
        "inter_agent_communication_metadata",
        "response",
    }
)
#: the keys of a rollout line (every type)
LINE_KEYS = frozenset({"timestamp", "ordinal", "type", "payload", "metadata"})

#: ``payload.type`` of an ``event_msg`` line
EVENT_MSG_TYPES = frozenset(
    {
        "task_started",
        "task_complete",
        "thread_settings_applied",
        "item_completed",
        "item_started",
        "token_count",
        "user_message",
        "agent_message",
        "agent_reasoning",
        "agent_reasoning_raw_content",
        "error",
        "warning",
        "turn_aborted",
        "exec_command_end",
        "patch_apply_end",
        "context_compacted",
        "stream_error",
    }
)
#: ``payload.type`` of a ``response_item`` line that a model response writes
OUTPUT_ITEMS = frozenset(
    {
        "reasoning",
        "function_call",
        "custom_tool_call",
        "local_shell_call",
        "web_search_call",
        "image_generation_call",
        "tool_search_call",
    }
)
#: ``payload.type`` of a ``response_item`` line that answers a call
OUTPUT_RESULTS = frozenset(
    {"function_call_output", "custom_tool_call_output", "tool_search_output"}
)
#: every ``payload.type`` of a ``response_item`` line msgcli knows
RESPONSE_ITEMS = OUTPUT_ITEMS | OUTPUT_RESULTS | {"message", "agent_message", "compaction"}
#: ``payload.item.type`` of an ``item_completed`` event
ITEM_TYPES = frozenset(
    {
        "UserMessage",
        "AgentMessage",
        "CommandExecution",
        "FileChange",
        "Reasoning",
        "ContextCompaction",
        "SubAgentActivity",
        "CollabAgentToolCall",
        "McpToolCall",
        "WebSearch",
        "Plan",
        "ImageGeneration",
    }
)

#: the ``type`` of a ``codex exec --json`` line
EXEC_EVENTS = frozenset(
    {
        "thread.started",
        "turn.started",
        "turn.completed",
        "turn.failed",
        "item.started",
        "item.updated",
        "item.completed",
        "error",
    }
)
#: ``item.type`` of an ``item.*`` event of ``codex exec --json``
EXEC_ITEMS = frozenset(
    {
        "agent_message",
        "reasoning",
        "command_execution",
        "file_change",
        "mcp_tool_call",
        "collab_tool_call",
        "web_search",
        "todo_list",
        "error",
    }
)

#: the record a response's items are joined into (see :mod:`.assemble`): not a line the
#: CLI writes, the form msgcli writes a response in (``query``, ``replay``)
RESPONSE = "response"
#: set on a joined response whose ``response_id`` was counted before in the file
REPEATED = "\x00repeated"
