"""Rebuilding Chat Completions streams, as the SDK's ``ChatCompletionStreamState`` does.

The first chunk becomes the completion (``object: chat.completion``); each choice's
``delta`` is merged into its message the way the SDK's ``accumulate_delta`` merges
(strings joined, numbers added, objects merged, lists of objects merged by ``index``);
``finish_reason`` is set when present; ``usage`` and ``system_fingerprint`` come from
the last chunk. A completion is written when the next stream begins (another ``id``)
or the log ends.

Where the SDK is wrong, the replay does what the format means and says so (E017): a
repeated tool-call ``id``, ``name`` or ``role`` is kept once (the SDK joins the copies),
and a completion that stopped at ``length`` or ``content_filter`` is written (the SDK's
``get_final_completion()`` raises instead).
"""

from __future__ import annotations

from typing import Any

from ...guard import as_key
from ...textsafe import short
from ..wire import WireReplayer, parse_arguments

#: keys that name something: a later delta repeats them rather than continuing them
_IDENTITY = frozenset({"id", "name", "role"})
_MESSAGE_DEFAULTS = ("content", "refusal", "role", "annotations", "audio", "function_call")


class ChatReplayer(WireReplayer):
    known_types = frozenset({"chat.completion.chunk"})
    #: the keys of a chunk (what the first chunk of a completion gives it; a later chunk's
    #: others are passed over, as the SDK passes over them)
    event_keys = frozenset(
        {
            "id",
            "object",
            "created",
            "model",
            "choices",
            "usage",
            "service_tier",
            "system_fingerprint",
            "obfuscation",
            "moderation",
            "prompt_filter_results",
            "error",
            "provider",
        }
    )
    lean_key = "object"
    lean_types = known_types

    def __init__(self, emit, sink=None):
        super().__init__(emit, sink)
        self.completion: dict | None = None
        self.choices: dict[Any, dict] = {}
        self.finish_lines: dict[Any, int] = {}

    def event(self, line: int, chunk: dict) -> None:
        error = chunk.get("error")
        if error:
            self.count("error")
            what = error if type(error) is dict else {"message": error}
            self.emit(
                "E016",
                f"the stream reports an error: {short(what.get('message'))} "
                "(the SDK raises openai.APIError here); the completion ends here",
                "/error",
            )
            self.close(line, "error", report=False)
            return
        kind = chunk.get("object")
        if kind != "chat.completion.chunk":
            self.unknown(kind)
            return
        self.count(kind)
        self.new_keys(chunk)
        completion = self.completion
        if completion is not None and chunk.get("id") != completion.get("id"):
            self.close(line - 1, "cut")
            completion = None
        if completion is None:
            completion = self.completion = {
                key: value for key, value in chunk.items() if key not in ("choices", "obfuscation")
            }
            completion["object"] = "chat.completion"
            completion["choices"] = []
            self.choices = {}
            self.finish_lines = {}
            self.start = line
        choices = chunk.get("choices")
        if type(choices) is list:
            for choice in choices:
                if type(choice) is dict:
                    self._choice(completion, choice)
        completion["usage"] = chunk.get("usage")
        completion["system_fingerprint"] = chunk.get("system_fingerprint")

    def _choice(self, completion: dict, choice: dict) -> None:
        index = as_key(choice.get("index"))
        snapshot = self.choices.get(index)
        delta = choice.get("delta")
        if snapshot is None:
            if type(index) is not int or index > len(self.choices):
                self.emit(
                    "E002",
                    f"choice {short(index)} arrives while the completion holds "
                    f"{len(self.choices)} choice(s): an index skipped ahead",
                    "/choices",
                )
            snapshot = {
                key: value
                for key, value in choice.items()
                if key not in ("delta", "finish_reason", "logprobs")
            }
            snapshot["finish_reason"] = None
            snapshot["logprobs"] = None
            snapshot["message"] = {}
            self.choices[index] = snapshot
            completion["choices"].append(snapshot)
        if type(delta) is dict:
            self._merge(snapshot["message"], delta, "/choices/delta")
        reason = choice.get("finish_reason")
        if reason:
            snapshot["finish_reason"] = reason
            self.finish_lines[index] = self.line
        logprobs = choice.get("logprobs")
        if type(logprobs) is dict:
            mine = snapshot["logprobs"]
            if type(mine) is not dict:
                snapshot["logprobs"] = {
                    k: list(v) if type(v) is list else v for k, v in logprobs.items()
                }
            else:
                for key, value in logprobs.items():
                    if type(value) is list:
                        if type(mine.get(key)) is list:
                            mine[key].extend(value)
                        else:
                            mine[key] = list(value)

    def _merge(self, acc: dict, delta: dict, where: str) -> None:
        """``accumulate_delta``, with names and ids kept once rather than joined."""
        for key, value in delta.items():
            if value is None:
                if key not in acc:
                    acc[key] = None
                continue
            old = acc.get(key)
            if old is None:
                if type(value) is dict:
                    value = dict(value)
                    for k, v in list(value.items()):
                        if type(v) is list:
                            value[k] = [dict(x) if type(x) is dict else x for x in v]
                        elif type(v) is dict:
                            value[k] = dict(v)
                    acc[key] = value
                elif type(value) is list:
                    acc[key] = []
                    if key == "tool_calls":
                        self._tool_calls(acc[key], value, where)
                    else:
                        acc[key] = [dict(x) if type(x) is dict else x for x in value]
                else:
                    acc[key] = value
                continue
            if key == "index" or key == "type":
                acc[key] = value
            elif key in _IDENTITY and isinstance(old, str) and isinstance(value, str):
                if value and old:
                    self.emit(
                        "E017",
                        f"{key} {short(value)} is sent again in a later delta; kept once "
                        f"(the SDK joins the copies into {short(old + value)})",
                        f"{where}/{key}",
                    )
                elif not old:
                    acc[key] = value
            elif isinstance(old, str) and isinstance(value, str):
                acc[key] = old + value  # content, refusal, arguments: joined
            elif _number(old) and _number(value):
                acc[key] = old + value  # counts: added
            elif type(old) is dict and type(value) is dict:
                self._merge(old, value, f"{where}/{key}")
            elif type(old) is list and type(value) is list:
                if key == "tool_calls":
                    self._tool_calls(old, value, where)
                elif all(not isinstance(x, dict) for x in old):
                    old.extend(value)
                else:
                    for entry in value:
                        if type(entry) is dict and type(as_key(entry.get("index"))) is int:
                            found = _by_index(old, entry["index"])
                            if found is None:
                                old.append(dict(entry))
                            else:
                                self._merge(found, entry, f"{where}/{key}")

    def _tool_calls(self, calls: list, deltas: list, where: str) -> None:
        for entry in deltas:
            if type(entry) is not dict:
                continue
            index = as_key(entry.get("index"))
            found = _by_index(calls, index)
            if found is None:
                if type(index) is not int or index > len(calls):
                    self.emit(
                        "E002",
                        f"tool call {short(index)} arrives while the message holds "
                        f"{len(calls)} tool call(s): an index skipped ahead (the SDK raises "
                        "IndexError here)",
                        f"{where}/tool_calls",
                    )
                found = {}
                calls.append(found)
            self._merge(found, entry, f"{where}/tool_calls")

    def close(self, line: int, state: str, report: bool = True) -> None:
        completion = self.completion
        if completion is None:
            return
        self.completion = None
        unfinished = [
            as_key(c.get("index")) for c in completion["choices"] if not c.get("finish_reason")
        ]
        if state == "cut" and not unfinished:
            state = None  # type: ignore[assignment]
        elif report and state == "cut":
            self.emit(
                "E007",
                f"the stream ends before choice {', '.join(map(str, unfinished))} finished: "
                f"the completion begun on line {self.start} is cut off (written as far as it "
                "arrived, marked)",
                line=line,
            )
        reasons = []
        for choice in completion["choices"]:
            message = choice["message"]
            for key in _MESSAGE_DEFAULTS:
                message.setdefault(key, None)
            calls = message.get("tool_calls")
            if type(calls) is list:
                calls.sort(
                    key=lambda c: (
                        as_key(c.get("index")) if type(as_key(c.get("index"))) is int else 0
                    )
                )
                if state is None:
                    for call in calls:
                        function = call.get("function")
                        if type(function) is dict:
                            _, wrong = parse_arguments(function.get("arguments"))
                            if wrong is not None:
                                self.emit(
                                    "E006",
                                    f"the arguments of tool call {short(call.get('id'))} "
                                    f"({short(function.get('name'))}) {wrong}",
                                    line=self.start,
                                )
            reason = choice.get("finish_reason")
            reasons.append(reason)
            if reason in ("length", "content_filter") and state is None:
                error = (
                    "LengthFinishReasonError"
                    if reason == "length"
                    else "ContentFilterFinishReasonError"
                )
                self.emit(
                    "E017",
                    f"choice {short(choice.get('index'))} stopped at finish_reason {reason}: "
                    f"written whole (the SDK's get_final_completion() raises {error} instead)",
                    line=self.finish_lines.get(as_key(choice.get("index")), self.start),
                )
        self.done(line, completion, reasons[0] if len(reasons) == 1 else reasons, state)

    def open_messages(self) -> list[dict]:
        return [] if self.completion is None else [self.completion]


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _by_index(items: list, index: Any) -> dict | None:
    for item in items:
        if type(item) is dict and as_key(item.get("index")) == index:
            return item
    return None
