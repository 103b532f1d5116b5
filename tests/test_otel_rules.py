"""The rules of the ``otel`` dialect on hand-made traces (no emitter writes these faults):
each finding located (line, span id, attribute pointer), what is merely new an info, a
span not about GenAI kept and counted, never an error."""

from __future__ import annotations

import orjson

from msgcli.engine import Options
from msgcli.pipeline import validate_paths
from msgcli.stats import collect_stats
from msgcli.stream import open_log

TRACE = "0af7651916cd43dd8448eb211c80319c"


def attr(key, value):
    if isinstance(value, bool):
        return {"key": key, "value": {"boolValue": value}}
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    return {"key": key, "value": {"stringValue": value}}


def span(span_id, name, attrs, parent=None, start=1_800_000_000_000_000_000, **more):
    out = {
        "traceId": TRACE,
        "spanId": span_id,
        "name": name,
        "kind": 3,
        "startTimeUnixNano": str(start),
        "endTimeUnixNano": str(start + 5_000_000),
        "attributes": attrs,
        **more,
    }
    if parent:
        out["parentSpanId"] = parent
    return out


def chat(span_id, inputs, outputs, **more):
    return span(
        span_id,
        "chat m",
        [
            attr("gen_ai.operation.name", "chat"),
            attr("gen_ai.provider.name", "openai"),
            attr("gen_ai.input.messages", orjson.dumps(inputs).decode()),
            attr("gen_ai.output.messages", orjson.dumps(outputs).decode()),
            attr("gen_ai.usage.input_tokens", 10),
            attr("gen_ai.usage.output_tokens", 2),
        ],
        **more,
    )


def write(tmp_path, *lines):
    path = tmp_path / "trace.jsonl"
    path.write_bytes(
        b"".join(
            orjson.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}) + b"\n"
            for spans in lines
        )
    )
    return path


def findings(path):
    (report,) = validate_paths([path]).files
    return [(f.line, f.code, f.severity.value, f.message, f.pointer) for f in report.findings]


USER = {"role": "user", "parts": [{"type": "text", "content": "hi"}]}


def test_a_clean_hand_made_trace_has_no_finding(tmp_path):
    answer = {"role": "assistant", "parts": [{"type": "text", "content": "hello"}]}
    assert findings(write(tmp_path, [chat("00f067aa0ba902b7", [USER], [answer])])) == []


def test_messages_not_of_the_schema_are_errors_at_their_attribute(tmp_path):
    older = [{"role": "user", "content": "hi"}]  # the older form: no parts
    path = write(
        tmp_path,
        [chat("00f067aa0ba902b7", [USER], [])],
        [chat("00f067aa0ba902b8", older, [{"role": "assistant", "parts": [{"content": "x"}]}])],
    )
    found = findings(path)
    assert [(line, code) for line, code, *_ in found] == [(2, "O005"), (2, "O005")]
    assert "00f067aa0ba902b8" in found[0][3] and "content" in found[0][3]
    assert found[0][4] == "/resourceSpans/0/scopeSpans/0/spans/0/attributes/2"
    assert found[1][4].endswith("/attributes/3")  # gen_ai.output.messages


