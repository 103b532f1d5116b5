"""Rebuilding Responses streams, as the SDK's ``ResponseStreamState`` does.

The response written is the one ``response.completed`` carries (its ``created_at`` and
``completed_at`` as the SDK's floats); the deltas before it are rebuilt item by item,
keyed by ``output_index``, and checked against each ``response.output_item.done`` and
against the completed response (E018 names both lines). A stream that ends otherwise
(``response.incomplete``, ``response.failed``, an ``error`` event, a cut) is written
from what arrived: the terminal response when there is one, else the items rebuilt from
the deltas (reasoning summary text included, which the SDK does not accumulate).
"""

from __future__ import annotations

from typing import Any

from ...guard import as_key
from ...replayers import listed
from ...textsafe import short
from ..wire import WireReplayer, joined, parse_arguments

_TERMINAL = ("response.completed", "response.incomplete", "response.failed")
_FLOAT_TIMES = ("created_at", "completed_at")


class ResponsesReplayer(WireReplayer):
    known_types = frozenset(
        {
            "response.created",
            "response.in_progress",
            "response.queued",
            "response.output_item.added",
            "response.output_item.done",
            "response.content_part.added",
            "response.content_part.done",
            "response.output_text.delta",
            "response.output_text.done",
            "response.output_text.annotation.added",
            "response.refusal.delta",
            "response.refusal.done",
            "response.function_call_arguments.delta",
            "response.function_call_arguments.done",
            "response.reasoning_summary_part.added",
            "response.reasoning_summary_part.done",
            "response.reasoning_summary_text.delta",
            "response.reasoning_summary_text.done",
            "response.reasoning_text.delta",
            "response.reasoning_text.done",
            "response.completed",
            "response.incomplete",
            "response.failed",
            "error",
        }
    )

    #: the keys of every event type the SDK knows (openai's ``Response*Event`` models)
    event_keys = frozenset(
        {
            "type",
            "sequence_number",
            "response",
            "output_index",
            "item",
            "item_id",
            "content_index",
            "part",
            "delta",
            "text",
            "logprobs",
            "obfuscation",
            "arguments",
            "summary_index",
            "status",
            "code",
            "message",
            "param",
            "error",
            "annotation",
            "annotation_index",
            "refusal",
            "name",
        }
    )

    def __init__(self, emit, sink=None):
        super().__init__(emit, sink)
        self.lean_types = self.known_types - {"error"}  # (an error object may be either API's)
        self.response: dict | None = None
        self.items: dict[Any, dict] = {}  # output_index -> item as rebuilt
        self.item_line: dict[Any, int] = {}  # output_index -> line of its last delta

    def event(self, line: int, event: dict) -> None:
        part: Any
        content: Any
        summary: Any
        kind = as_key(event.get("type"))
        if kind not in self.known_types:
            self.unknown(kind)
            return
        self.count(kind)
        self.new_keys(event)
        if kind == "response.output_text.delta":
            item = self._item(event, "message")
            if item is not None:
                part = _part(item, as_key(event.get("content_index")), "output_text", self.emit)
                part["text"] = joined(part.get("text"), event.get("delta"))
                self.item_line[as_key(event.get("output_index"))] = line
            return
        if kind == "response.created":
            if self.response is not None:
                self.close(line - 1, "cut")
            self._open(line, event)
            return
        if kind == "error":
            nested = event.get("error")
            error: dict = nested if type(nested) is dict else event
            self.emit(
                "E016",
                f"the stream reports an error ({short(error.get('code'))}: "
                f"{short(error.get('message'))}); the response ends here",
                "/error" if error is not event else "/message",
            )
            self.close(line, "error", report=False)
            return
        if self.response is None:
            self.emit(
                "E002",
                f"a {kind} event before response.created (the SDK raises 'Expected to have "
                "received `response.created`'); the response is rebuilt from here",
                "/type",
            )
            self._open(line, {})
        response = self.response
        assert response is not None
        if kind == "response.in_progress" or kind == "response.queued":
            given = event.get("response")
            if type(given) is dict:
                response.update({k: v for k, v in given.items() if k != "output"})
        elif kind == "response.output_item.added":
            index = as_key(event.get("output_index"))
            item = event.get("item")
            if index in self.items:
                self.emit(
                    "E003", f"output item {short(index)} is added a second time", "/output_index"
                )
            self.items[index] = _copy(item) if type(item) is dict else {}
            self.item_line[index] = line
        elif kind == "response.content_part.added":
            item = self._item(event, "message")
            if item is not None:
                content = item.get("content")
                if type(content) is not list:
                    content = item["content"] = []
                part = event.get("part")
                index = as_key(event.get("content_index"))
                if type(index) is int and 0 <= index < len(content):
                    content[index] = _copy(part) if type(part) is dict else {}
                else:
                    content.append(_copy(part) if type(part) is dict else {})
        elif kind == "response.refusal.delta":
            item = self._item(event, "message")
            if item is not None:
                part = _part(item, as_key(event.get("content_index")), "refusal", self.emit)
                part["refusal"] = joined(part.get("refusal"), event.get("delta"))
                self.item_line[as_key(event.get("output_index"))] = line
        elif kind == "response.function_call_arguments.delta":
            item = self._item(event, "function_call")
            if item is not None:
                item["arguments"] = joined(item.get("arguments"), event.get("delta"))
                self.item_line[as_key(event.get("output_index"))] = line
        elif kind == "response.reasoning_summary_part.added":
            item = self._item(event, "reasoning")
            if item is not None:
                summary = item.get("summary")
                if type(summary) is not list:
                    summary = item["summary"] = []
                part = event.get("part")
                summary.append(_copy(part) if type(part) is dict else {"type": "summary_text"})
        elif kind == "response.reasoning_summary_text.delta":
            item = self._item(event, "reasoning")
            if item is not None:
                summary = item.get("summary")
                if type(summary) is not list:
                    summary = item["summary"] = []
                at = as_key(event.get("summary_index"))
                if type(at) is int and at < 0:
                    at = None
                at = _next_at_most(summary, at, "summary part", self.emit)
                if at == len(summary):
                    summary.append({"type": "summary_text", "text": ""})
                part = summary[at] if type(at) is int else summary[-1] if summary else None
                if type(part) is not dict:  # none yet, or a part that is no object
                    part = {"type": "summary_text", "text": ""}
                    if type(at) is int:
                        summary[at] = part
                    else:
                        summary.append(part)
                part["text"] = joined(part.get("text"), event.get("delta"))
        elif kind in (
            "response.output_text.done",
            "response.refusal.done",
            "response.function_call_arguments.done",
            "response.reasoning_summary_text.done",
        ):
            self._check_done(line, kind, event)
        elif kind == "response.output_item.done":
            index = as_key(event.get("output_index"))
            item = event.get("item")
            mine = self.items.get(index)
            if type(item) is dict:
                if mine is not None:
                    self._compare(line, index, mine, item, "the finished item")
                elif index not in self.items:
                    self.emit(
                        "E002",
                        f"output item {short(index)} is done but was never added",
                        "/output_index",
                    )
                self.items[index] = item
        elif kind in _TERMINAL:
            self._terminal(line, kind, event)

    def _open(self, line: int, event: dict) -> None:
        given = event.get("response")
        self.response = dict(given) if type(given) is dict else {}
        self.items, self.item_line = {}, {}
        self.start = line

    def _item(self, event: dict, kind: str) -> dict | None:
        index = as_key(event.get("output_index"))
        item = self.items.get(index)
        if item is None:
            self.emit(
                "E002",
                f"a {event.get('type')} event for output item {short(index)} before that item "
                "was added (the SDK raises 'Received a content event ... before receiving its "
                "output item'); kept in an item of its own",
                "/output_index",
            )
            item = self.items[index] = {"type": kind, "status": "in_progress"}
            if kind == "message":
                item["role"] = "assistant"
                item["content"] = []
            if "item_id" in event:
                item["id"] = event["item_id"]
        return item

    def _check_done(self, line: int, kind: str, event: dict) -> None:
        index = as_key(event.get("output_index"))
        item = self.items.get(index)
        if item is None:
            return
        if kind == "response.function_call_arguments.done":
            mine, given, what = item.get("arguments"), event.get("arguments"), "arguments"
        elif kind == "response.reasoning_summary_text.done":
            summary = listed(item.get("summary"))
            at = as_key(event.get("summary_index"))
            part = summary[at] if type(at) is int and 0 <= at < len(summary) else {}
            if type(part) is not dict:  # a part that is no object: the done text stands
                part = summary[at] = {"type": "summary_text", "text": ""}
            mine, given, what = part.get("text"), event.get("text"), "summary text"
        else:
            key = "text" if kind == "response.output_text.done" else "refusal"
            part = _part(
                item,
                as_key(event.get("content_index")),
                "output_text" if key == "text" else key,
                self.emit,
            )
            mine, given, what = part.get(key), event.get(key), key
        if isinstance(given, str) and (mine or "") != given:
            # the done event's text stands from here (one finding per disagreement)
            if kind == "response.function_call_arguments.done":
                item["arguments"] = given
            elif kind == "response.reasoning_summary_text.done":
                if part:
                    part["text"] = given
            else:
                part[key] = given
            self.emit(
                "E018",
                f"the {what} of output item {short(index)} streamed as {short(mine)} (deltas up "
                f"to line {self.item_line.get(index, line)}) but {kind} on this line says "
                f"{short(given)}",
            )

    def _compare(self, line: int, index: Any, mine: dict, given: dict, what: str) -> None:
        for key, text in _texts(mine).items():
            other = _texts(given).get(key)
            if other is not None and other != text:
                self.emit(
                    "E018",
                    f"output item {short(index)}: the {key[0]} streamed as {short(text)} "
                    f"(deltas up to line {self.item_line.get(index, self.start)}) but "
                    f"{what} on this line holds {short(other)}",
                    line=line,
                )

    def _terminal(self, line: int, kind: str, event: dict) -> None:
        given = event.get("response")
        response = dict(given) if type(given) is dict else dict(self.response or {})
        _wire_names(response)
        output = response.get("output")
        items = [self.items[i] for i in sorted(self.items, key=_order)]
        if type(output) is not list or (not output and items and kind != "response.completed"):
            # (an output that is no list, which the schema names on this line: what streamed)
            response["output"] = items
        else:
            output = response["output"] = list(output)
            for index, item in enumerate(output):
                mine = self.items.get(index)
                if mine is not None and type(item) is dict:
                    self._compare(line, index, mine, item, kind)
                    for key in ("summary", "content"):
                        # (parts that are no list, which the schema names: what streamed)
                        value = item.get(key)
                        if value is not None and type(value) is not list and listed(mine.get(key)):
                            item = output[index] = {**item, key: mine[key]}
        for key in _FLOAT_TIMES:
            value = response.get(key)
            if type(value) is int:
                response[key] = float(value)
        status = response.get("status")
        if kind == "response.incomplete":
            details = response.get("incomplete_details")
            reason = details.get("reason") if type(details) is dict else None
            self.emit(
                "E019",
                f"the response ended incomplete (reason: {short(reason)}); written with the "
                "text that streamed (the SDK's get_final_response() raises instead)",
            )
        elif kind == "response.failed":
            error = response.get("error")
            message = error.get("message") if type(error) is dict else error
            self.emit(
                "E020",
                f"the response failed ({short(message)}); written with the text that streamed "
                "(the SDK's get_final_response() raises instead)",
            )
        if kind == "response.completed":
            for item in listed(response.get("output")):
                if type(item) is dict and as_key(item.get("type")) == "function_call":
                    _, wrong = parse_arguments(item.get("arguments"))
                    if wrong is not None:
                        self.emit(
                            "E006",
                            f"the arguments of function call {short(item.get('call_id'))} "
                            f"({short(item.get('name'))}) {wrong}",
                        )
        self.response = None
        self.done(line, response, status)

    def close(self, line: int, state: str, report: bool = True) -> None:
        response = self.response
        if response is None:
            return
        self.response = None
        if report and state == "cut":
            self.emit(
                "E007",
                f"the stream ends before response.completed: the response begun on line "
                f"{self.start} is cut off (written as far as it arrived, marked)",
                line=line,
            )
        response["output"] = [self.items[i] for i in sorted(self.items, key=_order)]
        _wire_names(response)
        for item in response["output"]:
            if as_key(item.get("type")) == "reasoning" and any(
                type(p) is dict and p.get("text") for p in listed(item.get("summary"))
            ):
                self.emit(
                    "E017",
                    "the reasoning summary is rebuilt from its deltas (the SDK does not "
                    "accumulate reasoning summary deltas: its snapshot has none)",
                    line=line,
                )
                break
        for key in _FLOAT_TIMES:
            value = response.get(key)
            if type(value) is int:
                response[key] = float(value)
        self.done(line, response, response.get("status"), state)

    def open_messages(self) -> list[dict]:
        if self.response is None:
            return []
        return [
            {**self.response, "output": [self.items[i] for i in sorted(self.items, key=_order)]}
        ]


