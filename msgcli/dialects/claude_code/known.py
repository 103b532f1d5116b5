"""What msgcli knows Claude Code writes: record types, attachment kinds, system subtypes
and the fields of each, as Claude Code 2.1.x sessions and stream-json logs show them.

Anything outside these tables is reported as an info finding (K001-K004, K015) and
kept: every release of Claude Code may add to them.
"""

from __future__ import annotations

#: the envelope of the records that are part of the conversation graph
_ENVELOPE = frozenset(
    {
        "type",
        "uuid",
        "parentUuid",
        "logicalParentUuid",
        "isSidechain",
        "sessionId",
        "timestamp",
        "cwd",
        "gitBranch",
        "version",
        "userType",
        "entrypoint",
        "slug",
        "agentId",
        "isMeta",
        "teamName",
        "requestId",
    }
)

#: top-level fields by record type (the graph records: envelope plus their own)
RECORD_FIELDS: dict[str, frozenset[str]] = {
    "user": _ENVELOPE
    | {
        "message",
        "promptId",
        "permissionMode",
        "promptSource",
        "origin",
        "toolUseResult",
        "sourceToolAssistantUUID",
        # 2.1.332
        "permissionDecision",
        "queueSkipAttachments",
        "rowSource",
        "sandboxed",
        "sentAtMs",
        "toolDenialKind",
        "turnCompanion",
        "turnOrigin",
        "turnPosition",
        "isCompactSummary",
        "isVisibleInTranscriptOnly",
        "interruptedMessageId",
        "imagePasteIds",
        "thinkingMetadata",
        "todos",
        "mcpMeta",
    },
    "assistant": _ENVELOPE
    | {
        "message",
        "attributionAgent",
        "isApiErrorMessage",
        "apiErrorStatus",
        "error",
        # 2.1.332
        "apiBlockIndex",
        "madeBy",
        "perTurnEffort",
        "promptCacheRequested",
        "requestRef",
        "requestedModel",
        "thinkingDisplay",
        "thinkingDurationMs",
        "toolInputStreamMs",
    },
    "attachment": _ENVELOPE
    | {"attachment", "rendered", "renderedRole", "renderedBesideToolResult"},
    "system": _ENVELOPE
    | {
        "subtype",
        "content",
        "level",
        "compactMetadata",
        "durationMs",
        "messageCount",
        "toolUseID",
    },
    "queue-operation": frozenset({"type", "operation", "timestamp", "sessionId", "content"}),
    "last-prompt": frozenset({"type", "lastPrompt", "leafUuid", "sessionId"}),
    "file-history-snapshot": frozenset({"type", "messageId", "snapshot", "isSnapshotUpdate"}),
    "mode": frozenset({"type", "mode", "sessionId"}),
    "permission-mode": frozenset({"type", "permissionMode", "sessionId"}),
    "ai-title": frozenset({"type", "aiTitle", "sessionId"}),
    "custom-title": frozenset({"type", "customTitle", "sessionId"}),
    "agent-name": frozenset({"type", "agentName", "sessionId"}),
    # written by older releases
    "summary": frozenset({"type", "summary", "leafUuid"}),
}

#: record types a release writes that have no schema of their own here (2.1.332): checked
#: as any record (a string ``type``), their fields not listed
OTHER_TYPES = frozenset(
    {
        "api-request",
        "api-request-blob",
        "api-request-shape",
        "atis-latch",
        "cost-state",
        "tools-used",
    }
)

#: the records that take part in the uuid/parentUuid graph
GRAPH_TYPES = frozenset({"user", "assistant", "attachment", "system"})

#: a subagent's ``agent-<id>.meta.json`` (one JSON object, no ``type``)
META_FIELDS = frozenset(
    {
        "agentType",
        "description",
        "toolUseId",
        "spawnDepth",
        # 2.1.332
        "finished",
        "isBuiltIn",
        "launchedWithDefaults",
        "model",
        "modelNotNamed",
        "pickedEffortModel",
        "requestNonInteractive",
        "requestShape",
    }
)

ATTACHMENT_KINDS = frozenset(
    {
        "agent_listing_delta",
        "skill_listing",
        "hook_success",
        "hook_blocking_error",
        "hook_non_blocking_error",
        "hook_error_during_execution",
        "hook_cancelled",
        "hook_additional_context",
        "file",
        # 2.1.332
        "date",
        "deferred_tools_delta",
        "environment",
        "model",
        "prompt_snapshot",
        "remote_session_change",
        "session_context",
        "total_tokens_reminder",
    }
)