def test_a_part_without_its_field_is_an_error_and_result_a_warning(tmp_path):
    calls = {
        "role": "assistant",
        "parts": [{"type": "tool_call", "id": "c1", "arguments": "{}"}],  # no name
    }
    results = {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1", "result": 1}]}
    path = write(
        tmp_path,
        [
            chat("00f067aa0ba902b7", [USER], [calls]),
            chat("00f067aa0ba902b8", [USER, calls, results], []),
        ],
    )
    codes = [(code, severity) for _, code, severity, *_ in findings(path)]
    assert ("O006", "error") in codes and ("O007", "warning") in codes
    assert codes.count(("O006", "error")) == 2  # the call, in both spans' messages


def test_what_is_new_is_info_and_read_all_the_same(tmp_path):
    new = {"role": "assistant", "parts": [{"type": "hologram", "content": "x"}]}
    spans = [chat("00f067aa0ba902b7", [USER], [new])]
    spans[0]["attributes"].append(attr("gen_ai.quantum.flux", "on"))
    spans[0]["events"] = [{"name": "gen_ai.brand.new", "timeUnixNano": "1"}]
    path = write(tmp_path, spans)
    found = findings(path)
    assert {code for _, code, *_ in found} == {"O008"}
    assert {severity for _, _, severity, *_ in found} == {"info"}
    assert len(found) == 3
    (report,) = validate_paths([path]).files
    assert report.summary.errors == 0
    log = open_log(str(path), Options(), name="t")
    roles = [i.message.role for i in log if i.message is not None]
    assert roles == ["user", "assistant"]


def test_usage_that_is_no_number_ids_and_parents(tmp_path):
    bad = chat("00f067aa0ba902b7", [USER], [], parent="1111111111111111")
    bad["attributes"][4] = attr("gen_ai.usage.input_tokens", "ten")
    other = chat("AAECAwQFBgc=", [USER], [])  # a base64 span id (protobuf's JSON mapping)
    broken = chat("00f067aa0ba902b9", [USER], [])
    broken["attributes"].append({"key": "gen_ai.request.model", "value": {"intValue": "x"}})
    found = findings(write(tmp_path, [bad], [other], [broken]))
    codes = [(line, code) for line, code, *_ in found]
    assert (1, "O009") in codes and (1, "O012") in codes
    assert (2, "O002") in codes and (3, "O001") in codes
    usage = next(f for f in found if f[1] == "O009")
    assert "gen_ai.usage.input_tokens" in usage[3] and usage[4].endswith("/attributes/4")


def test_tool_calls_answered_by_id(tmp_path):
    calls = {
        "role": "assistant",
        "parts": [{"type": "tool_call", "id": "c1", "name": "f", "arguments": {"a": 1}}],
    }
    stray = {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c9", "response": 1}]}
    path = write(
        tmp_path,
        [chat("00f067aa0ba902b7", [USER], [calls])],
        [chat("00f067aa0ba902b8", [USER, stray], [])],
    )
    codes = [(line, code) for line, code, *_ in findings(path)]
    assert codes == [(1, "O010"), (2, "O011")]


def test_spans_not_about_genai_are_kept_and_counted(tmp_path):
    http = span("00f067aa0ba902b1", "GET /weather", [attr("http.request.method", "GET")])
    answer = {"role": "assistant", "parts": [{"type": "text", "content": "hello"}]}
    path = write(tmp_path, [http, chat("00f067aa0ba902b7", [USER], [answer])])
    assert findings(path) == []
    (stats,) = collect_stats([path]).files
    assert stats.details["otel"]["spans"] == {"span": 1, "chat": 1}


def test_a_line_that_is_no_otlp_is_not_taken(tmp_path):
    path = tmp_path / "mixed.jsonl"
    line = {"resourceSpans": [{"scopeSpans": [{"spans": [chat("00f067aa0ba902b7", [USER], [])]}]}]}
    path.write_bytes(orjson.dumps(line) + b"\n" + b'{"resourceSpans": "nope"}\n')
    codes = [code for _, code, *_ in findings(path)]
    assert codes and set(codes) <= {"D001", "D002", "O001"}


def test_log_records_of_no_span_are_still_read(tmp_path):
    # (a stream's gen_ai.choice record carries no trace context)
    def record(event, body):
        return {"eventName": event, "observedTimeUnixNano": "1", "body": body}

    user = {"kvlistValue": {"values": [{"key": "content", "value": {"stringValue": "hi"}}]}}
    choice = {
        "kvlistValue": {
            "values": [
                {"key": "index", "value": {"intValue": "0"}},
                {
                    "key": "message",
                    "value": {
                        "kvlistValue": {
                            "values": [{"key": "content", "value": {"stringValue": "hello"}}]
                        }
                    },
                },
            ]
        }
    }
    line = {
        "resourceLogs": [
            {
                "scopeLogs": [
                    {
                        "logRecords": [
                            record("gen_ai.user.message", user),
                            record("gen_ai.choice", choice),
                        ]
                    }
                ]
            }
        ]
    }
    path = tmp_path / "logs.jsonl"
    path.write_bytes(orjson.dumps(line) + b"\n")
    log = open_log(str(path), Options(), name="t")
    said = [(i.message.role, i.message.content[0].text) for i in log if i.message is not None]
    assert said == [("user", "hi"), ("assistant", "hello")]
    assert findings(path) == []


def test_a_kvlist_key_that_is_no_string_is_no_crash(tmp_path):
    body = {"kvlistValue": {"values": [{"key": {"a": 1}, "value": {"stringValue": "x"}}]}}
    line = {"resourceLogs": [{"scopeLogs": [{"logRecords": [{"eventName": "e", "body": body}]}]}]}
    path = tmp_path / "logs.jsonl"
    path.write_bytes(orjson.dumps(line) + b"\n")
    (report,) = validate_paths([path]).files
    assert report.summary.dialect == "otel"
    assert report.summary.errors == 0
    # (read whole without a traceback; the record stands for a model call of its own)
    items = list(open_log(str(path), Options(), name="t"))
    assert [i.message.role for i in items if i.message is not None] == ["assistant"]
