"""What every dialect provides.

A dialect is a package ``msgcli/dialects/<name>/`` (or any importable package, see
:func:`msgcli.dialects.register`) whose ``DIALECT`` is a singleton subclass of
:class:`Dialect`. The class is named ``<Name>Dialect`` (``AgentScopeJavaDialect``). Its
JSON Schemas are ``<schema_root>/<name>/message.schema.json`` (and ``event.schema.json``
for a dialect with event logs).

The hooks, grouped by the step of the pipeline that calls them (every one but
:meth:`Dialect.classify`, :meth:`Dialect.read` and :meth:`Dialect.write` has a default):

Identity
    :attr:`Dialect.name` (what users type, the registry's key), :attr:`Dialect.title`,
    :attr:`Dialect.schema_root` (where its schemas are, when not msgcli's own).

Detection
    :meth:`Dialect.classify` (is this record mine, a message or an event? a few key
    look-ups, called for every record), :attr:`Dialect.distinct`,
    :attr:`Dialect.wire_form`, :meth:`Dialect.document_records` (a log that is one JSON
    document, made records of its parts).

What is merely new (a producer whose own readers skip what they do not know)
    :attr:`Dialect.tolerant`, :meth:`Dialect.claims`, :meth:`Dialect.is_new`,
    :meth:`Dialect.unknown_record`, :meth:`Dialect.read_unknown`.
    Once a file is settled on a tolerant dialect, a JSON object that no dialect knows (a
    record kind a newer release writes, with or without the usual envelope) is read as a
    record of the file's kind, never ``D001``: in a message log it is an info finding
    (:meth:`unknown_record`, ``U001`` by default), kept and read by
    :meth:`read_unknown` into a message that ``show`` keeps aside (shown with ``--all``),
    ``stats`` counts and ``export`` writes; in an event log it goes to the replayer,
    which counts it and skips it as the provider's SDK does (``U004``, info). A record
    another dialect claims is still ``D002``. The dialect's own checks say the same of
    a field, a content block type or a delta type they do not know (``U002``, ``U003``,
    ``U005``, or a family of the dialect's own such as Claude Code's ``K001``-``K004``,
    ``K015``): an info finding, never an error or a warning, and the exit status, the
    rebuilt messages and the token totals are what they would be without it. A producer
    whose own reader rejects what it does not know (AgentScope's and LoongFlow's pydantic
    models) leaves ``tolerant`` false: there the error stays.

The record model
    :meth:`Dialect.read` (a record onto :class:`msgcli.model.Message`, keeping every key;
    never raises), :meth:`Dialect.write` (a message back onto this dialect's JSON, keys in
    the framework's order), :meth:`Dialect.variant`, :meth:`Dialect.assembler` (a message
    written over several records), :meth:`Dialect.record_out`.

Rules on one record (stage ``record``, see :mod:`msgcli.rules`)
    :meth:`Dialect.check` (what needs this dialect's knowledge and is not in the schema;
    calls ``emit(code, message, pointer)``), :meth:`Dialect.record_checker` (a dialect
    checked by its own rules rather than as neutral messages), and the fast path
    :meth:`Dialect.fast_digest` with :attr:`Dialect.fast_covers`, the record rules it
    answers for. The attributes the shared checks read: :attr:`Dialect.keeps_extra_on`,
    :attr:`Dialect.tool_result_roles`, :attr:`Dialect.tool_input_key` (and
    :meth:`Dialect.tool_input_key_of`), the keys findings point at
    (:attr:`Dialect.tool_arguments_key`, :attr:`Dialect.tool_call_id_key`,
    :attr:`Dialect.tool_call_name_key`), :attr:`Dialect.block_word`; and
    :attr:`Dialect.own_rules`, the rules only this dialect's checks report.

Rules across records (stage ``cross-record``)
    :meth:`Dialect.pair_key`, :meth:`Dialect.parse_time`, :meth:`Dialect.time_group`,
    :meth:`Dialect.message_part`, :meth:`Dialect.parked`.

Events (stage ``stream``)
    :meth:`Dialect.prepare_event`, :meth:`Dialect.event_schema`, :meth:`Dialect.replayer`
    (the class :attr:`Dialect.replayer_class` names, :meth:`Dialect.replayer_type`).

Reading commands (show, stats, export, query, diff)
    :meth:`Dialect.finish_reason`, :meth:`Dialect.token_counts`, :meth:`Dialect.aside`,
    :meth:`Dialect.nested_logs`, :meth:`Dialect.nested_inputs`, :meth:`Dialect.thread_of`,
    :meth:`Dialect.parent_session`,
    :meth:`Dialect.same_turn`,
    :attr:`Dialect.stats_details` with :meth:`Dialect.note_stats` and
    :meth:`Dialect.finish_stats`; :meth:`Dialect.responses` (the usage of each model
    response, for ``msgcli usage``; :attr:`Dialect.usage_cache_in_input` gives a dialect
    whose ``token_counts`` are one response each a ready-made one),
    :meth:`Dialect.related_logs` (the logs read along with a file, a session's
    subagents) and :meth:`Dialect.scan_responses` (a lean path for ``msgcli usage``).

Conversion and formatting
    :attr:`Dialect.writer` (:meth:`Dialect.load_writer`), :attr:`Dialect.formatters`
    (:meth:`Dialect.load_formatter`), :meth:`Dialect.carry_record`.

Parallel validation
    :attr:`Dialect.splittable`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from types import MappingProxyType
from typing import Any

import orjson

from ..model import Message, ResponseUsage, TextBlock, ToolCallBlock, Usage
from ..textsafe import short

Emit = Callable[..., None]  # emit(code: str, message: str, pointer: str = "")

MESSAGE = "message"
EVENT = "event"

#: the tags of a tool call and of a tool result in a message digest (see msgcli.checks.digest)
DIGEST_CALL = 0
DIGEST_RESULT = 1

_EPOCH = datetime(1970, 1, 1)

#: the info findings of what is merely new, which only a tolerant dialect's records get
#: (see :attr:`Dialect.tolerant`)
TOLERANT_RULES = frozenset({"U001", "U002", "U003", "U004", "U005"})

#: the role of a message read from a record of a kind msgcli does not know
#: (:meth:`Dialect.read_unknown`), and the key of ``Message.extra`` that marks it
UNKNOWN_ROLE = "unknown"
UNKNOWN_MARK = "msgcli_unknown"


def unknown_kind(obj: dict) -> str:
    """What a record of a kind msgcli does not know is, in words: its ``type`` (or its
    ``object``), else its first keys."""
    for key in ("type", "object"):
        kind = obj.get(key)
        if type(kind) is str and kind:
            return f"record type {short(kind)} is not one msgcli knows"
    keys = ", ".join(short(k) for k in list(obj)[:6]) or "no keys"
    return f"a record of a kind msgcli does not know (keys: {keys})"


def micros(when: datetime) -> int:
    """A naive time as microseconds since 1970 (a digest's time: cheap to send and compare)."""
    since = when - _EPOCH  # (its parts: twice as fast as dividing by a microsecond)
    return since.days * 86_400_000_000 + since.seconds * 1_000_000 + since.microseconds


def object_text(text: str) -> bool:
    """Whether tool-call argument text is a JSON object (what T004/T005 ask of it)."""
    try:
        return type(orjson.loads(text)) is dict
    except orjson.JSONDecodeError:
        return False


def has_words(text: Any) -> bool:
    """Whether a text block's text makes its message non-empty (what B001 asks of it)."""
    return bool(text) and (type(text) is not str or bool(text.strip()))


def id_key(value: Any) -> Any:
    """A message id as the checks across records compare it, for a dialect that compares
    ids as written (``None``: no usable id)."""
    return value if value != "" and isinstance(value, (str, int)) else None


class _Spoke(Exception):
    pass


def _speak(*_args: Any, **_kwargs: Any) -> None:
    raise _Spoke


def says_nothing(check: Callable[..., None], *args: Any) -> bool:
    """Whether ``check(*args, emit)`` finds nothing (it stops at its first finding)."""
    try:
        check(*args, _speak)
    except _Spoke:
        return False
    return True


#: each tuple of known keys :func:`other_keys` was given, as a set
_KNOWN_SETS: dict[Any, frozenset[str]] = {}


def other_keys(obj: dict, known: tuple[str, ...] | frozenset[str]) -> dict[str, Any]:
    """The keys of ``obj`` that are not ``known``, with their values, in their order."""
    keys = _KNOWN_SETS.get(known)
    if keys is None:
        keys = _KNOWN_SETS[known] = frozenset(known)
    if obj.keys() <= keys:
        return {}
    return {k: v for k, v in obj.items() if k not in keys}


def session_of(msg: Message) -> Any:
    """The session or conversation a message belongs to, where its dialect records one:
    LoongFlow's ``conversation_id`` (else ``trace_id``), a coding agent's ``sessionId``
    (Claude Code) or ``sessionID`` (OpenCode), else a ``session_id``/``sessionId`` in the
    metadata (AgentScope applications put it there). ``None`` otherwise."""
    for key in ("conversation_id", "trace_id", "sessionId", "sessionID"):
        value = msg.fields.get(key)
        if isinstance(value, str) and value:
            return value
    meta = msg.metadata
    if isinstance(meta, dict):
        for key in ("session_id", "sessionId", "conversation_id"):
            value = meta.get(key)
            if isinstance(value, str) and value:
                return value
    return None


def iso_time(value: Any) -> datetime | None:
    """A time as coding agents and interchange forms write it (ISO 8601, ``Z`` or an offset)
    as a naive datetime of the clock it was written in, or ``None`` when it is none."""
    if type(value) is not str:
        return None
    try:
        when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return when.replace(tzinfo=None) if when.tzinfo is not None else when


def usage_from(raw: Any, *, extra: tuple[str, ...] = (), **keys: str) -> Usage | None:
    """A :class:`~msgcli.model.Usage` from a producer's usage object: each field of ``Usage``
    named in ``keys`` (``input_tokens="input"``) read from that key where it holds a number,
    the ``extra`` keys that do kept beside them; ``None`` when ``raw`` is no object."""
    if not isinstance(raw, dict):
        return None
    found = {name: value for name, key in keys.items() if is_number(value := raw.get(key))}
    return Usage(**found, extra={k: raw[k] for k in extra if is_number(raw.get(k))})


def _load(target: str) -> Any:
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


def is_number(value: Any) -> bool:
    """A JSON number (``true`` and ``false`` are not numbers, though Python says so)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


class Dialect:
    """One dialect: see the module's docstring for the hooks, grouped by step."""

    #: the name users type (``agentscope-java``); the key of ``msgcli.dialects.DIALECTS``
    name: str = ""
    #: one line for ``msgcli schema list`` and the README
    title: str = ""
    #: the folder holding ``<name>/<kind>.schema.json`` (``None``: msgcli's own schemas)
    schema_root: Path | None = None
    #: a provider's wire form: its signatures are exact keys and type names, so detection
    #: asks it before the framework dialects, and a plain message (a role and text only)
    #: fits it whichever dialect detection gave that message to
    wire_form: bool = False
    #: neutral block types whose unknown keys the framework keeps (so they are no S003)
    keeps_extra_on: frozenset[str] = frozenset()
    #: roles whose messages carry tool results in this dialect (``None``: any role)
    tool_result_roles: frozenset[str] | None = None
    #: the JSON key of a tool call's raw argument text inside the block, if the dialect has one
    tool_input_key: str | None = None
    #: the JSON key of a tool call's arguments object inside the block (for pointers)
    tool_arguments_key: str = "arguments"
    #: the JSON keys of a tool call's id and tool name (for pointers in findings)
    tool_call_id_key: str = "id"
    tool_call_name_key: str = "name"
    #: what the dialect calls the items of ``content`` ("block" or "element")
    block_word: str = "block"
    #: the JSON key of a message's sender, and what a tool call's raw argument text and
    #: arguments object are called in a record (for the notes of ``msgcli format``)
    sender_key: str = "name"
    call_keys: tuple[str, str] = ("input", "arguments")
    #: whether a hint block's text may be a list of parts (else a string only)
    hint_lists: bool = True
    #: whether a ``system`` message holding only tool results answers tool calls
    system_tool_results: bool = False
    #: the rule codes only this dialect's own checks report (and any other dialect that
    #: claims them too): records of the other dialects never get them
    own_rules: frozenset[str] = frozenset()
    #: the ``record``-stage rules (:func:`msgcli.rules.record_rules`) :meth:`fast_digest`
    #: answers for: it answers ``None`` for every record on which one of them could speak.
    #: A record rule its records may get that is missing here fails the test suite
    #: (:func:`msgcli.dialects.uncovered`)
    fast_covers: frozenset[str] = frozenset()
    #: where the typed path of validation for this dialect's message logs lives
    #: (``"module:function"``; the function gives ``(decode, digest)``, see
    #: :meth:`typed_messages`), or ``None``: no typed path
    typed: str | None = None
    #: ``module:class`` of the replayer of this dialect's event logs (``None``: no events)
    replayer_class: str | None = None
    #: whether the dialect's records are told apart from every other dialect's by
    #: :meth:`classify` alone (so a file settled on it asks only it about each record)
    distinct: bool = False
    #: whether the producer's own readers (its SDK, its resume code) skip what they do not
    #: know: a record kind, a field, a block type, a stream event or delta type that msgcli
    #: does not know is then an info finding, kept and counted, never an error (see the
    #: module's text, "What is merely new")
    tolerant: bool = False
    #: whether ``validate -j`` checks a large file of this dialect in parts
    splittable: bool = True
    #: the fewest workers that a single large file of this dialect is cut into parts for
    #: (fewer: it is checked whole, by one; where the checks across records, run over the
    #: parts' digests in the process that owns the file, are a large share of the work, two
    #: workers on two cores gain nothing from the parts and hold twice the memory)
    split_jobs: int = 2
    #: whether ``stats`` asks :meth:`note_stats` about every message
    stats_details: bool = False
    #: whether the id of a message is known only once its records are joined (its
    #: :meth:`assembler` names it from a record read later: a Codex response by the
    #: ``response_id`` of the usage record that closes it, an OpenTelemetry message by the
    #: span it is put together from at the end of the file): a reader of the ids alone
    #: (``show``'s short ids) then joins the records as ``show`` does, where
    #: :meth:`message_id` cannot answer for one record
    ids_need_joining: bool = False
    #: where ``convert``'s writer for this dialect lives (``"module:function"``, the function
    #: taking neutral messages to this dialect's records), or ``None``: not a conversion target
    writer: str | None = None
    #: provider name -> where that provider's formatter for this dialect lives (``"module:attr"``)
    formatters: Mapping[str, str] = MappingProxyType({})
    #: the files other than JSON text its producer keeps logs in (a database, a protobuf
    #: body): :class:`msgcli.containers.Container` each; registering the dialect makes the
    #: directory scan and the reader know them
    containers: tuple[Any, ...] = ()
    #: the rules only this dialect reports (:class:`msgcli.rules.Rule`, codes of a family
    #: of its own): registering the dialect adds them to :data:`msgcli.rules.RULES`, so
    #: ``msgcli rules``, ``--select`` and the README's table know them
    rules: tuple[Any, ...] = ()
    #: whether a message's ``Usage.input_tokens`` counts the prompt tokens read from (and
    #: written to) the provider's cache too, as OpenAI's ``prompt_tokens`` does; ``False``:
    #: they are apart, as Anthropic's ``input_tokens`` (what a conversion that writes the
    #: whole prompt's count, ATIF's ``prompt_tokens``, needs to know)
    input_counts_cache: bool = True
    #: where what ``msgcli rules CODE`` says of those rules lives (``"module:attr"``, a dict
    #: code -> (example, how to fix), as :data:`msgcli.rule_docs.EXPLAINED`), imported only
    #: when asked for
    rule_docs: str | None = None

    def load_writer(self) -> Any:
        """The conversion writer, imported on first use."""
        if self.writer is None:
            raise ValueError(f"msgcli does not write {self.name}")
        return _load(self.writer)

    def load_formatter(self, provider: str) -> Any:
        """The formatter of ``provider`` for this dialect, imported on first use."""
        try:
            return _load(self.formatters[provider])
        except KeyError:
            raise ValueError(f"{self.name} has no formatter for {provider}") from None

    # -- detection -------------------------------------------------------------------------

    def classify(self, obj: dict) -> str | None:
        """``"message"``, ``"event"``, or ``None`` when the record is not of this dialect."""
        raise NotImplementedError

    def document_records(self, value: dict) -> list[tuple[str, dict]] | None:
        """For a log that is one JSON document of this dialect (an ATIF trajectory): the
        records it is read as, ``(JSON pointer, record)`` each, in document order; the
        reader gives each its line. ``None`` (default): ``value`` is no such document."""
        return None

    # -- the record model ------------------------------------------------------------------

    def claims(self, obj: dict) -> str | None:
        """Once a file is settled on this (tolerant) dialect: the kind of a record that
        :meth:`classify` does not take because it holds something new (a key or a block
        type msgcli does not know) though its shape says it is one of this dialect's
        (``None``: a record of a kind msgcli does not know, see :meth:`unknown_record`).
        Default: ``None``."""
        return None

    def is_new(self, obj: dict) -> bool:
        """Whether a record that neither :meth:`classify` nor :meth:`claims` takes, in a file
        settled on this (tolerant) dialect, is of a kind msgcli does not know (kept: an info
        finding) rather than one of this dialect's records gone wrong (a message whose role
        is no role: the error it always was). Default: yes."""
        return True

    def variant(self, obj: dict) -> str | None:
        """The version shape of a message record (e.g. ``"1.x"``, ``"2.x"``), if it tells.

        :meth:`read` records it as ``Message.variant``; later steps use that.
        """
        return None

    def read(self, obj: dict) -> Message:
        raise NotImplementedError

    def unknown_record(self, obj: dict, emit: Emit) -> None:
        """Report a record of a kind no dialect knows in a log of this (tolerant) dialect,
        its file settled: an info finding, nothing else checked. Default: ``U001``, naming
        its ``type`` (or its keys)."""
        emit("U001", f"{unknown_kind(obj)}: kept and counted (a newer {self.title}?)", "")

    def read_unknown(self, obj: dict) -> Message:
        """A record of a kind no dialect knows (see :meth:`unknown_record`) as a message:
        its keys kept in ``fields``, one text block saying what it is, marked so that
        :meth:`aside` keeps it out of ``show`` without ``--all`` and conversion leaves
        it out (X002). Default: role ``unknown``."""
        ident = obj.get("id")
        msg = Message(
            self.name,
            role=UNKNOWN_ROLE,
            id=ident if isinstance(ident, (str, int)) and not isinstance(ident, bool) else None,
            timestamp=obj.get("timestamp"),
            fields=dict(obj),
        )
        msg.content.append(TextBlock("text", text=unknown_kind(obj), path=()))
        msg.extra[UNKNOWN_MARK] = True
        return msg

    def message_id(self, obj: dict) -> Any:
        """The id :meth:`read` gives the message of this record, for a reader that needs the
        ids alone (``show``'s short ids); for a dialect with an :meth:`assembler`, the id of
        the message the record is joined into (where a record cannot tell, the dialect sets
        :attr:`ids_need_joining` and this is not asked). Default: the record read whole."""
        return self.read(obj).id

    def write(self, msg: Message) -> dict:
        """One neutral message as a record of this dialect (a dialect whose records are
        written a turn at a time, through its ``writer``, has none)."""
        raise NotImplementedError(f"{self.name} records are written by its conversion writer")

    def assembler(self) -> Any:
        """For a dialect that writes one message over several records: an object whose
        ``feed(line, record)`` and ``finish()`` give back ``(line, record)`` pairs with those
        records joined, for the commands that read (show, stats, convert), and whose
        ``holding`` is the first line of a message whose records are being held (None when
        there is none: a notice of a line read meanwhile is held too, and follows the
        message out, in file order). Default: none, every record is a message."""
        return None

    def record_out(self, record: dict) -> dict:
        """A record read from a log as ``msgcli query`` writes it back: without what msgcli
        noted on it while reading. Default: the record as read."""
        return record

    # -- rules on one record (stage "record") ----------------------------------------------

    def check(self, obj: dict, msg: Message, emit: Emit) -> None:
        """Dialect-specific per-record checks beyond the schema. Default: none."""

    def fast_digest(self, obj: dict) -> tuple[str | None, tuple] | None:
        """``(variant, digest)`` of a schema-valid record that no per-record rule faults.

        The fast path of validation: a dialect may answer for the records of the
        shape its framework writes, reading only the dict, and must answer
        ``None`` for anything else, or whenever :meth:`check` or
        :func:`msgcli.checks.check_message` could have something to say. The
        digest must be the one :func:`msgcli.checks.digest` makes of
        :meth:`read`'s message. A dialect that has one lists in :attr:`fast_covers` the
        record rules it answers for. Default: no fast path.
        """
        return None

    def typed_messages(self) -> tuple[Callable[[bytes], Any], Callable[[Any], Any]] | None:
        """The typed path of validation (:mod:`msgcli.engine`): ``decode(line)`` reads a
        JSONL line straight into the types of the records the framework writes (and raises
        on anything else), and ``digest(value)`` answers what :meth:`fast_digest` answers of
        the same record as a dict: ``(variant, digest)``, or ``None`` whenever a rule could
        speak. A record either refuses goes the whole way. ``None``: no typed path."""
        return None if self.typed is None else _load(self.typed)()

    def tool_input_key_of(self, block: ToolCallBlock) -> str | None:
        """The JSON key holding this tool call's argument text (default: ``tool_input_key``)."""
        return self.tool_input_key

    def record_checker(self, emit: Emit, name: str) -> Any:
        """For a dialect whose files are checked by its own rules rather than as neutral
        messages: an object with ``check(obj, recovered)`` (``emit`` reports at the line
        being checked) and ``finish()``. Default: none."""
        return None

    # -- rules across records (stage "cross-record") ---------------------------------------

    def pair_key(self, call_id: Any) -> Any:
        """The form in which ids (of messages and tool calls) are compared (default: as written)."""
        return call_id

    def parse_time(self, value: Any) -> datetime | None:
        """The message time as a datetime (naive = the dialect's own zone), or ``None``."""
        return None

    def time_group(self, msg: Message) -> Any:
        """Messages are compared for time order within one group (default: the whole file)."""
        return None

    def time_follows(self, msg: Message) -> bool:
        """Whether a message is only compared with the latest time before it in its group,
        without becoming that latest time itself: a message its framework stamps at another
        moment than the one it is put in order at (default: none)."""
        return False

    def message_part(self, msg: Message) -> Any:
        """What tells apart two records of one message that its framework writes as parts
        of it (e.g. the first block's id), or ``None`` when the framework never splits a
        message (default): then a recurring message id is always a duplicate (I001)."""
        return None

    def parked(self, metadata: Any) -> bool:
        """Whether a message with this metadata says its unanswered tool calls wait for
        someone by design (a paused session); default: no dialect says so."""
        return False

    # -- events (stage "stream") -----------------------------------------------------------

    def prepare_event(self, raw: bytes, obj: dict, emit: Emit) -> None:
        """Bring an event record into the form its schema and replay expect (in place),
        reporting what that took. ``raw`` is the record's JSON text, when known.
        Default: nothing to do."""

    def event_schema(self, obj: dict) -> str:
        """The name of the schema an event record is checked against (default: the
        dialect's one event schema)."""
        return f"{self.name}/event"

    def replayer(self, emit: Emit, sink: Any = None, zone: Any = None) -> Any:
        """The replayer of this dialect's event logs (a :class:`msgcli.replayers.Replayer`),
        ``KeyError`` when the dialect has none. ``zone``: the zone the log's message times are
        written in, for a dialect that writes them without one (``None``: UTC)."""
        return self.replayer_type()(emit, sink)

    def replayer_type(self) -> Any:
        """The class named by :attr:`replayer_class`, imported on first use."""
        if not self.replayer_class:
            raise KeyError(f"{self.name} has no event stream to replay")
        return _load(self.replayer_class)

    # -- reading commands: show, stats, export, query, diff --------------------------------

    def finish_reason(self, msg: Message) -> Any:
        """How a reply ended, as the message records it (default: the dialect does not say)."""
        return None

    def token_counts(self, msg: Message) -> tuple[Any, Any, Any] | None:
        """``(input, output, cached)`` tokens a message reports, or ``None`` (default: usage)."""
        usage = msg.usage
        if usage is None:
            return None
        return usage.input_tokens, usage.output_tokens, usage.cached_tokens

    def aside(self, msg: Message) -> bool:
        """Whether ``msgcli show`` leaves this message out unless asked for ``--all``
        (a record that is not part of the conversation). Default: a record of a kind msgcli
        does not know (:meth:`read_unknown`), no other."""
        return UNKNOWN_MARK in msg.extra

    def nested_logs(self, path: str, msg: Message) -> list[tuple[str, str]]:
        """``(title, path)`` of the logs ``msgcli show`` nests under this message (a
        subagent's transcript under the call that started it). Default: none."""
        return []

    def nested_inputs(self, sources: list[Any]) -> set[str]:
        """Of the inputs of one ``show`` (paths, as given), those that another input nests
        through :meth:`nested_logs` (a sub-agent's log whose parent is among them): shown
        under the call that started them, not a second time. Default: none."""
        return set()

    def thread_of(self, msg: Message) -> tuple[Any, Any, Any]:
        """``(session id, agent id, is sidechain)`` of a message, for the tables of
        ``msgcli export`` and ``msgcli query``: which session it belongs to, which agent
        (a subagent's id) wrote it, and whether it is off the main thread. Default: the
        session the message records (if any), no agent, not said."""
        return session_of(msg), None, None

    def parent_session(self, msg: Message, path: str = "") -> Any:
        """The session a message's session was forked from or spawned by (a fork's source, a
        sub-agent's parent session or thread), for the ``parent_session_id`` column of
        ``msgcli export`` and ``msgcli query``; ``path``: the log the message was read from
        (a dialect whose sub-agent logs sit in their parent's folder tells it from there).
        Default: ``None``, the dialect records none."""
        return None

    def same_turn(self, before: Message, msg: Message) -> bool:
        """Whether ``msg`` continues the turn of the message ``before`` it: a dialect that
        writes one reply as several records (one per output item) says so, and ``diff``
        compares them as the one message other dialects write. Default: never."""
        return False

    def note_stats(self, msg: Message, details: dict) -> None:
        """Count what only this dialect has into ``details`` (``msgcli stats`` shows it as
        it is, keyed by the dialect); called for every message when ``stats_details``."""

    #: ``msgcli usage`` from :meth:`token_counts`: each message it counts is one model
    #: response, its input tokens including those read from the cache (``True``: OpenAI's
    #: ``prompt_tokens``, which the cached tokens are part of) or not (``False``:
    #: Anthropic's ``input_tokens``, and frameworks that keep the two apart). ``None``: the
    #: default :meth:`responses` gives nothing
    usage_cache_in_input: bool | None = None
    #: whether the output count :meth:`token_counts` gives holds the reasoning tokens (as
    #: OpenAI's ``output_tokens`` and Anthropic's do); Gemini's ``candidatesTokenCount``
    #: leaves its thoughts out, and its :meth:`responses` adds them to ``output``, as billed
    output_holds_reasoning: bool = True

    def responses(self, msg: Message) -> list[ResponseUsage]:
        """The model responses whose usage ``msg`` records, each once (a record that repeats
        a response already counted gives none, or gives it with the same
        :attr:`~msgcli.model.ResponseUsage.key`). Default: none, unless
        :attr:`usage_cache_in_input` is set: then the message :meth:`token_counts` counts is
        one response, with the cache writes and reasoning tokens its usage records."""
        if self.usage_cache_in_input is None:
            return []
        counts = self.token_counts(msg)
        if counts is None:
            return []
        return [response_usage(self, msg, counts, self.usage_cache_in_input)]

    def related_logs(self, path: str) -> list[tuple[str, str]]:
        """``(agent, path)`` of the logs that belong to the log at ``path`` and are read
        with it by ``msgcli usage`` (a Claude Code session's subagent files beside it), each
        counted once however it is reached. Default: none."""
        return []

    def scan_responses(self, path: str) -> list[ResponseUsage] | None:
        """The responses of the local file at ``path``, found without reading every record
        (a lean path for ``msgcli usage``: the same responses :meth:`responses` gives over
        the file's messages), or ``None`` where the file is not one the lean path knows, or
        anything in it is not plain: the file is then read whole. Default: ``None``."""
        return None

    def finish_stats(self, path: str, details: dict, count: Callable[..., Any]) -> None:
        """Complete ``details`` once the file at ``path`` is read; ``count(path, name=...)``
        counts another file as ``msgcli stats`` does (a :class:`msgcli.stats.FileStats`)."""

    # -- conversion ------------------------------------------------------------------------

    def carry_record(self, record: dict) -> Any:
        """What ``convert`` keeps of a record of this dialect (one without a ``writer``) in
        the target's metadata, beside the blocks it converted. Default: the record."""
        return record


def _count(value: Any) -> int:
    return value if is_number(value) and value >= 0 else 0


def model_of(msg: Message) -> str | None:
    """The model a message names: in its fields, its extra keys or its metadata."""
    for where in (msg.fields, msg.extra, msg.metadata):
        if isinstance(where, dict):
            for key in ("model", "model_name", "modelName"):
                value = where.get(key)
                if isinstance(value, str) and value:
                    return value
    return None


def aware_time(dialect: Dialect, value: Any) -> datetime | None:
    """A message's time as an aware datetime (a time without a zone is taken as UTC)."""
    if value is None:
        return None

    when = dialect.parse_time(value)
    if when is None:
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def response_usage(
    dialect: Dialect, msg: Message, counts: tuple[Any, Any, Any], cache_in_input: bool
) -> ResponseUsage:
    """One response from the ``(input, output, cached)`` counts of :meth:`Dialect.token_counts`
    and the rest of the message's usage (see :attr:`Dialect.usage_cache_in_input`)."""
    inp, out, cached = (_count(v) for v in counts)
    usage = msg.usage
    write = _count(usage.cache_creation_tokens) if usage is not None else 0
    if cache_in_input:
        inp = max(inp - cached, 0)
    return ResponseUsage(
        model=model_of(msg),
        input=inp,
        output=out,
        cache_read=cached,
        cache_write=write,
        reasoning=_count(msg.fields.get("reasoning_tokens")),
        time=aware_time(dialect, msg.timestamp),
        session=session_of(msg),
    )
