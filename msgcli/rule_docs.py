"""What ``msgcli rules CODE`` says about a rule beyond its summary: an example of what it
finds, and how to fix it. Kept apart from :mod:`msgcli.rules`, which every check imports,
so the text is only loaded when it is asked for.

Examples are records (or lines) as the frameworks write them, shortened with ``…``.
"""

from __future__ import annotations

__all__ = ["EXPLAINED", "how_to_ignore"]

#: code -> (example, how to fix)
EXPLAINED: dict[str, tuple[str, str]] = {
    # -- parsing and framing --------------------------------------------------------------
    "P001": (
        'line 2: {"name": "Friday", "role": "assistant",, "content": []}\n'
        "(a stray comma: the line is not JSON; lines 1 and 3 are still checked)",
        "Repair or remove the line. A log edited by hand is the usual cause; a writer that "
        "builds JSON by string concatenation is the other.",
    ),
    "P002": (
        "line 2 holds the byte 0xFC for 'ü': it was written in Latin-1, not UTF-8.",
        "Re-encode the file as UTF-8 (iconv -f latin1 -t utf-8), and have the writer open its "
        "file with encoding='utf-8'.",
    ),
    "P003": (
        'line 4: ["user", "hello"]   or   "done"   or   42',
        "Every line of a JSONL log holds one JSON object. Remove what is not a record, or wrap "
        "it in one.",
    ),
    "P004": (
        'last line: {"id": "f3a…", "role": "assistant", "content": [{"type": "text", "te\n'
        "(no newline, and the JSON stops in the middle: the writer was killed mid-record)",
        "Nothing to fix in the records before it. Remove the broken tail, or recover the record "
        "from elsewhere (an event log replays to it: msgcli replay).",
    ),
    "P005": (
        "line 2 nests 1,500 arrays: [[[[[[…]]]]]]",
        "No framework writes this; the record is corrupt or hostile. Remove it.",
    ),
    "P006": (
        '{"type": "evolve_result", "best_score": NaN, …}\n'
        "(Python's json.dumps writes NaN and Infinity for float nan and inf unless told not to)",
        "Write the value as null (or a string), or dump with allow_nan=False so the writer "
        "fails where the value is made.",
    ),
    "P007": (
        "line 2 holds NUL bytes and other binary data: a piece of a PNG or a zip in the log.",
        "Remove the line. Binary payloads belong base64-encoded in a data block's source.",
    ),
    "P008": (
        "a file of zero bytes, or of blank lines only.",
        "A run that recorded nothing: check the writer, or leave the file out (exclude it in "
        "the configuration).",
    ),
    "P009": (
        "msgcli validate logs/run.jsonl   (no such file)\n"
        "a .gz file that breaks off after its third line (lines 1-3 are still checked)",
        "Name a file that exists and can be read; recopy a gzip file that was cut off.",
    ),
    "P010": (
        "msgcli validate logs/   where logs/ holds only .txt and .log files",
        "Name the files themselves, or give them one of the suffixes a directory scan takes.",
    ),
    "P011": (
        'settings.json: {\n  "theme": "dark",\n  "retries": 3\n}   (named on the command '
        "line: one pretty-printed object holding no message or event)",
        "Nothing to fix in the file: it is no log. Leave it off the command line, or exclude it "
        "in [tool.msgcli]; a directory scan already passes over such *.json files.",
    ),
    # -- dialect ------------------------------------------------------------------------------
    "D001": (
        '{"message": {"role": "user", "text": "hi"}, "ts": 1732269272}\n'
        "(a chat record of some other tool: none of AgentScope Java, Python or LoongFlow)",
        "Convert the record to a known dialect, or remove it; --dialect NAME reads every "
        "record as that dialect when detection guesses wrong.",
    ),
    "D002": (
        'line 3: {"sender": "reasoner", "role": "user", "content": [{"type": "content", …}]}\n'
        "(a LoongFlow message in a file that is an AgentScope Python log from line 1)",
        "Keep one dialect and one kind (messages or events) per file: split the file, or "
        "convert the stray records (msgcli convert --to DIALECT).",
    ),
    # -- schema ---------------------------------------------------------------------------------
    "S001": (
        '{"id": "…", "role": "assistant", "content": "Hello", …}\n'
        "(content must be a list of blocks; the framework refuses to load the record)",
        "Write the value in the type the dialect's schema gives (msgcli schema show DIALECT); "
        "the finding's pointer names the field.",
    ),
    "S002": (
        '{"role": "user", "content": [{"type": "tool_call", "id": "call_99", …}], …}\n'
        "(a user message may hold only text and data blocks)",
        "Move the block to a message of a role that may hold it (tool calls to the "
        "assistant, tool results where the dialect keeps them).",
    ),
    "S003": (
        '{"type": "tool_call", "id": "call_1", "name": "get_weather", "arguments": {…}, …}\n'
        "('arguments' is the OpenAI key; the framework reads 'input' and drops the rest)",
        "Rename the key to the one the framework reads, or remove it; what the framework drops "
        "is lost the next time the record is loaded and saved.",
    ),
    "S004": (
        '{"name": "Friday", "role": "assistant", "content": […]}   (no "id", no "metadata")',
        "Write the record with the framework's own serializer, which always writes these keys.",
    ),
    "S005": (
        '{"type": "evolve_result", "best_score": "0.9731", "last_iteration": "true", …}',
        "Write the value in its own JSON type (0.9731, true): the framework converts it, other "
        "readers will not.",
    ),
    "S006": (
        '{"role": "reviewer", "sender": "bob", …}',
        "Use system, user, assistant or tool, and put who spoke in the name (or sender).",
    ),
    # -- tool calls -----------------------------------------------------------------------------
    "T001": (
        '{"type": "tool_result", "id": "call_5c1e…", "name": "get_weather", …}\n'
        "(no tool_call with id call_5c1e… anywhere in the file)",
        "Keep the call that the result answers (a history cut at the wrong message loses it), "
        "or remove the result.",
    ),
    "T002": (
        '{"type": "tool_call", "id": "call_99", "name": "send_email", "state": "finished", …}\n'
        "(no tool_result with id call_99 follows)",
        "Record the result, or a result with an error state when the tool failed; a provider "
        "refuses a history with an unanswered call.",
    ),
    "T003": (
        'line 3: {"type": "tool_result", "id": "call_1", …}\n'
        'line 4: {"type": "tool_call", "id": "call_1", …}',
        "Put the result after its call: blocks or messages were reordered.",
    ),
    "T004": (
        '{"type": "tool_call", "input": "{\\"city\\": \\"Zürich\\", \\"unit\\": \\"cels", …}\n'
        '(the argument text was cut off mid-stream: not JSON)   or   "input": "[1, 2]"',
        "Record the whole argument text, a JSON object. A cut text comes from a stream that "
        "stopped: replay its event log to see where.",
    ),
    "T005": (
        '{"type": "tool_call", "id": "call_2", "name": "get_time", "input": "", …}',
        'Write "{}" for a call without arguments.',
    ),
    "T006": (
        'tool_call   {"id": "call_1", "name": "get_weather", …}\n'
        'tool_result {"id": "call_1", "name": "get_forecast", …}',
        "Give the result the name of the call it answers (or the id of the call it meant).",
    ),
    "T007": (
        "AgentScope Python 2.x: a tool_result block in a user message (OpenAI-style history), "
        "where 2.x keeps results in the assistant message.",
        "Move the result where the dialect keeps it; msgcli convert writes each dialect's "
        "placement.",
    ),
    "T008": (
        '{"type": "tool_call", "id": "call_3", "name": "__fragment__", …}',
        "The call was saved before its stream finished: save it after the tool call's end, "
        "or replay the event log, which names the tool.",
    ),
    "T009": (
        'LoongFlow: {"type": "tool_call", "target": "search", …,\n'
        '            "metadata": {"tool_arguments_err": "Expecting \',\' delimiter: line 1 …"}}',
        "Look at what the model sent: the framework could not parse the arguments, and its "
        "actor answers such a call with an error output.",
    ),
    # -- identifiers ----------------------------------------------------------------------------
    "T010": (
        'two {"role": "tool", "tool_call_id": "call_1", …} messages answer one call',
        "Keep one result per call; a retried tool should answer with a new call id.",
    ),
    "I001": (
        'line 2: {"id": "83cf2b30…", "role": "assistant", …}\n'
        'line 7: {"id": "83cf2b30…", "role": "assistant", …}   (the same reply stored twice)',
        "Store each message once, or give the second its own id.",
    ),
    "I002": (
        'line 2: {"type": "tool_call", "id": "call_6c49…", …}\n'
        'line 6: {"type": "tool_call", "id": "call_6c49…", …}',
        "Give each call its own id (the provider's, as the model returned it).",
    ),
    "I003": (
        '{"id": "DB1ED794-5C88-4518-B8CE-6FEE1…", …}   (LoongFlow writes lower-case UUIDs)',
        "Write ids in the form the framework makes them, so they compare equal to its own.",
    ),
    # -- chronology ------------------------------------------------------------------------------
    "C001": (
        '{"created_at": "2026-11-22T11:54:32.303Z", …}\n'
        "(AgentScope Python writes microseconds and no zone: 2026-11-22T11:54:32.303653)",
        "Write times the way the framework does, or ignore C001 when a custom timestamp "
        "factory is intended.",
    ),
    "C002": (
        'line 4: {"created_at": "2026-11-22T12:00:00.000000", …}\n'
        'line 5: {"created_at": "2026-11-22T11:55:00.000000", …}   (five minutes back)',
        "Check how the log was assembled: merged files, reordered lines, or a clock that jumped.",
    ),
    # -- media ------------------------------------------------------------------------------------
    "M001": (
        '{"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo*AAA"}\n'
        "('*' is not a base64 character; or the data is cut off)",
        "Write the whole payload, base64-encoded; a cut payload needs the original file.",
    ),
    "M002": (
        '{"type": "base64", "media_type": "png", …}',
        "Write a MIME type: image/png.",
    ),
    "M003": (
        '{"type": "url", "url": "images/dice.png"}   (no scheme)',
        "Write an absolute URL (https://…, file://…), or embed the bytes as base64.",
    ),
    "M004": (
        '{"type": "base64", "media_type": "image/png", "data": "/9j/4AAQ…"}   (JPEG bytes)',
        "Declare the type the bytes are (image/jpeg); providers reject or misread a wrong one.",
    ),
    # -- block and message semantics ----------------------------------------------------------
    "B001": (
        '{"role": "assistant", "content": [], …}   or   "content": [{"type": "text", "text": ""}]',
        "Leave the message out, or record what it said; an empty message is usually a failed "
        "call stored as if it had answered.",
    ),
    "B002": (
        '{"finished_reason": "error", "error": null, …}',
        "Record the error (its type and message) with the reply that failed.",
    ),
    "B003": (
        '"usage": {"inputTokens": 1320, "outputTokens": 61, "totalTokens": 1400}',
        "Write the total the provider reported, or leave it out to let readers add it up.",
    ),
    "B004": (
        '{"type": "evolve_result", "best_solution": "…", "improvements": ["…"], …}\n'
        "(a string where 0.0.1 wants it, next to a list in the current shape)",
        "Write every field in one version's shape.",
    ),
    "B005": (
        'anthropic request: {"role": "user", …}, {"role": "user", …}   (two user turns in a row),\n'
        "or a user turn whose tool_result block comes after its text block",
        "Merge consecutive turns of one role, put tool_result blocks first in the turn that "
        "answers the calls, and let each OpenAI tool message follow the assistant message "
        "that called it.",
    ),
    "B006": (
        'finetune.jsonl line 3: {"messages": [{"role": "system", …}, {"role": "user", …}]}',
        "Add the assistant's answer the model should learn, or drop the example.",
    ),
    "B007": (
        '{"role": "bot", "content": "Hi"}   (the API knows system, developer, user, '
        "assistant, tool)",
        "Write one of the roles the provider's API accepts.",
    ),
    "B008": (
        '{"role": "user"}   or   {"role": "assistant", "content": null}   with no tool calls',
        "Give the message its content (an assistant message may omit it only when it holds "
        "tool calls).",
    ),
    "B009": (
        '{"role": "assistant", "content": "…", "weight": 0.5}   or a weight on a user message',
        "Use weight 0 (do not train on this answer) or 1, and only on assistant messages.",
    ),
    "B010": (
        'finetune.jsonl line 7: {"messages": []}',
        "Remove the line, or write the conversation it was meant to hold.",
    ),
    "B011": (
        "finetune.jsonl line 12: about 70,000 tokens (estimated at 4 characters a token)",
        "Shorten the example or split it; training would cut it at the limit.",
    ),
    # -- event streams --------------------------------------------------------------------------
    "E001": (
        'line 1: {"type": "TEXT_BLOCK_DELTA", "reply_id": "83cf2b30…", …}   (no REPLY_START)',
        "Capture the stream from its start; a log that begins mid-reply was cut at the front.",
    ),
    "E002": (
        '{"type": "TEXT_BLOCK_DELTA", "block_id": "76d85a52…", …}   before its TEXT_BLOCK_START',
        "Keep the events in the order they were sent; a missing START was lost in capture.",
    ),
    "E003": (
        'line 8: {"type": "TEXT_BLOCK_START", "block_id": "76d85a52…"}\n'
        'line 9: {"type": "TEXT_BLOCK_START", "block_id": "76d85a52…"}   (still open)',
        "Remove the repeated event: it was captured twice.",
    ),
    "E004": (
        'line 33: {"type": "REPLY_END", …}\n'
        'line 34: {"type": "TEXT_BLOCK_DELTA", "reply_id": "<the same reply>", …}',
        "Events after the end are not part of the stored message: capture in send order, or "
        "find the producer that kept writing.",
    ),
    "E005": (
        '{"type": "TOOL_RESULT_START", "tool_call_id": "call_9c2b7e41…", …}\n'
        "(no TOOL_CALL_START ever announced call_9c2b7e41…)",
        "Keep the whole stream: the call's events were lost, or the result belongs to another run.",
    ),
    "E006": (
        'TOOL_CALL_DELTA events whose arguments end as {"city": "Zürich"   (unclosed)\n'
        "or as [1, 2] (JSON, but not an object)",
        "The model sent bad arguments: look at the deltas; the framework ran the tool with "
        "what it could parse.",
    ),
    "E007": (
        "the log ends after TEXT_BLOCK_DELTA, with the reply, its model call and the text "
        "block still open",
        "The stream stopped (a crash, a closed connection, a capture that ended too soon). "
        "What arrived is replayed, marked 'cut'; capture the rest if it exists.",
    ),
    "E008": (
        'line 15: {"created_at": "…T11:54:32.322", …}\n'
        'line 16: {"created_at": "…T11:54:30.323", …}   (2 s earlier)',
        "Check the capture: events merged from several sources, or reordered.",
    ),
    "E009": (
        '{"type": "FUTURE_THING", …}   (not an event type of the framework version msgcli knows)',
        "Nothing, if a newer framework writes it: it is skipped and counted. Report it to "
        "msgcli if the framework documents it.",
    ),
    "E010": (
        '{"type":"TEXT_BLOCK_DELTA", …, "type":"THINKING_BLOCK_DELTA"}\n'
        "(AgentScope Java writes 'type' twice; Jackson reads the first, other readers the last)",
        "Write one type: the event was edited, or assembled from two.",
    ),
    "E011": (
        "AGENT_RESULT's message says 'It is 7 °C in Zürich.', the message rebuilt from the "
        "events says 'It is 7 °C in Zürich. Rain later.'",
        "Look for events lost or added between the two; the rebuilt message is what the "
        "events say.",
    ),
    "E012": (
        '{"type": "RUN_STARTED", …}   (replayed as AGENT_START)',
        "Write the current event type name; the alias comes from an older framework.",
    ),
    "E013": (
        '{"type":"USER_CONFIRM_RESULT", …, "confirmResults":[{"confirmed":true,\n'
        '  "toolCall":{"id":"call_Oeud…","name":"delete_files", …}}]}\n'
        "(no REQUIRE_USER_CONFIRM asked about call_Oeud…)",
        "Keep the request in the log, or check that the answer belongs to this run.",
    ),
    "E014": (
        'line 9:  {"id": "827fc7a9…", "type": "TEXT_BLOCK_DELTA", …}\n'
        'line 12: {"id": "827fc7a9…", "type": "TEXT_BLOCK_DELTA", …}',
        "Remove the duplicate: an event captured twice is applied twice.",
    ),
    "E015": (
        '{"type": "REPLY_END", "finished_reason": "completed", …}   while text block '
        "0854db66… is still open",
        "Nothing is lost (the block is closed with the reply); the producer skipped an END.",
    ),
    "E016": (
        'data: {"type": "error", "error": {"type": "overloaded_error", …}}   after three '
        "text deltas",
        "Nothing to repair in the log: the provider ended the response there. Retry the "
        "request; the partial text is kept in the replayed response.",
    ),
    "E017": (
        'a Chat Completions stream that stops with finish_reason "length": the SDK\'s '
        "helper raises, msgcli writes the completion",
        "Usually nothing: the finding says where a program relying on the SDK's accumulator "
        "would see something else. Raise max_tokens for a length stop.",
    ),
    "E018": (
        'response.output_text.delta events spell "Hello wor", response.completed says '
        '"Hello world"',
        "Capture every event of the stream: a missing or reordered delta line is the usual cause.",
    ),
    "E019": (
        '{"type": "response.incomplete", "response": {"status": "incomplete", '
        '"incomplete_details": {"reason": "max_output_tokens"}, …}}',
        "Raise the token limit, or accept the partial answer (it is written with its reason).",
    ),
    "E020": (
        '{"type": "response.failed", "response": {"status": "failed", "error": {…}}}',
        "Look at the error the response carries; retry the request.",
    ),
    # -- Claude Code sessions --------------------------------------------------------------
    "U001": (
        'line 40: {"type": "response.summary", "id": "…"}   (in an Anthropic, OpenAI or other '
        "tolerant producer's log: a record kind no release msgcli knows wrote)",
        "Nothing to fix: a newer release wrote it. The record is kept, counted by stats, shown "
        "with show --all and exported; replay skips it. --ignore U001 silences the note.",
    ),
    "U002": (
        '{"role": "assistant", "content": "…", "reasoning_details": […]}   (a field msgcli '
        "does not know)",
        "Nothing to fix: the field is kept as written. --ignore U002 silences the note.",
    ),
    "U003": (
        '{"type": "container_upload_v2", …}   (a content block of a type msgcli does not know)',
        "Nothing to fix: the block is kept as written and shown as it is. --ignore U003 "
        "silences the note.",
    ),
    "U004": (
        '{"type": "content_block_annotation", "index": 0, …}   (a stream event type the API '
        "added later)",
        "Nothing to fix: the provider's SDK skips it, and so does replay; the rebuilt message "
        "is the same. --ignore U004 silences the note.",
    ),
    "U005": (
        '{"type": "content_block_delta", "index": 0, "delta": {"type": "audio_delta", …}}',
        "Nothing to fix: the provider's SDK skips a delta of a type it does not know, and so "
        "does replay. --ignore U005 silences the note.",
    ),
    "K001": (
        'line 12: {"type": "session-digest", "uuid": "…", …}   (a record type no release '
        "msgcli knows wrote)",
        "Nothing to fix: a newer Claude Code wrote it. The record is kept, counted and shown "
        "with show --all; --ignore K001 silences the note.",
    ),
    "K002": (
        'line 7: {"type": "attachment", "attachment": {"type": "voice_memo", …}}',
        "Nothing to fix: a newer Claude Code wrote it. --ignore K002 silences the note.",
    ),
    "K003": (
        'line 9: {"type": "system", "subtype": "budget_notice", …}',
        "Nothing to fix: a newer Claude Code wrote it. --ignore K003 silences the note.",
    ),
    "K004": (
        'line 4: {"type": "user", "uuid": "…", "moodRing": "calm", …}   (a field no known '
        "release writes on a user record)",
        "Nothing to fix unless the field was added by hand; --ignore K004 silences the note.",
    ),
    "K005": (
        'line 6: {"parentUuid": "9c1f…", …}   where no record of the file has uuid 9c1f…',
        "The session file was cut or edited: restore the missing record, or point parentUuid "
        "at the record it follows.",
    ),
    "K006": (
        'lines 4 and 9: two different records with "uuid": "5be0…"',
        "A record was copied and changed by hand; give one of them a fresh uuid or remove it.",
    ),
    "K007": (
        'lines 5 and 7: "message": {"id": "msg_01…", "model": "claude-sonnet-4-5"} and '
        '{"id": "msg_01…", "model": "claude-opus-4-1"}',
        "Records of one API response must agree; a hand-merged file is the usual cause.",
    ),
    "K008": (
        'file 3f1c…e2.jsonl, line 2: "sessionId": "77aa…"',
        "The file was renamed or records of another session were appended; keep each session "
        "in the file named after it.",
    ),
    "K009": (
        'line 8: {"sourceToolAssistantUUID": "a1b2…", …}   but the tool_use it answers is in '
        "record c3d4…",
        "Point sourceToolAssistantUUID at the assistant record that holds the call.",
    ),
    "K010": (
        'line 5: {"type": "tool_use", "id": "toolu_01…", "name": "Bash"}   and the session '
        "goes on with no tool_result for it",
        "A record was lost: restore the tool_result, or remove the call.",
    ),
    "K011": (
        "the last record is an assistant tool_use: the run was killed while the tool ran",
        "Nothing to repair; the session stopped there. Resume it to let the tool answer.",
    ),
    "K012": (
        'lines 6 and 9: two tool_result blocks with "tool_use_id": "toolu_01…"',
        "Keep one result per call; remove the copied record.",
    ),
    "K013": (
        '{"type": "assistant", "message": {"model": "<synthetic>", …}, "isApiErrorMessage": true}',
        "The API failed after Claude Code's retries; the record says why. Retry the turn.",
    ),
    "K014": (
        "subagents/agent-a9cc….jsonl holds agentId a7f0…, or the parent session has no Agent "
        "call that started it",
        "Keep a subagent file under its own name beside the session that started it.",
    ),
    "K015": (
        'stream.jsonl line 3: {"type": "telemetry", …}   (a stream-json type no release '
        "msgcli knows wrote)",
        "Nothing to fix: a newer Claude Code wrote it. --ignore K015 silences the note.",
    ),
    # -- conversion --------------------------------------------------------------------------------
    "X001": (
        "msgcli convert run.jsonl --to loongflow: a hint block becomes a LoongFlow text "
        "content element, and comes back a hint",
        "Nothing: the target has no such block. Converting back restores it from metadata._msgcli.",
    ),
    "X002": (
        "msgcli convert run.jsonl --to loongflow --no-carry: the thinking block's signature "
        "is dropped",
        "Convert with --carry (the default) to keep it in metadata._msgcli, if the way back "
        "matters.",
    ),
    "X003": (
        "msgcli convert chat.jsonl --to agentscope-py: OpenAI's messages have no times, and "
        "AgentScope needs one on every message and block: each is written with the time of its "
        "first block, else of the message before it, else 1970-01-01 00:00:00",
        "Nothing, unless the times matter: they are stand-ins, the same on every run. A tool "
        'result with no tool name and no call in the log is written with the name "".',
    ),
    # -- expectations of negative fixtures ------------------------------------------------------
    "F001": (
        "msgcli validate --expect-invalid tests/broken/ok.jsonl   (the file has no error)",
        "Break the fixture again, or take it out of the negative fixtures (expect = "
        '"valid" in an override).',
    ),
    "F002": (
        "tool-pairing.expect lists '7 T002', and line 7 no longer has a T002",
        "Update the sidecar to what the file gives now, if the change is intended.",
    ),
    "F003": (
        "tool-pairing.jsonl:6 has an I002 the sidecar tool-pairing.expect does not list",
        "Add 'LINE CODE' to the sidecar, or '# expect: CODE' for a code that may occur anywhere.",
    ),
    "F004": (
        "a line 'not a pair' in an .expect sidecar",
        "Write 'LINE CODE' lines, '# expect: CODES' lines, and comments.",
    ),
}


def how_to_ignore(code: str) -> str:
    """Where a rule is turned off: the command line, the configuration, a sidecar."""
    command = "convert" if code.startswith("X") else "validate"
    return (
        f"  on the command line:   msgcli {command} --ignore {code} PATH...\n"
        f'  in the configuration:  ignore = ["{code}"] in [tool.msgcli] (pyproject.toml) or '
        "msgcli.toml\n"
        f'  for some paths:        [[tool.msgcli.overrides]] paths = [...], ignore = ["{code}"]\n'
        f"  in a negative fixture: expect it in the file's .expect sidecar ('LINE {code}', "
        f"or '# expect: {code}')"
    )
