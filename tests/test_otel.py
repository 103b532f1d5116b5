"""OpenTelemetry GenAI traces (the ``otel`` dialect) on the real files of five emitter
configurations (``fixtures/real/otel``), held to what their oracles record
(``fixtures/oracles/otel``: what the SDK sent and the mock model answered, usage per call).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import FIXTURES

from msgcli.dialects import get_dialect
from msgcli.engine import Options
from msgcli.model import TextBlock, ToolCallBlock, ToolResultBlock
from msgcli.pipeline import validate_paths
from msgcli.stats import collect_stats
from msgcli.stream import open_log

REAL = FIXTURES / "real" / "otel"
ORACLES = FIXTURES / "oracles" / "otel"
LOGS = sorted(
    p for p in REAL.rglob("*") if p.is_file() and (p.suffix in (".jsonl", ".json", ".pb"))
)
#: the files that hold the conversation's content, per emitter (openai-v2-legacy writes
#: none; openllmetry-events keeps it in its log records)
CONTENT = {
    "pydantic-ai": ("traces.jsonl", "otlp-http/0001-traces.json"),
    "openai-v2-latest": ("traces.jsonl", "logs.jsonl", "otlp-http/0001-traces.json"),
    "openllmetry": ("traces.jsonl", "otlp-http/0001-traces.json"),
    "openllmetry-events": ("logs.jsonl", "otlp-http/0002-logs.json"),
    "openllmetry-0.44": ("otlp-http/0001-traces.pb",),
    "openinference": ("traces.jsonl", "otlp-http/0001-traces.json"),
}
#: the files that hold each call's usage
USAGE = {
    "pydantic-ai": ("traces.jsonl", "otlp-http/0001-traces.json"),
    "openai-v2-latest": ("traces.jsonl", "logs.jsonl"),
    "openai-v2-legacy": ("traces.jsonl", "otlp-http/0001-traces.json"),
    "openllmetry": ("traces.jsonl",),
    "openllmetry-events": ("traces.jsonl",),
    "openllmetry-0.44": ("otlp-http/0001-traces.pb",),
    "openinference": ("traces.jsonl",),
}


def ids(paths):
    return [str(p.relative_to(REAL)) for p in paths]


def messages(source, *, aside=False):
    log = open_log(source, Options(), name=str(source))
    out = []
    for item in log:
        if item.message is None:
            continue
        if not aside and log.dialect is not None and log.dialect.aside(item.message):
            continue
        out.append(item.message)
    return out


def oracle(emitter, scenario):
    return json.loads((ORACLES / emitter / scenario / "oracle.json").read_text())


def cases(table):
    out = []
    for emitter, names in table.items():
        for scenario in ("plain", "tools", "stream"):
            for name in names:
                path = REAL / emitter / scenario / name
                if path.is_file():
                    out.append(path)
    return out


# -- validate -------------------------------------------------------------------------


@pytest.mark.parametrize("path", LOGS, ids=ids(LOGS))
def test_every_real_file_is_otel_and_has_no_error(path):
    run = validate_paths([path])
    (report,) = run.files
    assert report.summary.dialect == "otel"
    errors = [
        f"{f.line}: {f.code} {f.message}" for f in report.findings if f.severity.value == "error"
    ]
    assert errors == []


def test_older_emitters_are_told_what_the_conventions_ask():
    # OpenInference writes no gen_ai.operation.name and names the provider llm.system
    run = validate_paths([REAL / "openinference" / "tools" / "traces.jsonl"])
    found = [(f.code, f.severity.value) for f in run.files[0].findings]
    assert found.count(("O003", "warning")) == 2
    assert found.count(("O004", "warning")) == 2
    first = run.files[0].findings[0]
    assert "7c1a94f41600a96a" in first.message  # the span
    assert first.pointer.startswith("/resourceSpans/0/scopeSpans/0/spans/")


def test_pydantic_result_where_response_belongs_is_a_warning():
    run = validate_paths([REAL / "pydantic-ai" / "tools" / "traces.jsonl"])
    (report,) = run.files
    codes = [(f.code, f.line) for f in report.findings]
    assert codes == [("O007", 1), ("O007", 1)]
    assert report.summary.errors == 0
    assert "gen_ai.input.messages[2].parts[0]" in report.findings[0].message


# -- the conversation each emitter recorded --------------------------------------------


def _texts(msgs, role):
    return [b.text for m in msgs if m.role == role for b in m.content if isinstance(b, TextBlock)]


@pytest.mark.parametrize("path", cases(CONTENT), ids=ids(cases(CONTENT)))
def test_the_conversation_is_the_oracles(path):
    emitter, scenario = path.relative_to(REAL).parts[:2]
    conversation = oracle(emitter, scenario)["conversation"]
    msgs = messages(path)
    system = conversation.get("instructions", conversation.get("system"))
    assert _texts(msgs, "system") == [system]
    assert conversation["user"] in _texts(msgs, "user")
    assert _texts(msgs, "assistant")[-1] == conversation["final_text"]
    calls = [b for m in msgs for b in m.content if isinstance(b, ToolCallBlock)]
    results = {b.id: b.output for m in msgs for b in m.content if isinstance(b, ToolResultBlock)}
    if scenario == "tools":
        assert [(c.id, c.name, c.arguments) for c in calls] == [
            ("call_pAr1s0001", "get_weather", {"city": "Paris"}),
            ("call_t0Ky00002", "get_weather", {"city": "Tokyo"}),
        ]
        expected = [r.get("result", r.get("content")) for r in conversation["tool_results"]]
        assert [results["call_pAr1s0001"], results["call_t0Ky00002"]] == expected
    else:
        assert calls == [] and results == {}


@pytest.mark.parametrize("path", cases(USAGE), ids=ids(cases(USAGE)))
def test_usage_per_call_is_the_oracles(path):
    emitter, scenario = path.relative_to(REAL).parts[:2]
    expected = oracle(emitter, scenario)["usage_per_call"]
    msgs = messages(path)
    usages = [m.usage for m in msgs if m.usage is not None]
    assert [(u.input_tokens, u.output_tokens) for u in usages] == [
        (u["prompt_tokens"], u["completion_tokens"]) for u in expected
    ]
    for usage, call in zip(usages, expected, strict=True):
        if usage.cached_tokens is not None:  # (where the emitter records it)
            assert usage.cached_tokens == call["prompt_tokens_details"]["cached_tokens"]
    # one response each, the base-rate input without the cached tokens
    dialect = get_dialect("otel")
    responses = [r for m in msgs for r in dialect.responses(m)]
    assert [r.output for r in responses] == [u["completion_tokens"] for u in expected]
    assert [r.input + r.cache_read for r in responses] == [u["prompt_tokens"] for u in expected]


def test_events_and_spans_read_together_give_content_and_usage(tmp_path):
    folder = REAL / "openllmetry-events" / "tools"
    both = tmp_path / "both.jsonl"
    both.write_bytes((folder / "traces.jsonl").read_bytes() + (folder / "logs.jsonl").read_bytes())
    msgs = messages(both)
    expected = oracle("openllmetry-events", "tools")
    assert _texts(msgs, "assistant")[-1] == expected["conversation"]["final_text"]
    assert [m.usage.input_tokens for m in msgs if m.usage] == [
        u["prompt_tokens"] for u in expected["usage_per_call"]
    ]
    # the tool messages of these events carry no id: they answer the calls in order
    results = [b.id for m in msgs for b in m.content if isinstance(b, ToolResultBlock)]
    assert results == ["call_pAr1s0001", "call_t0Ky00002"]


def test_openai_v2_tool_run_of_two_traces_is_one_conversation():
    msgs = messages(REAL / "openai-v2-latest" / "tools" / "traces.jsonl")
    traces = {m.fields["trace"] for m in msgs}
    assert len(traces) == 2  # no parent span: joined by the tool call ids
    dialect = get_dialect("otel")
    assert len({r.session for m in msgs for r in dialect.responses(m)}) == 1
    assert [m.role for m in msgs] == ["system", "user", "assistant", "tool", "tool", "assistant"]


def test_legacy_openai_v2_has_usage_and_no_content():
    msgs = messages(REAL / "openai-v2-legacy" / "plain" / "traces.jsonl")
    assert [(m.role, m.content) for m in msgs] == [("assistant", [])]
    assert (
        msgs[0].usage.input_tokens
        == oracle("openai-v2-legacy", "plain")["usage_per_call"][0]["prompt_tokens"]
    )


def test_the_pydantic_error_run_shows_prompt_and_error():
    msgs = messages(REAL / "pydantic-ai" / "error-400" / "traces.jsonl")
    expected = json.loads((ORACLES / "pydantic-ai" / "error-400" / "oracle.json").read_text())
    assert _texts(msgs, "user") == [expected["conversation"]["user"]]
    (reply,) = [m for m in msgs if m.role == "assistant"]
    assert "context length" in reply.fields["error"]["message"]


def test_agent_and_tool_spans_are_kept_outside_the_conversation():
    everything = messages(REAL / "pydantic-ai" / "tools" / "traces.jsonl", aside=True)
    aside = [(m.role, m.name) for m in everything if m.fields.get("aside")]
    assert aside == [
        ("invoke_agent", "weather_agent"),
        ("execute_tool", "get_weather"),
        ("execute_tool", "get_weather"),
    ]


# -- stats --------------------------------------------------------------------------


def test_stats_count_each_call_once_never_the_agents_aggregate():
    path = REAL / "pydantic-ai" / "tools" / "traces.jsonl"
    expected = oracle("pydantic-ai", "tools")["usage_per_call"]
    (stats,) = collect_stats([path]).files
    assert stats.tokens.input == sum(u["prompt_tokens"] for u in expected)
    assert stats.tokens.output == sum(u["completion_tokens"] for u in expected)
    # the agent span says the same sum under gen_ai.aggregated_usage: not added again
    otel = stats.details["otel"]
    assert otel["calls"] == 2
    assert otel["spans"] == {"invoke_agent": 1, "chat": 2, "execute_tool": 2}
    assert otel["latency_ms"]["total"] > 0


def test_stats_count_errors():
    (stats,) = collect_stats([REAL / "pydantic-ai" / "error-400" / "traces.jsonl"]).files
    assert stats.details["otel"]["errors"] == {
        "pydantic_ai.exceptions.ModelContextWindowExceededError": 2
    }


# -- commands ------------------------------------------------------------------------


def run(*args, stdin=None):
    return subprocess.run(
        [sys.executable, "-m", "msgcli", *args],
        capture_output=True,
        text=True,
        input=stdin,
        timeout=120,
    )


def test_show_markdown_and_html_render_the_conversation(tmp_path):
    path = REAL / "openllmetry-0.44" / "tools" / "otlp-http" / "0001-traces.pb"
    final = oracle("openllmetry-0.44", "tools")["conversation"]["final_text"]
    shown = run("show", "--no-pager", "--width", "200", str(path))
    assert shown.returncode == 0, shown.stderr
    assert "call_pAr1s0001" in shown.stdout and final in shown.stdout
    markdown = tmp_path / "out.md"
    html = tmp_path / "out.html"
    assert run("show", str(path), "--export-markdown", str(markdown)).returncode == 0
    assert run("show", str(path), "--export-html", str(html)).returncode == 0
    assert final in markdown.read_text() and "call_t0Ky00002" in markdown.read_text()
    assert "call_t0Ky00002" in html.read_text()
    everything = run(
        "show", "--no-pager", "--all", str(REAL / "pydantic-ai" / "tools" / "traces.jsonl")
    )
    assert "INVOKE_AGENT" in everything.stdout.upper() and "weather_agent" in everything.stdout


def test_validate_and_stats_on_the_command_line():
    folder = REAL / "pydantic-ai" / "tools"
    checked = run("validate", str(folder))
    assert checked.returncode == 0, checked.stdout
    stats = run("stats", str(folder / "traces.jsonl"))
    assert stats.returncode == 0 and "otel" in stats.stdout


TARGETS = ["agentscope-py", "agentscope-java", "loongflow", "openai-chat", "anthropic"]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(
    "emitter", ["pydantic-ai", "openai-v2-latest", "openinference", "openllmetry"]
)
def test_a_trace_converts_to_every_dialect_and_validates(emitter, target, tmp_path):
    source = REAL / emitter / "tools" / "traces.jsonl"
    out = tmp_path / "out.jsonl"
    done = run("convert", "--to", target, str(source), "-o", str(out))
    assert done.returncode == 0, done.stderr
    (report,) = validate_paths([out]).files
    assert report.summary.errors == 0, [f.message for f in report.findings]
    converted = messages(out)
    calls = [b.id for m in converted for b in m.content if isinstance(b, ToolCallBlock)]
    if target == "loongflow":
        assert len(calls) == 2  # (LoongFlow's tool call ids are UUIDs: its writer maps them)
    else:
        assert calls == ["call_pAr1s0001", "call_t0Ky00002"]
    final = oracle(emitter, "tools")["conversation"]["final_text"]
    assert final in [b.text for m in converted for b in m.content if isinstance(b, TextBlock)]


HARBOR = REAL / "harbor-atif2otel" / "02-bash-ls"


@pytest.mark.parametrize("name", ["otlp.json", "export_request.pb", "resource_spans.pb"])
def test_harbor_atif2otel_in_its_three_forms(name):
    # enum names ("SPAN_KIND_INTERNAL"), a bare ResourceSpans body, OpenInference attributes
    # with input.value/output.value only: the trajectory it was made from is the ledger
    trajectory = json.loads(
        (ORACLES / "harbor-atif2otel" / "02-bash-ls" / "trajectory.json").read_text()
    )
    steps = trajectory["steps"]
    msgs = messages(HARBOR / name)
    assert _texts(msgs, "user") == [steps[0]["message"]]
    assert _texts(msgs, "assistant") == [s["message"] for s in steps if s["source"] == "agent"]
    usage = [(m.usage.input_tokens, m.usage.output_tokens) for m in msgs if m.usage]
    assert usage == [
        (s["metrics"]["prompt_tokens"], s["metrics"]["completion_tokens"])
        for s in steps
        if s.get("metrics")
    ]
    results = [b for m in msgs for b in m.content if isinstance(b, ToolResultBlock)]
    assert [b.output for b in results] == [steps[1]["observation"]["results"][0]["content"]]
    # the TOOL span names no call id, and the LLM span's output holds no call: the span
    # records the call too, read into the response before it and paired with the result
    calls = [(m, b) for m in msgs for b in m.content if isinstance(b, ToolCallBlock)]
    assert [(b.name, b.arguments) for _, b in calls] == [
        (c["function_name"], c["arguments"]) for c in steps[1]["tool_calls"]
    ]
    assert [m.role for m, _ in calls] == ["assistant"]
    assert _texts([m for m, _ in calls], "assistant") == [steps[1]["message"]]
    assert [b.id for _, b in calls] == [b.id for b in results] != [None]
    (report,) = validate_paths([HARBOR / name]).files
    assert report.summary.errors == 0


def test_a_protobuf_logs_body_is_read(tmp_path):
    from google.protobuf.json_format import ParseDict
    from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest

    from msgcli.dialects.otel.protobuf import hex_to_base64

    source = REAL / "openai-v2-latest" / "tools" / "otlp-http" / "0002-logs.json"
    body = ParseDict(hex_to_base64(json.loads(source.read_text())), ExportLogsServiceRequest())
    path = tmp_path / "0002-logs.pb"
    path.write_bytes(body.SerializeToString())
    summary = [(m.role, [getattr(b, "text", b.id) for b in m.content]) for m in messages(path)]
    assert summary == [
        (m.role, [getattr(b, "text", b.id) for b in m.content]) for m in messages(source)
    ]
    assert len(summary) == 6
