"""Replaying ``gemini --output-format stream-json`` output.

The stream holds ``init`` (the session id, the model asked for), ``message`` records
(the user's prompt whole; the model's text in pieces, ``delta: true``), ``tool_use`` and
``tool_result`` records, ``error`` records (warnings such as the loop detector's) and one
``result`` (status, and the token totals of the whole run, the CLI's side calls
included). One model response is the text and calls up to the first result of its calls
(the tools run once the response is over), or up to the next prompt or the result, its
text trimmed as the CLI writes it: the
messages rebuilt are those the session file of the run holds, one per response, the
results of one response's calls in one message, as the file has them. The stream carries
no message ids and no tokens per response: the rebuilt messages are given ids of the
session's id and their place (``<sessionId>#3``) and no tokens. They follow a session
header made of ``init``, so the replay's output is a session file msgcli reads as one.
"""

from __future__ import annotations

from typing import Any

from ...replayers import Replayer
from ...textsafe import short
from .known import STREAM_TYPES

__all__ = ["StreamReplayer"]


class StreamReplayer(Replayer):
    known_types = STREAM_TYPES
    time_key = "timestamp"
    id_keys = ()

    def __init__(self, emit: Any, sink: Any = None):
        super().__init__(emit, sink)
        self.session: Any = None
        self.result: dict | None = None
        self._response: dict | None = None
        self._response_line = 0
        self._results: dict | None = None
        self._results_line = 0
        self._called: dict[str, Any] = {}
        self._count = 0

    def feed(self, line: int, event: dict, valid: bool = True) -> None:
        kind = event.get("type")
        if type(kind) is str and kind not in self.known_types:
            self.line = line
            self.stats.events += 1
            self.stats.unknown[kind] += 1
            self.emit(
                "G001",
                f"stream-json record type {short(kind)} is not one msgcli knows: counted",
                "/type",
            )
            return
        super().feed(line, event, valid)

    def _id(self) -> str:
        self._count += 1
        return f"{self.session or 'stream'}#{self._count}"

    def _close_response(self) -> None:
        if self._response is not None:
            # (the session file holds the text trimmed)
            self._response["content"] = self._response["content"].strip()
            self.write(self._response_line, self._response)
            self.stats.completed += 1
            self._response = None

    def _close_results(self) -> None:
        if self._results is not None:
            self.write(self._results_line, self._results)
            self._results = None

    def _open_response(self) -> dict:
        self._close_results()
        if self._response is None:
            self._response = {
                "id": self._id(),
                "timestamp": self.stamp,
                "type": "gemini",
                "content": "",
            }
            self._response_line = self.line
        return self._response

    def apply(self, kind: str, event: dict) -> None:
        if kind == "init":
            session = event.get("session_id")
            self.session = session if isinstance(session, str) else None
            # a session file's header, so that the messages written are a session file
            # (the stream does not tell the project: its hash is left empty)
            self.write(
                self.line,
                {
                    "sessionId": self.session or "",
                    "projectHash": "",
                    "startTime": self.stamp,
                    "lastUpdated": self.stamp,
                    "kind": "main",
                },
            )
        elif kind == "message":
            content = event.get("content")
            text = content if isinstance(content, str) else ""
            if event.get("role") == "assistant":
                response = self._open_response()
                response["content"] += text
            else:
                self._close_response()
                self._close_results()
                self.write(
                    self.line,
                    {
                        "id": self._id(),
                        "timestamp": self.stamp,
                        "type": "user",
                        "content": [{"text": text}],
                    },
                )
        elif kind == "tool_use":
            response = self._open_response()
            tid = event.get("tool_id")
            if isinstance(tid, str):
                self._called[tid] = event.get("tool_name")
            response.setdefault("toolCalls", []).append(
                {"id": tid, "name": event.get("tool_name"), "args": event.get("parameters")}
            )
        elif kind == "tool_result":
            self._tool_result(event)
        elif kind == "error":
            self._close_response()
            self._close_results()
            severity = event.get("severity")
            self.write(
                self.line,
                {
                    "id": self._id(),
                    "timestamp": self.stamp,
                    "type": "warning" if severity == "warning" else "error",
                    "content": str(event.get("message")),
                },
            )
        elif kind == "result":
            self._close_response()
            self._close_results()
            self.result = event
            error = event.get("error")
            if event.get("status") == "error":
                message = error.get("message") if isinstance(error, dict) else error
                self.write(
                    self.line,
                    {
                        "id": self._id(),
                        "timestamp": self.stamp,
                        "type": "error",
                        "content": str(message),
                    },
                )

    def _tool_result(self, event: dict) -> None:
        tid = event.get("tool_id")
        if not isinstance(tid, str) or tid not in self._called:
            self.emit("G008", f"tool_result {short(tid)} answers no tool_use before it", "/tool_id")
        self._close_response()
        if self._results is None:
            self._results = {
                "id": self._id(),
                "timestamp": self.stamp,
                "type": "user",
                "content": [],
            }
            self._results_line = self.line
        output = event.get("output")
        if event.get("status") == "error":
            error = event.get("error")
            message = error.get("message") if isinstance(error, dict) else output
            body: dict = {"error": message}
        else:
            body = {"output": output if output is not None else ""}
        name = self._called.get(tid) if isinstance(tid, str) else None
        self._results["content"].append(
            {"functionResponse": {"id": tid, "name": name, "response": body}}
        )

    def open_messages(self) -> list[dict]:
        return [m for m in (self._response, self._results) if m is not None]

    def finish(self, line: int, cut: bool = False) -> None:
        had = self._response is not None
        self._close_response()
        self._close_results()
        if self.result is None and not cut and self.stats.events:
            if had:
                self.stats.cut += 1
            self.emit(
                "G008", "the stream ends without its result record: the run was cut", line=line
            )
