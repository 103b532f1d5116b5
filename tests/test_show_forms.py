"""``show`` and ``stats`` on what the frameworks write beside plain text: hints made of
blocks, structured output, LoongFlow thoughts that are objects, text tool outputs of another
kind than plain, and text nested in tool results. Assertions are on what a reader sees.

Real output where a run made it (``fixtures/real/agentscope-py/structured``: a reply with a
structured output requirement, a failed first attempt, and the framework's own hints made of
blocks); the LoongFlow forms and a hint holding an image are made from the real records by
changing only the value at issue.
"""

from __future__ import annotations

import base64
import copy
import io
import json

import orjson
from conftest import FIXTURES

from msgcli.render.view import ShowOptions, View, console_for
from msgcli.stats import collect_stats

STRUCTURED = FIXTURES / "real" / "agentscope-py" / "structured"
LOONGFLOW = FIXTURES / "real" / "loongflow" / "transcript.jsonl"
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"


def render(path, **options) -> str:
    out = io.StringIO()
    console = console_for(out, colour=False, width=120)
    code = View(console, ShowOptions(**options)).run([str(path)], None)
    assert code == 0
    return out.getvalue()


def read_jsonl(path) -> list[dict]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


def write_jsonl(path, records) -> None:
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))


def test_a_hint_made_of_blocks_reads_as_its_text():
    text = render(STRUCTURED / "structured-context.jsonl")
    assert "hint (" in text and "Structured Output Requirement" in text
    assert "You're required to generate structured output by calling the" in text
    # never the blocks' JSON: no keys, ids or stamps of the inner text block
    assert '"type"' not in text and "created_at" not in text
    hint = read_jsonl(STRUCTURED / "structured-context.jsonl")[1]["content"][0]["hint"][0]
    assert hint["id"] not in text


def test_a_hint_with_media_shows_one_line_for_it(tmp_path):
    records = read_jsonl(STRUCTURED / "structured-context.jsonl")
    hint = records[1]["content"][0]
    image = copy.deepcopy(hint["hint"][0])
    image.update(type="data", source={"type": "base64", "media_type": "image/png", "data": PNG})
    del image["text"]
    image["name"] = "chart.png"
    hint["hint"].append(image)
    path = tmp_path / "context.jsonl"
    write_jsonl(path, records)
    text = render(path)
    media = [line.strip() for line in text.splitlines() if line.strip().startswith("▣")]
    assert media == [f"▣ image/png · {len(base64.b64decode(PNG))} B · chart.png"]
    assert PNG[:20] not in text


def test_structured_output_is_shown_under_its_own_label_as_pretty_json():
    text = render(STRUCTURED / "structured-reply.jsonl")
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.strip() == "structured output")
    shown = "\n".join(lines[at + 1 : at + 6])
    assert json.loads(shown) == {"city": "Zürich", "celsius": 7.0, "summary": "light rain"}
    assert lines[at + 2].strip() == '"city": "Zürich",'  # one key a line, indented


def test_stats_counts_structured_outputs_and_names_nested_text(tmp_path, run_cli):
    stats = collect_stats([str(STRUCTURED / "structured-reply.jsonl")])
    (fs,) = stats.files
    assert fs.structured_outputs == 1
    code, out = run_cli("stats", "--format", "json", str(STRUCTURED / "structured-context.jsonl"))
    assert code == 0
    (entry,) = json.loads(out)["files"]
    assert entry["messages"]["structured_outputs"] == 0
    # the text inside the tool results is named apart from the top-level text
    records = read_jsonl(STRUCTURED / "structured-context.jsonl")
    top = sum(b["type"] == "text" for r in records for b in r["content"])
    nested = sum(
        inner["type"] == "text"
        for r in records
        for b in r["content"]
        if b["type"] == "tool_result" and isinstance(b["output"], list)
        for inner in b["output"]
    )
    assert nested >= 1
    assert entry["blocks"]["in_tool_results"] == {"text": nested}
    assert entry["blocks"]["by_type"]["text"] == top + nested
    code, out = run_cli("stats", str(STRUCTURED / "structured-context.jsonl"))
    lines = [line.split() for line in out.splitlines()]
    assert any(words[-4:] == ["in", "tool", "results", str(nested)] for words in lines)
    code, out = run_cli("stats", str(STRUCTURED / "structured-reply.jsonl"))
    assert any(line.split() == ["structured", "outputs", "1"] for line in out.splitlines())


def test_loongflow_object_thought_is_pretty_json(tmp_path):
    records = read_jsonl(LOONGFLOW)
    thought = {"plan": ["get_weather", "answer"], "confidence": 0.9}
    records[6]["content"][0]["content"] = thought
    path = tmp_path / "transcript.jsonl"
    write_jsonl(path, records)
    for mode in ("fold", "full"):
        text = render(path, thinking=mode)
        lines = text.splitlines()
        at = next(i for i, line in enumerate(lines) if '"plan": [' in line)
        assert lines[at - 1].strip() == "{" and lines[at - 2].strip() == "thinking"
        assert '"confidence": 0.9' in text or mode == "fold"


def test_a_markdown_tool_output_is_shown_as_text(tmp_path):
    records = read_jsonl(LOONGFLOW)
    result = records[3]["content"][0]["result"][0]
    result.update(mime_type="text/markdown", data="# Beijing\n\n* sunny, 25 °C")
    path = tmp_path / "transcript.jsonl"
    write_jsonl(path, records)
    text = render(path)
    assert "value (text/markdown)" in text
    lines = [line.strip() for line in text.splitlines()]
    at = lines.index("value (text/markdown)")
    assert lines[at + 1 : at + 4] == ["# Beijing", "", "* sunny, 25 °C"]  # not a JSON string
