"""The rules of OpenTelemetry GenAI traces (family ``O``), and what ``msgcli rules CODE``
says of each."""

from __future__ import annotations

from ...findings import ERROR, INFO, WARNING
from ...rules import CROSS_RECORD, RECORD, Rule

__all__ = ["EXPLAINED", "RULES"]

RULES = (
    Rule(
        "O001",
        "otlp-envelope",
        ERROR,
        "OTLP: a span or log record is not of the OTLP shape (no trace or span id, ids not "
        "16/8 bytes, an attribute value that is no AnyValue, a time that is no integer).",
        stage=RECORD,
    ),
    Rule(
        "O002",
        "otlp-id-not-hex",
        WARNING,
        "OTLP JSON: a trace or span id is not lowercase hex (base64, protobuf's JSON "
        "mapping): OTLP/JSON receivers reject it.",
        stage=RECORD,
    ),
    Rule(
        "O003",
        "genai-no-operation",
        WARNING,
        "GenAI: a span about a model call has no gen_ai.operation.name (readers that need "
        "it, Langfuse among them, drop or misplace the span).",
        stage=RECORD,
    ),
    Rule(
        "O004",
        "genai-no-provider",
        WARNING,
        "GenAI: a model-call span has no gen_ai.provider.name (older emitters write "
        "gen_ai.system or llm.system instead).",
        stage=RECORD,
    ),
    Rule(
        "O005",
        "genai-messages-shape",
        ERROR,
        "GenAI: gen_ai.input.messages, gen_ai.output.messages or gen_ai.system_instructions "
        "is not what the published JSON Schemas describe (not JSON, not a list of "
        "{role, parts} messages, a part without a type).",
        stage=RECORD,
    ),
    Rule(
        "O006",
        "genai-part-field",
        ERROR,
        "GenAI: a message part lacks the field its type needs (text without content, "
        "tool_call without name, tool_call_response without id, blob without content...).",
        stage=RECORD,
    ),
    Rule(
        "O007",
        "genai-result-not-response",
        WARNING,
        "GenAI: a tool_call_response part holds its value under 'result', where the schema "
        "says 'response' (read all the same).",
        stage=RECORD,
    ),
    Rule(
        "O008",
        "genai-new",
        INFO,
        "GenAI: a part type, role, event name or gen_ai.* attribute this version of msgcli "
        "does not know (kept and counted).",
        stage=RECORD,
    ),
    Rule(
        "O009",
        "genai-usage-not-number",
        ERROR,
        "GenAI: a usage attribute (gen_ai.usage.*, gen_ai.aggregated_usage.*, "
        "llm.token_count.*) is not a number.",
        stage=RECORD,
    ),
    Rule(
        "O010",
        "genai-call-unanswered",
        WARNING,
        "GenAI: a tool call no later message or execute_tool span of the file answers by its id.",
        stage=CROSS_RECORD,
    ),
    Rule(
        "O011",
        "genai-answer-no-call",
        WARNING,
        "GenAI: a tool_call_response or execute_tool span whose call id no tool call of "
        "the file has.",
        stage=CROSS_RECORD,
    ),
    Rule(
        "O012",
        "otlp-parent-missing",
        WARNING,
        "OTLP: a span's parentSpanId names no span of the file (a partial export).",
        stage=CROSS_RECORD,
    ),
    Rule(
        "O013",
        "genai-tool-arguments",
        WARNING,
        "GenAI: a tool call's arguments are a string that is no JSON object.",
        stage=RECORD,
    ),
    Rule(
        "O014",
        "otlp-duplicate-span",
        INFO,
        "OTLP: the same span (trace and span id) is exported again in the file; read once.",
        stage=CROSS_RECORD,
    ),
)

EXPLAINED = {
    "O001": (
        '{"spanId": "8a00bd9c", "name": "chat"}  (no traceId, a span id of 4 bytes)',
        "Write spans as the OTLP exporters do: 32-hex traceId, 16-hex spanId, attributes "
        "as {key, value: AnyValue}.",
    ),
    "O002": (
        '"traceId": "NKWdly9gjulJwH3yCMbYlQ=="',
        "OTLP/JSON writes ids as lowercase hex: convert the protobuf body with an OTLP "
        "exporter, or `msgcli convert --to otel`.",
    ),
    "O003": (
        "an OpenInference ChatCompletion span with llm.* attributes only",
        "Set gen_ai.operation.name (chat, invoke_agent, execute_tool...).",
    ),
    "O004": (
        '"gen_ai.system": "openai" without gen_ai.provider.name',
        "Write gen_ai.provider.name (the current name of gen_ai.system).",
    ),
    "O005": (
        '"gen_ai.input.messages": "[{\\"role\\": \\"user\\", \\"content\\": \\"hi\\"}]"',
        "Write messages as [{role, parts: [{type, ...}]}], as the conventions' "
        "gen-ai-input-messages JSON Schema describes.",
    ),
    "O006": (
        '{"type": "tool_call", "id": "call_1"}',
        "Give each part the field its type needs (tool_call: name; text: content...).",
    ),
    "O007": (
        '{"type": "tool_call_response", "id": "call_1", "result": "ok"}',
        "Write the tool's output under 'response'.",
    ),
    "O008": (
        '{"type": "video_frame", ...}',
        "Nothing to fix: msgcli keeps and counts it; a newer msgcli may know it.",
    ),
    "O009": (
        '"gen_ai.usage.input_tokens": {"stringValue": "82"}',
        "Write token counts as intValue.",
    ),
    "O010": (
        "a tool_call part call_1 that no later tool_call_response answers",
        "Export the span that ran the tool, or the next model call's input.",
    ),
    "O011": (
        "a tool_call_response for call_9 with no tool_call call_9",
        "Export the model call that asked for the tool in the same file.",
    ),
    "O012": (
        '"parentSpanId": "77c2d4f6a9b1e3c5" that no span of the file has',
        "Export the whole trace, or read its files together (cat a.jsonl b.jsonl | msgcli "
        "validate -).",
    ),
    "O013": (
        '"arguments": "city=Paris"',
        "Write a tool call's arguments as a JSON object (or a JSON string of one).",
    ),
    "O014": (
        "the same spanId on two lines",
        "Nothing to fix when two exporters wrote one file; it is read once.",
    ),
}
