"""The rules only OpenCode's storage gets (the ``N`` family), and what ``msgcli rules
CODE`` says of each."""

from __future__ import annotations

from ...findings import ERROR, INFO, WARNING
from ...rules import CROSS_RECORD, RECORD, Rule

__all__ = ["EXPLAINED", "RULES"]

RULES = (
    Rule(
        "N001",
        "unknown-part-type",
        INFO,
        "An OpenCode part type msgcli does not know (a newer release?): kept, counted and "
        "shown with show --all.",
    ),
    Rule(
        "N002",
        "unknown-field",
        INFO,
        "A field no OpenCode release msgcli knows writes on this session, message or part: kept.",
    ),
    Rule(
        "N003",
        "tool-call-unfinished",
        WARNING,
        "An OpenCode tool call is still pending or running in a message that has ended: "
        "it was never answered.",
        stage=CROSS_RECORD,
    ),
    Rule(
        "N004",
        "duplicate-call-id",
        ERROR,
        "Two tool parts of one OpenCode session share a call id (a fork's copies excepted).",
        stage=CROSS_RECORD,
    ),
    Rule(
        "N005",
        "parent-session-missing",
        ERROR,
        "An OpenCode session names a parent session (parentID) that is not in the storage.",
        stage=CROSS_RECORD,
    ),
    Rule(
        "N006",
        "inconsistent-ids",
        ERROR,
        "An OpenCode message or part names another session or message than the one it is "
        "stored under, or an id is repeated.",
        stage=CROSS_RECORD,
    ),
    Rule(
        "N007",
        "time-goes-back",
        WARNING,
        "An OpenCode message was created before the one it follows in its session, or ends "
        "before it starts.",
        stage=CROSS_RECORD,
    ),
    Rule(
        "N008",
        "parent-message-missing",
        ERROR,
        "An OpenCode reply names a parentID that is no user message of its session.",
        stage=CROSS_RECORD,
    ),
    Rule(
        "N009",
        "step-tokens-differ",
        WARNING,
        "An OpenCode reply of one step holds other token counts than its step-finish part.",
    ),
    Rule(
        "N010",
        "sub-agent-session-missing",
        ERROR,
        "An OpenCode task call names a sub-agent session that is not in the storage.",
        stage=CROSS_RECORD,
    ),
    Rule(
        "N011",
        "unknown-role",
        INFO,
        "An OpenCode message role msgcli does not know (a newer release?): kept and counted.",
    ),
)

assert all(r.stage in (RECORD, CROSS_RECORD) for r in RULES)

EXPLAINED: dict[str, tuple[str, str]] = {
    "N001": (
        'line 5: {"info": {…}, "parts": [{"type": "hologram", …}]}   (a part type no known '
        "release writes)",
        "Nothing to fix: the part is kept and shown with show --all; --ignore N001 silences "
        "the note.",
    ),
    "N002": (
        'line 3: {"info": {"role": "user", "mood": "calm", …}}   (a field no known release '
        "writes on a user message)",
        "Nothing to fix unless the field was added by hand; --ignore N002 silences the note.",
    ),
    "N003": (
        'line 4: {"type": "tool", "callID": "call_1", "state": {"status": "running"}} in a '
        "reply that has finished",
        "The tool never returned (OpenCode was stopped while it ran); rerun the step if the "
        "answer matters.",
    ),
    "N004": (
        'line 6: a second tool part with "callID": "call_1" in the same session',
        "Call ids must be unique within a session; a log edited or merged by hand may repeat one.",
    ),
    "N005": (
        'line 1: {"session": {"id": "ses_b", "parentID": "ses_a", …}} and no session ses_a',
        "The parent was deleted or the database is a partial copy: copy the whole data "
        "folder (opencode.db with its -wal and -shm).",
    ),
    "N006": (
        'line 3: {"info": {"id": "msg_1", "sessionID": "ses_b"}} stored under session ses_a',
        "A JSON file of the storage/ layout was moved by hand: put it back under its session.",
    ),
    "N007": (
        "line 7: a message created at 12:00:05 after one created at 12:00:09",
        "Usually a clock change while OpenCode ran; nothing to fix if so.",
    ),
    "N008": (
        'line 4: {"info": {"role": "assistant", "parentID": "msg_gone", …}}',
        "The prompt the reply answers is missing: the message was deleted or the copy is partial.",
    ),
    "N009": (
        'line 4: a reply with "tokens": {"input": 10, …} and a step-finish part with '
        '"tokens": {"input": 12, …}',
        "msgcli counts the step-finish parts; check which numbers the provider billed.",
    ),
    "N010": (
        "line 4: a task call whose state.metadata.sessionId is ses_gone, and no such session",
        "Copy the whole data folder: the sub-agent's session is a row of its own.",
    ),
    "N011": (
        'line 3: {"info": {"role": "critic", …}, "parts": […]}',
        "Nothing to fix: the message is kept; --ignore N011 silences the note.",
    ),
}