def _wire_names(response: dict) -> None:
    """Wire names for the SDK's Python field names that ``model_dump_json()`` writes
    (``schema_`` is ``schema`` on the wire and in the SDK's ``to_json()``)."""
    text = response.get("text")
    if type(text) is dict and type(text.get("format")) is dict and "schema_" in text["format"]:
        fmt = text["format"] = dict(text["format"])
        fmt["schema"] = fmt.pop("schema_")
        response["text"] = {**text, "format": fmt}


def _order(index: Any) -> tuple:
    return (0, index) if type(index) is int else (1, str(index))


def _copy(value: dict) -> dict:
    out = dict(value)
    for key, item in out.items():
        if type(item) is list:
            out[key] = [_copy(x) if type(x) is dict else x for x in item]
    return out


def _part(item: dict, index: Any, kind: str, emit: Any) -> dict:
    if type(index) is int and index < 0:
        index = None
    content = item.get("content")
    if type(content) is not list:
        content = item["content"] = []
    index = _next_at_most(content, index, "content part", emit)
    if index == len(content):
        content.append({"type": kind})
    if type(index) is int:
        part = content[index]
        if type(part) is not dict:
            part = content[index] = {"type": kind}
        return part
    if not content or type(content[-1]) is not dict:
        content.append({"type": kind})
    return content[-1]


def _next_at_most(parts: list, index: Any, what: str, emit: Any) -> Any:
    """``index``, or None (the last part) when it is past the next part: the parts
    between never started (the SDK raises), and a log's number is no count of parts to
    make (one line could ask for billions)."""
    if type(index) is int and index > len(parts):
        emit(
            "E002",
            f"an event for {what} {short(index)} of an output item that has {len(parts)} "
            f"{what}s: those between never started (the SDK raises); it is applied to the "
            "last one",
            "/content_index" if what == "content part" else "/summary_index",
        )
        return None
    return index


def _texts(item: dict) -> dict[tuple, str]:
    """The streamed texts of an item: ``{(what, where): text}``."""
    out: dict[tuple, str] = {}
    if as_key(item.get("type")) == "function_call" and isinstance(item.get("arguments"), str):
        out[("arguments", 0)] = item["arguments"]
    for at, part in enumerate(listed(item.get("content"))):
        if type(part) is dict:
            for key in ("text", "refusal"):
                if isinstance(part.get(key), str):
                    out[(key, at)] = part[key]
    return out
