"""The rule registry: every code msgcli can report, with its default severity.

Codes are stable. A code never changes meaning; a retired code is never
reused. Families, by letter:

- ``P`` parsing and framing of the input bytes
- ``D`` dialect detection
- ``S`` schema: what the framework itself enforces when it loads a record,
  and the keys it drops or always writes
- ``T`` tool calls and their results
- ``I`` identifiers
- ``C`` chronology
- ``M`` media and data payloads
- ``B`` block and message semantics the framework does not enforce
- ``E`` event streams: the protocol a replay depends on
- ``K`` Claude Code sessions: the record graph, responses, subagents, and what a newer
  Claude Code release writes that this version of msgcli does not know (info)
- ``U`` what is merely new in the log of a tolerant producer (one whose own readers skip
  what they do not know: ``Dialect.tolerant``): a record kind, field, block type, stream
  event or delta type this version of msgcli does not know (info)
- ``X`` conversion between dialects: what the target cannot hold
- ``F`` expectations of negative fixtures (``--expect-invalid`` and ``.expect`` sidecars)

Every rule declares the *stage* that checks it (:data:`STAGES`), in the order a log
goes through them:

- ``bytes``: reading the input (paths, compression, lines, JSON);
- ``schema``: what validation decides before any other rule looks at a record (which
  dialect it is, its JSON Schema);
- ``record``: one record on its own, after its schema passed (``Dialect.check``,
  :func:`msgcli.checks.check_message`, a dialect's own ``record_checker``). A dialect's
  fast path answers for a record in place of these rules, so every fast path declares the
  record rules it covers (``Dialect.fast_covers``) and the test suite fails when one
  is missing (:func:`msgcli.dialects.uncovered`);
- ``cross-record``: what takes several records of a file (pairs, ids, time order);
- ``stream``: the events of an event log, and their replay;

and two outside validation's checks: ``expect`` (a file's findings against what it is
expected to hold) and ``convert`` (what a conversion loses).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .findings import ERROR, INFO, WARNING, Severity
from .suffixes import suffix_list

__all__ = [
    "RETIRED",
    "RULES",
    "STAGES",
    "Rule",
    "markdown_table",
    "record_rules",
    "select_codes",
]

BYTES = "bytes"
SCHEMA = "schema"
RECORD = "record"
CROSS_RECORD = "cross-record"
STREAM = "stream"
EXPECT = "expect"
CONVERT = "convert"
#: the stages, in the order a log goes through them (see the module's docstring)
STAGES = (BYTES, SCHEMA, RECORD, CROSS_RECORD, STREAM, EXPECT, CONVERT)


@dataclass(slots=True, frozen=True)
class Rule:
    code: str
    name: str
    severity: Severity
    summary: str
    #: the stage that checks it (one of :data:`STAGES`)
    stage: str = RECORD


_RULES = [
    # -- parsing and framing ------------------------------------------------
    Rule("P001", "invalid-json", ERROR, "A line is not valid JSON.", stage=BYTES),
    Rule("P002", "invalid-utf8", ERROR, "A line is not valid UTF-8 text.", stage=BYTES),
    Rule(
        "P003", "not-an-object", ERROR, "A line is valid JSON but not a JSON object.", stage=BYTES
    ),
    Rule(
        "P004",
        "truncated-line",
        ERROR,
        "The last line is cut off (no newline and incomplete JSON): the writer stopped mid-record.",
        stage=BYTES,
    ),
    Rule(
        "P005",
        "too-deep",
        ERROR,
        "A record nests deeper than 1,010 levels (JSON parsers stop at 1,024).",
        stage=BYTES,
    ),
    Rule(
        "P006",
        "non-standard-number",
        ERROR,
        "A record holds NaN, Infinity or -Infinity, which JSON does not allow.",
        stage=BYTES,
    ),
    Rule(
        "P007",
        "binary-data",
        ERROR,
        "A line holds binary data (NUL or other non-text bytes).",
        stage=BYTES,
    ),
    Rule("P008", "empty-file", ERROR, "The file holds no records.", stage=BYTES),
    Rule(
        "P009",
        "unreadable",
        ERROR,
        "The path cannot be read (missing, not permitted, bad gzip).",
        stage=BYTES,
    ),
    Rule(
        "P010",
        "no-logs-found",
        ERROR,
        f"A directory holds no log files: none named {suffix_list()} (hidden ones skipped).",
        stage=BYTES,
    ),
    Rule(
        "P011",
        "json-document",
        ERROR,
        "The file is a single JSON document (an object over several lines), not a log: "
        "no message or event of a known dialect in it.",
        stage=BYTES,
    ),
    # -- dialect ------------------------------------------------------------
    Rule(
        "D001",
        "unknown-dialect",
        ERROR,
        "A record matches none of the known dialects, so it cannot be checked.",
        stage=SCHEMA,
    ),
    Rule(
        "D002",
        "mixed-dialects",
        ERROR,
        "A record is of another dialect than the rest of the file.",
        stage=CROSS_RECORD,
    ),
    # -- schema -------------------------------------------------------------
    Rule(
        "S001",
        "schema",
        ERROR,
        "A record does not match the dialect's message schema (the framework rejects it).",
        stage=SCHEMA,
    ),
    Rule(
        "S002",
        "role-content",
        ERROR,
        "A message holds a block type its role may not hold (the framework rejects it).",
        stage=SCHEMA,
    ),
    Rule(
        "S003",
        "unknown-key",
        WARNING,
        "A key the framework does not know: it is dropped (or ignored) when the record is loaded.",
        stage=RECORD,
    ),
    Rule(
        "S004",
        "missing-key",
        WARNING,
        "A key the framework always writes is missing: the record was edited or made elsewhere, "
        "and loading it invents or defaults the value.",
        stage=RECORD,
    ),
    Rule(
        "S005",
        "coerced-value",
        WARNING,
        "A value of another JSON type that the framework converts when it loads the record "
        '(e.g. the string "0.5" for a number); other readers will not.',
        stage=RECORD,
    ),
    Rule(
        "S006",
        "unusual-role",
        WARNING,
        "A role outside system, user, assistant and tool: the framework keeps any string, "
        "but model providers know only those four.",
        stage=RECORD,
    ),
    # -- tool calls ---------------------------------------------------------
    Rule(
        "T001",
        "orphan-tool-result",
        ERROR,
        "A tool result answers no tool call in the file; no model provider accepts such a history.",
        stage=CROSS_RECORD,
    ),
    Rule(
        "T002",
        "unanswered-tool-call",
        WARNING,
        "A tool call never gets a result (calls still awaiting confirmation or "
        "external execution are exempt).",
        stage=CROSS_RECORD,
    ),
    Rule(
        "T003",
        "result-before-call",
        WARNING,
        "A tool result comes before the call it answers.",
        stage=CROSS_RECORD,
    ),
    Rule(
        "T004",
        "tool-input-not-object",
        ERROR,
        "A tool call's arguments are not a JSON object (or not JSON at all).",
        stage=RECORD,
    ),
    Rule(
        "T005", "tool-input-empty", WARNING, "A tool call's argument text is empty.", stage=RECORD
    ),
    Rule(
        "T006",
        "tool-name-mismatch",
        WARNING,
        "A tool result names another tool than the call it answers.",
        stage=CROSS_RECORD,
    ),
    Rule(
        "T007",
        "tool-result-role",
        WARNING,
        "A tool result sits in a message whose role does not carry tool results in this dialect.",
        stage=RECORD,
    ),
    Rule(
        "T008",
        "tool-placeholder-name",
        WARNING,
        "A persisted tool call still has a streaming placeholder name (starting with '__').",
        stage=RECORD,
    ),
    Rule(
        "T009",
        "tool-arguments-error",
        WARNING,
        "The framework recorded an error while parsing the tool call's arguments.",
        stage=RECORD,
    ),
    # -- identifiers --------------------------------------------------------
    Rule(
        "T010",
        "tool-result-repeated",
        ERROR,
        "A tool call is answered by more than one tool result in the same conversation.",
        stage=CROSS_RECORD,
    ),
    Rule(
        "I001",
        "duplicate-message-id",
        ERROR,
        "Two messages share an id; stores keyed by id keep only one of them.",
        stage=CROSS_RECORD,
    ),
    Rule(
        "I002",
        "duplicate-tool-call-id",
        WARNING,
        "Two tool calls share an id, so their results cannot be told apart.",
        stage=CROSS_RECORD,
    ),
    Rule(
        "I003",
        "non-canonical-id",
        WARNING,
        "An id the framework accepts but never writes in this form (e.g. an upper-case UUID).",
        stage=RECORD,
    ),
    # -- chronology ---------------------------------------------------------
    Rule(
        "C001",
        "timestamp-format",
        WARNING,
        "A timestamp is not in the format the framework writes.",
        stage=RECORD,
    ),
    Rule(
        "C002",
        "time-goes-back",
        WARNING,
        "A message is more than one second older than the message before it.",
        stage=CROSS_RECORD,
    ),
    # -- media --------------------------------------------------------------
    Rule("M001", "bad-base64", ERROR, "Inline base64 data does not decode.", stage=RECORD),
    Rule(
        "M002",
        "bad-media-type",
        WARNING,
        "A media type is not a well-formed MIME type.",
        stage=RECORD,
    ),
    Rule(
        "M003",
        "bad-url",
        ERROR,
        "A URL does not parse (no scheme, or no host for http/https).",
        stage=RECORD,
    ),
    Rule(
        "M004",
        "media-type-mismatch",
        WARNING,
        "The decoded bytes are not of the declared media type "
        "(e.g. JPEG bytes declared image/png).",
        stage=RECORD,
    ),
    # -- block and message semantics ----------------------------------------
    Rule(
        "B001",
        "empty-content",
        WARNING,
        "A message has no content blocks, or only empty text.",
        stage=RECORD,
    ),
    Rule(
        "B002",
        "error-without-info",
        WARNING,
        "A reply finished with reason 'error' but records no error.",
        stage=RECORD,
    ),
    Rule(
        "B003",
        "usage-total",
        WARNING,
        "A usage total differs from input plus output tokens.",
        stage=RECORD,
    ),
    Rule(
        "B004",
        "evolve-result-shape",
        ERROR,
        "A LoongFlow evolve_result mixes the 0.0.1 (string) and current (list) shapes.",
        stage=RECORD,
    ),
    Rule(
        "B005",
        "role-order",
        ERROR,
        "Messages in an order the provider's API rejects (Anthropic: alternation, tool_result "
        "blocks first in the answering turn; OpenAI: a tool message must follow the call).",
        stage=RECORD,
    ),
    Rule(
        "B006",
        "no-assistant-message",
        ERROR,
        "A fine-tuning example has no assistant message to learn from.",
        stage=RECORD,
    ),
    Rule(
        "B007",
        "unknown-role",
        ERROR,
        "A message's role is not one the provider's API knows.",
        stage=RECORD,
    ),
    Rule(
        "B008",
        "missing-content",
        ERROR,
        "A message the provider's API requires content for has none.",
        stage=RECORD,
    ),
    Rule(
        "B009",
        "bad-weight",
        ERROR,
        "A fine-tuning weight that is not 0 or 1, or a weight on a message that is not the "
        "assistant's.",
        stage=RECORD,
    ),
    Rule(
        "B010",
        "empty-conversation",
        ERROR,
        "A request or example holds no messages at all.",
        stage=RECORD,
    ),
    Rule(
        "B011",
        "over-token-limit",
        WARNING,
        "A fine-tuning example is longer than the training token limit (estimated); it would "
        "be truncated.",
        stage=RECORD,
    ),
    # -- event streams ------------------------------------------------------
    Rule(
        "E001",
        "unknown-reply",
        ERROR,
        "An event belongs to a reply or model call that never started; "
        "the framework drops it, msgcli keeps it in a message of its own.",
        stage=STREAM,
    ),
    Rule(
        "E002",
        "not-started",
        ERROR,
        "A delta or end arrives for a block, tool call, tool result or model call "
        "that never started.",
        stage=STREAM,
    ),
    Rule(
        "E003",
        "started-twice",
        ERROR,
        "A block, tool result or model call starts again while its first start is still open.",
        stage=STREAM,
    ),
    Rule(
        "E004",
        "after-reply-end",
        ERROR,
        "An event arrives for a reply (or model call) after it ended; "
        "it is not applied to the written message.",
        stage=STREAM,
    ),
    Rule(
        "E005",
        "unknown-tool-call",
        ERROR,
        "A tool result answers a tool call that never appeared in the stream.",
        stage=STREAM,
    ),
    Rule(
        "E006",
        "tool-arguments-not-object",
        ERROR,
        "A tool call's streamed arguments do not form a JSON object when the call ends.",
        stage=STREAM,
    ),
    Rule(
        "E007",
        "stream-cut",
        ERROR,
        "The log ends while a reply, block or tool call is still open: the stream stopped there.",
        stage=STREAM,
    ),
    Rule(
        "E008",
        "event-time-goes-back",
        WARNING,
        "An event is stamped more than a second earlier than an event before it.",
        stage=STREAM,
    ),
    Rule(
        "E009",
        "unknown-event-type",
        WARNING,
        "An event type msgcli does not know (a newer framework?): skipped and counted.",
        stage=STREAM,
    ),
    Rule(
        "E010",
        "type-keys-disagree",
        ERROR,
        "An AgentScope Java event writes its two 'type' keys with different values.",
        stage=STREAM,
    ),
    Rule(
        "E011",
        "agent-result-mismatch",
        ERROR,
        "The final message an AgentScope Java run reports (AGENT_RESULT) differs from "
        "the message rebuilt from its events.",
        stage=STREAM,
    ),
    Rule(
        "E012",
        "legacy-event-type",
        WARNING,
        "A legacy alias event type (RUN_STARTED, BINARY_BLOCK_DELTA, ...) that the framework "
        "no longer reads as an event type; replayed as its current name.",
        stage=STREAM,
    ),
    Rule(
        "E013",
        "unmatched-resume",
        WARNING,
        "A confirmation or external-execution result answers no pending request.",
        stage=STREAM,
    ),
    Rule("E014", "duplicate-event-id", WARNING, "Two events share an id.", stage=STREAM),
    Rule(
        "E015",
        "open-at-reply-end",
        WARNING,
        "A block, tool call or model call is still open when its reply or model call ends.",
        stage=STREAM,
    ),
    Rule(
        "E016",
        "stream-error",
        ERROR,
        "A provider stream reports an error mid-stream (an error event or error object): "
        "the response ends there; what arrived before it is written, marked.",
        stage=STREAM,
    ),
    Rule(
        "E017",
        "sdk-differs",
        WARNING,
        "The provider's SDK would rebuild this stream differently (or raise): msgcli writes "
        "what the format means, and says where the SDK's result would differ.",
        stage=STREAM,
    ),
    Rule(
        "E018",
        "deltas-disagree",
        ERROR,
        "A response's streamed deltas disagree with the finished item or response the stream "
        "reports at its end.",
        stage=STREAM,
    ),
    Rule(
        "E019",
        "response-incomplete",
        WARNING,
        "A response ended incomplete (a token limit, a content filter): written with its "
        "status, reason and the text that streamed before.",
        stage=STREAM,
    ),
    Rule(
        "E020",
        "response-failed",
        ERROR,
        "A response ended with status failed: written with its error and the text that "
        "streamed before.",
        stage=STREAM,
    ),
    # -- Claude Code sessions ----------------------------------------------------
    Rule(
        "K001",
        "unknown-record-type",
        INFO,
        "A Claude Code record type msgcli does not know (a newer release?): kept and counted.",
        stage=RECORD,
    ),
    Rule(
        "K002",
        "unknown-attachment-kind",
        INFO,
        "A Claude Code attachment kind msgcli does not know: kept and counted.",
        stage=RECORD,
    ),
    Rule(
        "K003",
        "unknown-system-subtype",
        INFO,
        "A Claude Code system record subtype msgcli does not know: kept and counted.",
        stage=RECORD,
    ),
    Rule(
        "K004",
        "unknown-field",
        INFO,
        "A field no Claude Code release msgcli knows writes on this record type: kept.",
        stage=RECORD,
    ),
    Rule(
        "K005",
        "dangling-parent",
        ERROR,
        "A parentUuid (or logicalParentUuid, leafUuid) names no record of the same file.",
        stage=CROSS_RECORD,
    ),
    Rule(
        "K006",
        "duplicate-uuid",
        ERROR,
        "Two different records of one session file share a uuid.",
        stage=CROSS_RECORD,
    ),
    Rule(
        "K007",
        "response-disagrees",
        ERROR,
        "Records of one API response (one message.id) disagree on its model, request id, "
        "usage or stop reason.",
        stage=CROSS_RECORD,
    ),
    Rule(
        "K008",
        "session-id-mismatch",
        WARNING,
        "A record's sessionId differs from the session file's name (a UUID).",
        stage=RECORD,
    ),
    Rule(
        "K009",
        "source-tool-mismatch",
        ERROR,
        "sourceToolAssistantUUID does not name the assistant record holding the tool call "
        "the result answers.",
        stage=CROSS_RECORD,
    ),
    Rule(
        "K010",
        "tool-call-unanswered",
        ERROR,
        "A tool call gets no result though the session goes on after it.",
        stage=CROSS_RECORD,
    ),
    Rule(
        "K011",
        "run-cut",
        WARNING,
        "The session ends while a tool call waits for its result: the run was cut "
        "(killed or interrupted) there.",
        stage=CROSS_RECORD,
    ),
    Rule(
        "K012",
        "tool-result-repeated",
        ERROR,
        "A tool call gets more than one result.",
        stage=CROSS_RECORD,
    ),
    Rule(
        "K013",
        "synthetic-api-error",
        WARNING,
        "Claude Code recorded an API error as a synthetic assistant message "
        "(model '<synthetic>', isApiErrorMessage).",
        stage=RECORD,
    ),
    Rule(
        "K014",
        "subagent-mismatch",
        ERROR,
        "A subagent file's agentId differs from its file name, or the parent session holds no "
        "Agent (Task) call that started it.",
        stage=CROSS_RECORD,
    ),
    Rule(
        "K015",
        "unknown-stream-type",
        INFO,
        "A stream-json record type (or system subtype, stream event) msgcli does not know: "
        "kept and counted.",
        stage=STREAM,
    ),
    # -- what is merely new, in a tolerant producer's log --------------------------
    Rule(
        "U001",
        "unknown-record-kind",
        INFO,
        "A record of a kind msgcli does not know, in a log of a producer whose readers skip "
        "what they do not know (a newer release?): kept, counted, shown with show --all, "
        "skipped by replay.",
        stage=RECORD,
    ),
    Rule(
        "U002",
        "unknown-field",
        INFO,
        "A field msgcli does not know on a message, block or event of a tolerant producer: "
        "kept as written.",
        stage=RECORD,
    ),
    Rule(
        "U003",
        "unknown-block-type",
        INFO,
        "A content block (part, output item) of a type msgcli does not know, in a tolerant "
        "producer's message: kept as written, shown as it is.",
        stage=RECORD,
    ),
    Rule(
        "U004",
        "unknown-event",
        INFO,
        "A stream event of a type msgcli does not know, in a tolerant producer's stream: "
        "counted and skipped, as the provider's SDK skips it.",
        stage=STREAM,
    ),
    Rule(
        "U005",
        "unknown-delta",
        INFO,
        "A streamed delta of a type msgcli does not know: counted and skipped, as the "
        "provider's SDK skips it.",
        stage=STREAM,
    ),
    # -- conversion (msgcli convert) ------------------------------------------
    Rule(
        "X001",
        "no-counterpart",
        WARNING,
        "A block, role or value has no counterpart in the target dialect: it is written as "
        "the nearest one, and the original is kept in metadata._msgcli for the way back.",
        stage=CONVERT,
    ),
    Rule(
        "X002",
        "dropped",
        WARNING,
        "What the target dialect has no place for is dropped (the finding names it): with "
        "--no-carry, or when an AgentScope 1.x log is brought to the 2.x shape.",
        stage=CONVERT,
    ),
    Rule(
        "X003",
        "filled-in",
        INFO,
        "The source has no value the target requires (a message's time, a tool result's "
        "name): the converter writes a documented stand-in.",
        stage=CONVERT,
    ),
    # -- expectations of negative fixtures (--expect-invalid) -------------------
    Rule(
        "F001",
        "not-invalid",
        ERROR,
        'A file expected to be invalid (--expect-invalid, or expect = "invalid" in the '
        "configuration) has no error.",
        stage=EXPECT,
    ),
    Rule(
        "F002",
        "expected-finding-missing",
        ERROR,
        "A finding the file's .expect sidecar lists did not occur.",
        stage=EXPECT,
    ),
    Rule(
        "F003",
        "unexpected-finding",
        ERROR,
        "A file held to an .expect sidecar has a finding the sidecar does not list.",
        stage=EXPECT,
    ),
    Rule(
        "F004",
        "bad-sidecar",
        ERROR,
        "An .expect sidecar cannot be read, or a line of it is neither 'LINE CODE' nor "
        "'# expect: CODES'.",
        stage=EXPECT,
    ),
]

RULES: dict[str, Rule] = {r.code: r for r in _RULES}
assert all(r.stage in STAGES for r in _RULES)

#: codes that were in use once and are never given another meaning;
#: naming one in ``--select``/``--ignore`` is accepted and selects nothing
RETIRED: dict[str, str] = {
    "D003": "event logs were skipped with a warning; they are checked now (family E)",
}


def select_codes(select: list[str] | None, ignore: list[str] | None) -> frozenset[str]:
    """The codes that are on, given ``--select``/``--ignore`` prefixes.

    A prefix selects every code that starts with it (``T`` is the whole family,
    ``T00`` the first nine). Unknown prefixes raise ``ValueError``.
    """

    def expand(prefixes: list[str]) -> set[str]:
        out: set[str] = set()
        for raw in prefixes:
            for p in raw.split(","):
                p = p.strip().upper()
                if not p:
                    continue
                if p == "ALL":
                    out.update(RULES)
                    continue
                hit = {c for c in RULES if c.startswith(p)}
                if not hit and p in RETIRED:
                    continue
                if not hit:
                    raise ValueError(f"unknown rule code or prefix: {p!r} (see 'msgcli rules')")
                out |= hit
        return out

    on = expand(select) if select else set(RULES)
    if ignore:
        on -= expand(ignore)
    return frozenset(on)


def record_rules(rules: Iterable[Rule] | None = None) -> frozenset[str]:
    """The codes of the ``record`` stage (``rules``: another registry than :data:`RULES`)."""
    return frozenset(
        r.code for r in (RULES.values() if rules is None else rules) if r.stage == RECORD
    )


def markdown_table() -> str:
    """The rule table as Markdown, as the README shows it."""
    rows = ["| code | name | severity | what it checks |", "|---|---|---|---|"]
    rows += [
        f"| `{r.code}` | {r.name} | {r.severity.value} | {r.summary} |" for r in RULES.values()
    ]
    return "\n".join(rows)
