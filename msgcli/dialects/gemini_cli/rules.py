"""The rules only Gemini CLI files get (family G)."""

from __future__ import annotations

from ...findings import ERROR, INFO, WARNING
from ...rules import CROSS_RECORD, RECORD, STREAM, Rule

__all__ = ["EXPLAINED", "RULES"]

RULES = (
    Rule(
        "G001",
        "gemini-unknown",
        INFO,
        "A record type, field, part or event Gemini CLI 0.61 does not write (a newer "
        "release?): kept, counted, shown by show --all.",
    ),
    Rule(
        "G002",
        "gemini-call-unanswered",
        WARNING,
        "A tool call no result answers by its call id in the session's history.",
        stage=CROSS_RECORD,
    ),
    Rule(
        "G003",
        "gemini-result-twice",
        WARNING,
        "A tool result whose call id no call has, or a call answered more than once.",
        stage=CROSS_RECORD,
    ),
    Rule(
        "G004",
        "gemini-subagent-missing",
        ERROR,
        "An invoke_agent call names a sub-agent (agentId) whose file is not in the "
        "session's folder, or a sub-agent file no call of its parent session names.",
        stage=CROSS_RECORD,
    ),
    Rule(
        "G005",
        "gemini-session-id",
        ERROR,
        "The session id disagrees with the file's name, or a header names another session "
        "than the one the file holds.",
        stage=CROSS_RECORD,
    ),
    Rule(
        "G006",
        "gemini-copy-differs",
        WARNING,
        "A response written again under its id reports other tokens or another model than "
        "its first copy.",
        stage=CROSS_RECORD,
    ),
    Rule(
        "G007",
        "gemini-rewind-unknown",
        WARNING,
        "$rewindTo names no message of the history: the CLI then empties the history.",
        stage=CROSS_RECORD,
    ),
    Rule(
        "G008",
        "gemini-stream-order",
        ERROR,
        "A stream-json tool_result whose tool_id no tool_use before it has, or a stream "
        "that ends without its result record.",
        stage=STREAM,
    ),
    Rule(
        "G009",
        "gemini-no-header",
        ERROR,
        "A session file whose first record is no session header (sessionId, projectHash): "
        "the CLI cannot load it.",
        stage=RECORD,
    ),
)

EXPLAINED = {
    "G001": (
        '{"id": "...", "type": "gemini", "content": "", "citations": [...]}',
        "Nothing to fix: the record is kept and read; msgcli learns the field in a later release.",
    ),
    "G002": (
        'toolCalls: [{"id": "run_shell_command_1", ...}] and no functionResponse with that id',
        "A session cut while a tool ran leaves its call open; otherwise the file lost lines.",
    ),
    "G003": (
        '{"functionResponse": {"id": "x", ...}} twice for one call',
        "Look for lines copied into the file twice.",
    ),
    "G004": (
        'toolCalls: [{"name": "invoke_agent", "agentId": "c584e42e-..."}] and no '
        "chats/<session>/c584e42e-....jsonl",
        "Copy the sub-agent folder (chats/<sessionId>/) along with the session file.",
    ),
    "G005": (
        'session-2026-12-07T15-16-826cf29c.jsonl holding "sessionId": "0feddf7b-..."',
        "Keep the file name the CLI gave it.",
    ),
    "G006": (
        "two lines with one response id and different tokens",
        "msgcli counts the last copy; the file was edited or merged.",
    ),
    "G007": (
        '{"$rewindTo": "no-such-id"}',
        "The history before the record is lost for the CLI too.",
    ),
    "G008": (
        '{"type": "tool_result", "tool_id": "never-called", ...}',
        "The output was cut or mixed with another run's.",
    ),
    "G009": (
        'a file that starts with {"id": "...", "type": "user", ...}',
        "The header was cut off; the CLI will not list or resume the session.",
    ),
}
