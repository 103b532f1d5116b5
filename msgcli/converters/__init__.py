"""Converting message logs between dialects (``msgcli convert``).

:class:`Converter` takes the messages of one log in order and gives the target
dialect's records, a group at a time: a message and the tool messages that answer
it, read into a :class:`msgcli.model.Turn` (:mod:`msgcli.converters.base`) and
written by the writer the target dialect names (``Dialect.writer``: one module per
target in this package). With ``carry`` (the default)
the first record of each group holds, under ``metadata._msgcli.<source
dialect>``, what the target has no place for, as a patch
(:mod:`msgcli.converters.carry`); converting back applies it, so a round trip
gives the original records. Without ``carry`` each record that loses
something gets an X002 finding naming what.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, tzinfo
from typing import Any

from ..dialects import DIALECTS, get_dialect
from ..guard import MAX_DEPTH, deep_recursion, nests_deeper
from ..model import Block, Message, TextBlock, ToolCallBlock, ToolResultBlock, Turn
from . import carry
from .base import Out, Writer, is_tool_message, read_turn, writer_of
from .text import aware, dashed, id_key, made_id

__all__ = ["CARRY_KEY", "Converter", "targets"]

#: the metadata key under which a conversion keeps what the target has no place for
CARRY_KEY = "_msgcli"

Report = Callable[[int, str, str, str], None]  # report(line, code, message, pointer)

#: the time written for a message when neither it nor anything before it has one
_EPOCH = datetime(1970, 1, 1)


def _quiet(*_: Any) -> None:
    pass


def targets() -> tuple[str, ...]:
    """The dialects ``convert`` writes (those that name a writer), in the registry's order."""
    return tuple(name for name, d in DIALECTS.items() if d.writer is not None)