SYSTEM_SUBTYPES = frozenset({"compact_boundary", "local_command", "turn_duration", "api_error"})

#: ``message`` keys of an assistant record
MESSAGE_FIELDS = frozenset(
    {
        "id",
        "type",
        "role",
        "model",
        "content",
        "stop_reason",
        "stop_sequence",
        "usage",
        "stop_details",
        "container",
        "context_management",
    }
)

#: the content block types of a user or assistant record's message (the Messages API's):
#: any other is an info finding (U003), kept
BLOCK_TYPES = frozenset(
    {
        "text",
        "image",
        "document",
        "tool_use",
        "tool_result",
        "thinking",
        "redacted_thinking",
        "server_tool_use",
        "web_search_tool_result",
        "web_fetch_tool_result",
        "code_execution_tool_result",
        "bash_code_execution_tool_result",
        "text_editor_code_execution_tool_result",
        "tool_search_tool_result",
        "tool_reference",
        "search_result",
        "container_upload",
        "mcp_tool_use",
        "mcp_tool_result",
    }
)

#: stream-json (``claude -p --output-format stream-json --verbose``) record types
STREAM_TYPES = frozenset({"system", "assistant", "user", "result", "stream_event"})
#: the top-level fields of stream-json records, every type together (2.1.x releases); any
#: other is an info finding (U002), kept
STREAM_FIELDS = frozenset(
    {
        "additional_directories",
        "agent_id",
        "agents",
        "analytics_disabled",
        "apiKeySource",
        "api_error_status",
        "api_message_id",
        "attempt",
        "begun_message_ids",
        "capabilities",
        "claude_code_version",
        "compact_metadata",
        "compact_result",
        "cwd",
        "decision_reason_type",
        "description",
        "duration_api_ms",
        "duration_ms",
        "error",
        "error_status",
        "errors",
        "estimated_tokens",
        "estimated_tokens_delta",
        "event",
        "fast_mode_disabled_reason",
        "fast_mode_state",
        "first_content_frame_ms",
        "isReplay",
        "isSynthetic",
        "is_backgrounded",
        "is_error",
        "last_tool_name",
        "max_retries",
        "mcp_servers",
        "memory_paths",
        "message",
        "messaging_socket_path",
        "model",
        "modelUsage",
        "model_usage_since_last_result",
        "num_turns",
        "origin",
        "original_cwd",
        "output_file",
        "output_style",
        "parent_tool_use_id",
        "patch",
        "per_turn_effort_active",
        "permissionMode",
        "permission_denials",
        "plugins",
        "product_feedback_disabled",
        "prompt",
        "queued_turn_count",
        "request_id",
        "result",
        "result_index",
        "retry_delay_ms",
        "run_id",
        "safety_stops",
        "sandbox_enabled",
        "served_by_anthropic",
        "session_id",
        "skills",
        "slash_commands",
        "spawn_depth",
        "status",
        "stop_reason",
        "subagent_stats",
        "subagent_type",
        "subtype",
        "summary",
        "summary_is_report",
        "task_description",
        "task_id",
        "task_type",
        "tasks",
        "terminal_reason",
        "terminal_slash_commands",
        "thinking_display",
        "thinking_duration_ms",
        "time_to_request_ms",
        "timestamp",
        "tool_name",
        "tool_result_meta",
        "tool_use_id",
        "tool_use_result",
        "tools",
        "total_cost_usd",
        "ttft_ms",
        "ttft_stream_ms",
        "type",
        "ultrathink_available",
        "ultrathink_typed_raises",
        "usage",
        "uuid",
        "view_mode",
    }
)
STREAM_SYSTEM_SUBTYPES = frozenset(
    {
        "init",
        "thinking_tokens",
        "api_retry",
        "status",
        "compact_boundary",
        "hook_started",
        "hook_response",
        "task_started",
        "task_progress",
        "task_updated",
        "task_notification",
        # 2.1.332
        "background_tasks_changed",
        "permission_denied",
    }
)
STREAM_EVENTS = frozenset(
    {
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
        "ping",
        "error",
    }
)

#: the tool that starts a subagent (``Task`` in older releases)
AGENT_TOOLS = frozenset({"Agent", "Task"})

SYNTHETIC_MODEL = "<synthetic>"

#: the key under which a merged response says it repeats one counted before
REPEATED = "msgcli_repeated_response"
#: the key under which a record of tool results gets the names of the tools they answer
TOOL_NAMES = "msgcli_tool_names"
