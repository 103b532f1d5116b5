"""What msgcli knows of Gemini CLI's session files and stream-json output (release 0.61).

Anything else a newer release writes is kept and reported as an info finding (G001).
"""

from __future__ import annotations

#: the ``type`` of a message record
MESSAGE_TYPES = frozenset({"user", "gemini", "info", "error", "warning"})
#: the keys of a session header (``kind`` is ``main`` or ``subagent``; ``messages`` only in
#: the single JSON document older releases wrote)
HEADER_FIELDS = frozenset(
    {
        "sessionId",
        "projectHash",
        "startTime",
        "lastUpdated",
        "kind",
        "directories",
        "summary",
        "messages",
    }
)
#: the keys of a message record, by type
_COMMON = frozenset({"id", "timestamp", "type", "content", "displayContent"})
MESSAGE_FIELDS = {
    "user": _COMMON,
    "gemini": _COMMON | {"thoughts", "tokens", "model", "toolCalls"},
    "info": _COMMON,
    "error": _COMMON,
    "warning": _COMMON,
}
#: the keys of ``$set`` seen
SET_KEYS = frozenset(
    {"lastUpdated", "messages", "sessionId", "summary", "memoryScratchpad", "directories"}
)
#: the keys of a gemini message's ``tokens`` (usageMetadata, 1:1)
TOKEN_KEYS = ("input", "output", "cached", "thoughts", "tool", "total")
#: the keys of a ``toolCalls`` item
TOOL_CALL_FIELDS = frozenset(
    {
        "id",
        "name",
        "args",
        "result",
        "status",
        "timestamp",
        "resultDisplay",
        "description",
        "displayName",
        "renderOutputAsMarkdown",
        "agentId",
    }
)
#: the tool that starts a sub-agent (its call's ``agentId`` names the sub-agent's file)
AGENT_TOOL = "invoke_agent"
#: the record types of ``gemini --output-format stream-json``
STREAM_TYPES = frozenset({"init", "message", "tool_use", "tool_result", "error", "result"})

#: keys msgcli adds to a record it hands on (never written back: ``record_out``)
SESSION = "msgcli_session"  # the session id the file's header gives
AGENT = "msgcli_agent"  # a sub-agent file's own session id
DROPPED = "msgcli_dropped"  # a message no longer in the history (a response's tokens count)
CONTEXT = "msgcli_context"  # the environment message the CLI writes first
SYNTHETIC = "msgcli_synthetic"  # tool results msgcli takes from a call's own ``result``
OURS = (SESSION, AGENT, DROPPED, CONTEXT, SYNTHETIC)