class Converter:
    """Converts one log's messages, in order, into ``target``'s records.

    ``feed(line, message, record)`` returns the records that are complete;
    ``finish()`` the rest. ``local`` is the zone of AgentScope's local times
    (``None``: this machine's). ``report(line, code, message, pointer)`` hears
    of every loss.
    """

    def __init__(
        self,
        target: str,
        *,
        carry: bool = True,
        local: tzinfo | None = None,
        report: Report = _quiet,
    ):
        dialect = DIALECTS.get(target)
        if dialect is None or dialect.writer is None:
            raise ValueError(f"unknown dialect {target!r}: pick one of {', '.join(targets())}")
        self.target = target
        self.dialect = dialect
        self.writer: Writer = dialect.load_writer().session()
        self._sources: dict[str, Writer] = {}
        self.carry = carry
        self.local = local
        self.report = report
        self._group: list[tuple[int, Message, dict]] = []
        self._ordinals: list[int] = []  # where on its line each message of the group stands
        self._wanted = 0  # the size of a group a conversion made (0: group by the rule)
        self._patch: Any = None
        #: whether the messages are rebuilt from events (not records to pass on as they are)
        self.replayed = False
        self._at: tuple[int, int] = (-1, 0)  # the line of the last message, and its place there
        self._taken: set[str] = set()  # the message ids written so far
        self._names: dict[Any, Any] = {}  # tool call id -> the tool's name
        self._last_when: datetime | None = None  # the time of the latest message written
        self._fills: dict[str, list[int]] = {}  # what was filled in -> [count, first line]
        self._chain: _Chain | None = None  # messages on their way back to another dialect first

    # -- grouping ------------------------------------------------------------------

    def feed(self, line: int, message: Message, record: dict) -> list[dict]:
        chain = self._chain
        if chain is None and self._group and self._wanted:  # (the rest of a group)
            return self._feed(line, message, record)
        if chain is not None and (chain.busy() or self._via(message) == chain.via):
            return chain.feed(line, message, record)
        done = self._unchain()
        via = self._via(message)
        if via is not None:
            if self._group:  # (what came before goes out before what goes back first)
                done.extend(self._flush())
            chain = self._chain = _Chain(via, self)
            return done + chain.feed(line, message, record)
        return done + self._feed(line, message, record)

    def _feed(self, line: int, message: Message, record: dict) -> list[dict]:
        group = self._group
        last, ordinal = self._at
        self._at = (line, ordinal + 1 if line == last else 0)
        if group and self._wanted:
            group.append((line, message, record))
            self._ordinals.append(self._at[1])
            if len(group) >= self._wanted:
                return self._flush()
            return []
        if (
            group
            and is_tool_message(message, self._source(message.dialect))
            and message.dialect == group[0][1].dialect
        ):
            group.append((line, message, record))
            self._ordinals.append(self._at[1])
            return []
        done = self._flush() if group else []
        entry = self._entry(message)
        self._patch = entry.get("patch") if entry else None
        wanted = entry.get("n") if entry else None
        self._wanted = wanted if isinstance(wanted, int) and wanted > 1 else 0
        self._group.append((line, message, record))
        self._ordinals.append(self._at[1])
        if entry and not self._wanted:
            done.extend(self._flush())
        return done

    def finish(self) -> list[dict]:
        done = self._unchain()
        done.extend(self._flush() if self._group else [])
        note = self.report

        def noted(line: int, ptr: str, text: str) -> None:
            note(line, "X001", text, ptr)

        done.extend(self.writer.finish(Out(self.dialect, self.local, noted)))
        for what, (count, line) in self._fills.items():
            self.report(line, "X003", f"{count} {what}", "")
        self._fills.clear()
        return done

    def busy(self) -> bool:
        """Whether the converter holds part of a group a conversion made (it knows how many
        records are still to come)."""
        return bool(self._group and self._wanted) or (
            self._chain is not None and self._chain.busy()
        )

    def _via(self, message: Message) -> str | None:
        """The dialect a message must go back to first, on its way back to the target: the
        one it was converted from last (the latest entry of what conversions kept in its
        metadata), when the target has an earlier entry there. Going back step by step,
        each with what its conversion kept, makes A → B → C → A give A's records again
        (what an earlier conversion carried included), as A → B → A does."""
        metadata = message.metadata
        if not isinstance(metadata, dict):
            return None
        kept = metadata.get(CARRY_KEY)
        if not isinstance(kept, dict):
            return None
        entry = kept.get(self.target)
        if not isinstance(entry, dict) or "patch" not in entry:
            return None  # (no way back to the target: converted from here)
        last = None
        for key, entry in kept.items():
            if isinstance(entry, dict) and "patch" in entry and key in DIALECTS:
                last = key
        if last is None or last in (self.target, message.dialect):
            return None
        return last if DIALECTS[last].writer is not None else None

    def _unchain(self) -> list[dict]:
        """What the messages that went back to another dialect first still hold."""
        chain, self._chain = self._chain, None
        return chain.finish() if chain is not None else []

    def _fill(self, line: int, what: str) -> None:
        """Count a stand-in written for what the source has no value for (X003, said once
        per kind at the end, at the first line it was needed)."""
        seen = self._fills.get(what)
        if seen is None:
            self._fills[what] = [1, line]
        else:
            seen[0] += 1

    def _source(self, dialect: str) -> Writer:
        """What describes the messages of ``dialect`` as a source (its writer)."""
        found = self._sources.get(dialect)
        if found is None:
            found = self._sources[dialect] = writer_of(dialect)
        return found

    def _entry(self, message: Message) -> dict | None:
        """What an earlier conversion from the target dialect kept in this message."""
        metadata = message.metadata
        if not isinstance(metadata, dict):
            return None
        kept = metadata.get(CARRY_KEY)
        entry = kept.get(self.target) if isinstance(kept, dict) else None
        return entry if isinstance(entry, dict) else None

    # -- converting a group -----------------------------------------------------------

    def _flush(self) -> list[dict]:
        group, patch, ordinals = self._group, self._patch, self._ordinals
        self._group, self._patch, self._wanted, self._ordinals = [], None, 0, []
        source = group[0][1].dialect
        target = self.target
        if (
            source == target
            and self.writer.checks_back
            and not self.replayed
            and all(
                m.variant != "1.x" and self.dialect.classify(record) is not None
                for _, m, record in group
            )
        ):
            # already records of the target dialect (not a message a request holds, such
            # as its system prompt, nor one rebuilt from events): written as they are
            return [record for _, _, record in group]
        with deep_recursion():  # the patch is made and applied by walking the records
            return self._convert(group, patch, ordinals)

    def _convert(
        self, group: list[tuple[int, Message, dict]], patch: Any, ordinals: list[int]
    ) -> list[dict]:
        source = group[0][1].dialect
        target = self.target

        def note(line: int, ptr: str, text: str) -> None:
            self.report(line, "X001", text, ptr)

        turn = read_turn(
            [(line, self._named(line, m, patch is None)) for line, m, _ in group],
            self._source(source),
            self.local,
            self._strip,
            ordinals,
        )
        if self.writer.stamps:
            self._stamp(turn, patch is None)
        # on the way back, what the target has no counterpart for was kept: no loss to report
        out = Out(self.dialect, self.local, note if patch is None else _quiet, self._taken)
        if patch is None:
            out.fill = self._fill
        records = self.writer(turn, out)
        if patch is not None:
            # the way back: what the earlier conversion kept makes the records whole again
            return list(carry.apply(records, patch))
        if source == target:
            # an older shape of the same dialect: 2.x keeps tool results in the message of
            # their calls, so the messages that held them are folded in, ids and times gone
            for line, message, _ in group[1:]:
                self.report(
                    line,
                    "X002",
                    f"this {message.variant} tool-result message is folded into the message on "
                    f"line {group[0][0]}, as 2.x records results: its id {message.id!r} and "
                    "time are dropped",
                    "",
                )
            return records
        if not self.writer.checks_back:
            return records  # (the writer says itself what has no place: see Writer)
        if get_dialect(source).writer is None or not self._source(source).checks_back:
            return self._one_way(group, records)
        if self.writer.document:
            return records  # (a document's parts are no records to convert back one by one)
        back = self._back(records, source)
        originals = [_without(record, target) for _, _, record in group]
        lost = carry.diff(originals, back)
        if lost is None:
            if not (self.carry and _carries(group[0][1])):
                return records
            # nothing lost, but the message carries _msgcli: an empty entry says it was
            # converted from here last, so a way back to an earlier entry goes through here
            lost = {}
        if self.carry and self.writer.has_metadata:  # e.g. provider messages have none
            metadata = records[0].get("metadata")
            if not isinstance(metadata, dict):
                metadata = records[0]["metadata"] = {}
            kept = metadata.get(CARRY_KEY)
            empty = kept == {}  # (kept so, on the way back)
            kept = dict(kept) if isinstance(kept, dict) else {}
            kept.pop(source, None)  # (the latest conversion's entry comes last)
            kept[source] = {"n": len(records), "patch": lost}
            if empty:
                kept[source]["empty"] = True
            metadata[CARRY_KEY] = kept
            if nests_deeper(records[0], MAX_DEPTH - 1):
                # a patch doubles the depth of the path to what it keeps: past what JSON
                # readers take, keep the records whole instead (a few levels over them)
                kept[source] = {**kept[source], "patch": {"=": originals}}
        else:
            self._report_lost(group, lost)
        return records

    def _named(self, line: int, message: Message, report: bool) -> Message:
        """The message with a tool name on each tool result: a result that names none (an
        OpenAI tool message, an Anthropic ``tool_result``) takes the name of its call, or
        ``""`` (X003) where the log holds no call with its id. A model's refusal with no
        content beside it (OpenAI's ``refusal``) is the message's text (X001)."""
        refusal = message.fields.get("refusal")
        if not message.content and isinstance(refusal, str) and refusal:
            if report:
                self.report(
                    line,
                    "X001",
                    f"the model's refusal has no {self.dialect.title} counterpart: written as "
                    "the message's text",
                    "/refusal",
                )
            message = replace(message, content=[TextBlock(type="text", text=refusal)])
        elif not message.content and message.usage is not None and report:
            # a model's response that used tokens and holds nothing: its log did not record
            # the content (a trace whose content capture was off)
            self.report(
                line,
                "X001",
                "the model's response holds no content (its log did not record it): written "
                "with none, which the target reads as an empty message (B001)",
                "",
            )
        names = self._names
        bare = False
        for block in message.content:
            if isinstance(block, ToolCallBlock):
                if isinstance(block.name, str):
                    names[id_key(block.id)] = block.name
            elif isinstance(block, ToolResultBlock) and (
                not isinstance(block.name, str) or block.id is None
            ):
                bare = True
        if not bare:
            return message
        content: list[Block] = []
        for index, block in enumerate(message.content):
            if isinstance(block, ToolResultBlock) and block.id is None:
                # (a trace's execute_tool span that names no call id): the targets pair a
                # result with its call by id, and want one
                made = dashed(made_id(message.id, line, index, "result"))
                if report:
                    self.report(
                        line,
                        "X001",
                        f"a tool result names no call id (nor does the log hold its call): "
                        f"written with the made id {made!r}, which answers no call (T001)",
                        "",
                    )
                block = replace(block, id=made)
            if isinstance(block, ToolResultBlock) and not isinstance(block.name, str):
                name = names.get(id_key(block.id))
                if name is None:
                    name = ""
                    if report:
                        self._fill(
                            line,
                            "tool result(s) with no tool name and no call in the log: "
                            'written with the name ""',
                        )
                block = replace(block, name=name)
            content.append(block)
        return replace(message, content=content)

    def _stamp(self, turn: Turn, report: bool) -> None:
        """A time for each message of the turn that has none, which the target requires:
        the time of the turn's first block that has one, else of the message before it,
        else 1970-01-01 00:00:00 in the target's zone (X003)."""
        times = turn.times
        for index, when in enumerate(times):
            if when is None:
                if turn.block_times:
                    when = min(turn.block_times.values())
                elif self._last_when is not None:
                    when = self._last_when
                else:
                    when = aware(_EPOCH, self.local, self.writer.utc)
                times[index] = when
                if report:
                    self._fill(
                        turn.lines[index],
                        f"message(s) with no time, which {self.dialect.title} requires: "
                        "written with the time of their first block, else of the message "
                        "before them, else 1970-01-01 00:00:00",
                    )
            self._last_when = when

    def _one_way(self, group: list[tuple[int, Message, dict]], records: list[dict]) -> list[dict]:
        """A dialect msgcli does not write cannot be rebuilt from a patch: with carry, the
        first record keeps what the source dialect says beside the blocks it converted."""
        source = group[0][1].dialect
        dialect = get_dialect(source)
        if not self.carry or not self.writer.has_metadata:
            where = (
                f"{self.target} messages have no metadata to keep it in"
                if self.carry
                else "run without --no-carry to keep it in metadata._msgcli"
            )
            self.report(
                group[0][0],
                "X002",
                f"what {dialect.title} records beside the message content (its ids, links and "
                f"structured tool results) is dropped ({where})",
                "",
            )
            return records
        metadata = records[0].get("metadata")
        if not isinstance(metadata, dict):
            metadata = records[0]["metadata"] = {}
        kept = metadata.get(CARRY_KEY)
        kept = dict(kept) if isinstance(kept, dict) else {}
        kept[source] = {"records": [dialect.carry_record(record) for _, _, record in group]}
        metadata[CARRY_KEY] = kept
        return records

    def _back(self, records: list[dict], source: str) -> list[dict]:
        """What converting ``records`` straight back to ``source`` gives."""
        messages = [(0, self.dialect.read(record)) for record in records]
        turn = read_turn(messages, self._source(self.target), self.local, _keep)
        return self._source(source)(turn, Out(get_dialect(source), self.local, _quiet))

    def _strip(self, metadata: Any) -> Any:
        """Metadata without what an earlier conversion from the target kept in it."""
        return _stripped(metadata, self.target)

    def _report_lost(self, group: list[tuple[int, Message, dict]], lost: dict) -> None:
        items = lost.get("[]") if isinstance(lost, dict) else None
        if not isinstance(items, dict):  # the messages were regrouped: say so once
            where = ", ".join(carry.paths(lost)[:1]) or "/"
            self.report(
                group[0][0],
                "X002",
                f"converting back cannot rebuild these {len(group)} message(s) as they were "
                f"(at {where}); run without --no-carry to keep them",
                "",
            )
            return
        for index, sub in items.items():
            line = group[int(index)][0]
            found = carry.paths(sub)
            keys = list(dict.fromkeys(p.rsplit("/", 1)[-1] for p in found))
            shown = ", ".join(keys[:8]) + (f" and {len(keys) - 8} more" if len(keys) > 8 else "")
            self.report(
                line,
                "X002",
                f"{get_dialect(self.target).title} has no place for {len(found)} value(s) of this "
                f"record ({shown}): dropped (run without --no-carry to keep them in "
                "metadata._msgcli)",
                carry.common_pointer(found),
            )


