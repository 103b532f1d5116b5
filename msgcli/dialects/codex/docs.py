"""What ``msgcli rules CODE`` says of the Codex rules: an example and how to fix it."""

from __future__ import annotations

EXPLAINED = {
    "R001": (
        'line 9: {"type": "response_item", "payload": {"type": "image_generation_end", …}}',
        "Nothing to fix: a newer Codex wrote it. The record is kept, counted and shown with "
        "show --all; --ignore R001 silences the note.",
    ),
    "R002": (
        "line 12: ordinal 7 does not follow the previous record's 11",
        "Two rollouts were joined into one file, or lines were moved: keep each thread's "
        "file as the CLI wrote it.",
    ),
    "R003": (
        'line 9: call "call_abc" has no output in this thread',
        "The run stopped (was interrupted or killed) before the tool answered. Nothing to "
        "fix in a finished log; --ignore R003 when such runs are expected.",
    ),
    "R004": (
        'line 14: output for call "call_x", which no call of this thread made',
        "Records of another thread were copied in, or the call's line was lost: compare with "
        "the original rollout.",
    ),
    "R005": (
        'line 10: thread "01a2…" is not the rollout\'s thread (01b3…)',
        "Lines of another thread's rollout were appended to this file, or the file was "
        "renamed: keep each thread in the file the CLI named for it.",
    ),
    "R006": (
        'line 1: this thread was forked from thread "01a2…", whose rollout is not in its '
        "sessions folder",
        "Give the whole sessions folder (msgcli validate ~/.codex/sessions), or copy the "
        "parent's rollout beside the fork: its history is read from there.",
    ),
    "R007": (
        "line 1: forked before ordinal 40, but the parent's last record is ordinal 13",
        "The parent's rollout beside the fork is an older copy, or another thread's: use the "
        "parent's file as the CLI left it.",
    ),
    "R008": (
        'line 30: response "resp_1" was recorded before: its usage is counted once',
        "Nothing to fix: msgcli counts each response once by its response_id.",
    ),
    "R009": (
        "line 1: the rollout does not begin with its session_meta record",
        "The file's first lines were cut off: the thread's id and parent are unknown.",
    ),
    "R010": (
        'line 4: codex exec --json event "item.progress" is not one msgcli knows: counted',
        "Nothing to fix: a newer Codex wrote it; --ignore R010 silences the note.",
    ),
}