class _Chain:
    """Messages of a converted log going back to the dialect they were converted from
    (``via``, by what that conversion kept) and on from there to the target: two converters,
    the second as any (its messages may go back further first).

    The records of ``via`` are numbered as the log they came from was, a record a line
    (what ids made on the way on are made from, so they are the ones the first conversion
    made); findings are said at the lines of the log read."""

    def __init__(self, via: str, outer: Converter):
        self.via = via
        self.report = outer.report
        self.back = Converter(via, carry=outer.carry, local=outer.local, report=outer.report)
        self.on = Converter(outer.target, carry=outer.carry, local=outer.local, report=self._said)
        self.back.replayed = self.on.replayed = outer.replayed
        self._read = get_dialect(via).read
        self._lines: dict[int, int] = {}  # the number of a record of ``via`` -> its line read
        self._count = 0

    def busy(self) -> bool:
        # (the onward converter may wait for the rest of a group, which comes this way)
        return self.back.busy() or self.on.busy()

    def feed(self, line: int, message: Message, record: dict) -> list[dict]:
        return self._on(line, self.back.feed(line, message, record))

    def finish(self) -> list[dict]:
        done = self._on(0, self.back.finish())
        done.extend(self.on.finish())
        return done

    def _on(self, line: int, records: list[dict]) -> list[dict]:
        done: list[dict] = []
        for record in records:
            self._count += 1
            self._lines[self._count] = line
            done.extend(self.on.feed(self._count, self._read(record), record))
        return done

    def _said(self, line: int, code: str, message: str, pointer: str) -> None:
        self.report(self._lines.get(line, line), code, message, pointer)


def _carries(message: Message) -> bool:
    """Whether a message's metadata holds ``_msgcli`` (what conversions, or a tool, kept)."""
    metadata = message.metadata
    return isinstance(metadata, dict) and isinstance(metadata.get(CARRY_KEY), dict)


def _keep(metadata: Any) -> Any:
    return metadata


def _without(record: dict, target: str) -> dict:
    """A record as the way back rebuilds it: without what a conversion from ``target``
    kept in its metadata (the way back uses that, it does not write it again)."""
    metadata = record.get("metadata")
    stripped = _stripped(metadata, target)
    if stripped is metadata:
        return record
    out = dict(record)
    out["metadata"] = stripped
    return out


def _stripped(metadata: Any, target: str) -> Any:
    """Metadata without the entry a conversion from ``target`` kept in it (``_msgcli``
    goes with its last entry, unless it was there, empty, before that conversion)."""
    if not isinstance(metadata, dict):
        return metadata
    kept = metadata.get(CARRY_KEY)
    if not isinstance(kept, dict) or target not in kept:
        return metadata
    out = dict(metadata)
    rest = {k: v for k, v in kept.items() if k != target}
    entry = kept[target]
    if rest or (isinstance(entry, dict) and entry.get("empty") is True):
        out[CARRY_KEY] = rest
    else:
        del out[CARRY_KEY]
    return out
