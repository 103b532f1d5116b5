"""``msgcli usage``: its totals against ``stats``, against what the producers themselves
counted (Claude Code's stream-json ``result``, the ledgers of the coding agents' mock
servers), its groupings against a count made here, and its prices."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from msgcli.dialects import DIALECTS, get_dialect
from msgcli.engine import Options
from msgcli.stats import file_stats
from msgcli.stream import open_log
from msgcli.usage import collect_usage

ROOT = Path(__file__).resolve().parent.parent
REAL = ROOT / "fixtures" / "real"
CLAUDE = REAL / "claude-code"


@pytest.fixture(autouse=True)
def _own_cache(tmp_path_factory, monkeypatch) -> None:
    """The prices looked up are kept in a cache of the test's own."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))


_LOG_SUFFIXES = (".jsonl", ".json", ".ndjson", ".sse", ".jsonl.gz", ".jsonl.zst", ".db")


def _real_logs() -> list[Path]:
    out = []
    for path in sorted([*REAL.rglob("*"), *(ROOT / "fixtures" / "provider-streams").rglob("*")]):
        if path.is_file() and path.name.endswith(_LOG_SUFFIXES) and "ledger" not in path.name:
            if path.name.endswith((".meta.json", "meta.json")):
                continue
            out.append(path)
    return out


def _only(path: Path, **kwargs):
    """The report of one file alone (its sub-agents apart, as stats counts them apart)."""
    return collect_usage(
        [str(path)], priced=False, jobs=1, subagents="apart", by=("agent",), **kwargs
    )


def _main_thread(report) -> dict:
    main = [t for key, t in report.rows.items() if key == (None,)]
    return main[0].to_dict() if main else {"responses": 0}


# -- the same numbers as stats -------------------------------------------------------------


@pytest.mark.parametrize("path", _real_logs(), ids=lambda p: str(p.relative_to(ROOT / "fixtures")))
def test_usage_of_every_real_log_equals_stats(path: Path) -> None:
    stats = file_stats(str(path))
    if not stats.readable or stats.dialect is None:
        pytest.skip("not a log msgcli reads whole")
    tokens = stats.tokens
    dialect = get_dialect(stats.dialect)
    # the file's own responses: those of the logs read with it (a session's sub-agents,
    # which stats counts apart) taken out
    main = _only(path).total.to_dict()
    for _, beside in dialect.related_logs(str(path)):
        theirs = _only(Path(beside)).total.to_dict()
        for name in ("responses", "input", "output", "cache_read", "reasoning"):
            main[name] -= theirs[name]
    if tokens.messages == 0:
        assert main["responses"] == 0
        return
    assert main["responses"] == tokens.messages
    assert main["output"] == tokens.output
    assert main["cache_read"] == tokens.cached
    expected_input = tokens.input - (tokens.cached if dialect.usage_cache_in_input else 0)
    assert main["input"] == expected_input
    assert main["reasoning"] == tokens.reasoning


def _claude_sessions() -> list[Path]:
    return sorted(p for p in CLAUDE.rglob("*.jsonl") if not p.name.startswith("stream"))


@pytest.mark.parametrize("path", _claude_sessions(), ids=lambda p: str(p.relative_to(CLAUDE)))
def test_lean_path_gives_what_reading_every_record_gives(path: Path) -> None:
    dialect = get_dialect("claude-code")
    lean = dialect.scan_responses(str(path))
    assert lean is not None, "a plain session file takes the lean path"
    whole = []
    for item in open_log(str(path), Options()):
        if item.message is not None:
            whole.extend(dialect.responses(item.message))
    assert lean == whole


def test_lean_path_hands_over_what_it_cannot_place(tmp_path: Path) -> None:
    source = CLAUDE / "03-parallel-read" / "session.jsonl"
    lines = source.read_bytes().splitlines(keepends=True)
    # an assistant record without usage: the lean path cannot tell where it belongs
    for i, line in enumerate(lines):
        record = json.loads(line)
        if record.get("type") == "assistant":
            del record["message"]["usage"]
            lines[i] = json.dumps(record, separators=(",", ":")).encode() + b"\n"
            break
    broken = tmp_path / "s.jsonl"
    broken.write_bytes(b"".join(lines))
    assert get_dialect("claude-code").scan_responses(str(broken)) is None
    # and the command still counts the file, by the whole path
    report = collect_usage([str(broken)], priced=False, jobs=1, by=("model",))
    assert report.total.responses == file_stats(str(broken)).tokens.messages


def _with_line_before_last_block(line: bytes, usage: dict | None = None) -> bytes:
    """03-parallel-read's session with ``line`` put between the last two records of its first
    response (records 7 and 8: a tool result already lies there), and ``usage`` on the last."""
    source = CLAUDE / "03-parallel-read" / "session.jsonl"
    lines = [x for x in source.read_bytes().split(b"\n") if x.strip()]
    if usage is not None:
        record = json.loads(lines[8])
        record["message"]["usage"].update(usage)
        lines[8] = json.dumps(record, separators=(",", ":")).encode()
    return b"\n".join([*lines[:8], line, *lines[8:]]) + b"\n"


def _prompt(text: str) -> bytes:
    source = CLAUDE / "03-parallel-read" / "session.jsonl"
    first = json.loads([x for x in source.read_bytes().split(b"\n") if x.strip()][2])
    first["message"]["content"] = text
    return json.dumps(first, separators=(",", ":")).encode()


@pytest.mark.parametrize(
    "line",
    [
        pytest.param(_prompt("go on"), id="a prompt"),
        pytest.param(_prompt('what was the "usage" of the last run?'), id="a prompt saying usage"),
        pytest.param(b"", id="nothing"),
    ],
)
def test_lean_path_and_whole_path_agree_where_a_prompt_comes_between(
    tmp_path: Path, line: bytes
) -> None:
    """A prompt between two records of one response closes it (the later record is a
    response met again, not counted); a tool result does not."""
    path = tmp_path / "s.jsonl"
    path.write_bytes(_with_line_before_last_block(line, {"output_tokens": 999}))
    dialect = get_dialect("claude-code")
    whole = []
    for item in open_log(str(path), Options()):
        if item.message is not None:
            whole.extend(dialect.responses(item.message))
    lean = dialect.scan_responses(str(path))
    assert lean is not None and lean == whole
    first = [r for r in lean if r.key and "msg_01TtYPnAnVOFPLhGW17FXAOd" in r.key]
    # the usage of the last record of the response counts unless a prompt closed it first
    assert first[0].output == (
        999
        if not line
        else _independent_file(CLAUDE / "03-parallel-read" / "session.jsonl")[0]["output"]
    )


# -- the producers' own totals -------------------------------------------------------------


def _result(stream: Path) -> dict:
    for line in reversed(stream.read_bytes().split(b"\n")):
        if not line.strip():
            continue
        record = json.loads(line)
        if record.get("type") == "result":
            return record
    raise AssertionError("no result record")


def _scenarios() -> list[Path]:
    return sorted(p.parent for p in CLAUDE.rglob("stream.jsonl"))


#: scenarios of several runs into one session file, whose last result counts the last run
_SEVERAL_RUNS = {"13a-resume", "19-compact"}


@pytest.mark.parametrize("scenario", _scenarios(), ids=lambda p: str(p.relative_to(CLAUDE)))
def test_claude_code_totals_equal_its_own_result(scenario: Path) -> None:
    if scenario.name in _SEVERAL_RUNS:
        pytest.skip("the session file holds several runs, the result the last one")
    result = _result(scenario / "stream.jsonl")
    # the run's own count, every model and sub-agent included
    own = result["modelUsage"].values()
    sessions = [p for p in scenario.rglob("*.jsonl") if "subagents" not in p.parts]
    session = [p for p in sessions if p.parent.name != scenario.name] or [
        scenario / "session.jsonl"
    ]
    report = collect_usage([str(session[0])], priced=False, jobs=1, by=("model",))
    t = report.total
    assert t.input == sum(m["inputTokens"] for m in own)
    assert t.output == sum(m["outputTokens"] for m in own)
    assert t.cache_read == sum(m["cacheReadInputTokens"] for m in own)
    assert t.cache_write == sum(m["cacheCreationInputTokens"] for m in own)
    if importlib.util.find_spec("genai_prices") is not None:
        # and the cost Claude Code itself put on the run
        priced = collect_usage([str(session[0])], jobs=1, by=("model",))
        assert priced.total.unpriced == 0
        assert priced.total.cost == pytest.approx(result["total_cost_usd"], abs=1e-9)


def _partial(stream: Path) -> bool:
    return b'"type":"stream_event"' in stream.read_bytes()


@pytest.mark.parametrize(
    "scenario",
    [s for s in _scenarios() if _partial(s / "stream.jsonl")],
    ids=lambda p: str(p.relative_to(CLAUDE)),
)
def test_a_stream_json_log_with_partial_messages_equals_its_result(scenario: Path) -> None:
    """With --include-partial-messages the stream holds each response's final usage (without
    them, only the result does: see the README)."""
    usage = _result(scenario / "stream.jsonl")["usage"]
    main = _main_thread(_only(scenario / "stream.jsonl"))
    assert main["input"] == usage["input_tokens"]
    assert main["output"] == usage["output_tokens"]
    assert main["cache_read"] == usage["cache_read_input_tokens"]


def test_a_path_that_cannot_be_read_is_said_and_the_rest_counted(tmp_path: Path) -> None:
    session = CLAUDE / "01-plain-markdown" / "session.jsonl"
    done = _run(str(tmp_path / "missing.jsonl"), str(session), "--format", "json")
    assert done.returncode == 2
    assert "missing.jsonl" in done.stderr and "Traceback" not in done.stderr
    assert json.loads(done.stdout)["total"]["responses"] == 1


def test_a_session_with_its_subagents_equals_claude_codes_model_usage() -> None:
    for scenario in (CLAUDE / "09-subagent", CLAUDE / "2.1.332" / "g05-subagent"):
        result = _result(scenario / "stream.jsonl")
        by_model = result["modelUsage"]
        sessions = list((scenario / "projects").rglob("*.jsonl"))
        main = [p for p in sessions if "subagents" not in p.parts]
        assert len(main) == 1
        report = collect_usage([str(main[0])], priced=False, jobs=1, by=("model",))
        # the sub-agent files beside the session are read with it, once
        assert report.total.input == sum(m["inputTokens"] for m in by_model.values())
        assert report.total.output == sum(m["outputTokens"] for m in by_model.values())
        apart = collect_usage([str(main[0])], priced=False, jobs=1, subagents="apart")
        agents = {key[-1] for key in apart.rows}
        assert None in agents and len(agents) == 2


# the ledgers of the coding agents' mock servers: per dialect, the sum the stored logs hold
# (see each corpus' FORMAT.md) as (responses, every token billed, cache read, reasoning), and
# the folder of a scenario holding the logs it counts; a dialect joins when its fixtures
# (with a ledger.json, or ledger.txt, beside each scenario's logs) are merged
def _codex(ledger: dict) -> tuple:
    s = ledger["sum_over_completed_responses"]
    done = sum(1 for r in ledger["requests"] if r.get("completed"))
    return done, s["total_tokens"], s["cached_tokens"], s["reasoning_tokens"]


def _gemini(ledger: dict) -> tuple:
    s = ledger["sum_completed_main"]
    return (
        s["responses"],
        s["totalTokenCount"],
        s.get("cachedContentTokenCount", 0),
        s.get("thoughtsTokenCount", 0),
    )


def _opencode(ledger: dict) -> tuple:
    s = ledger["sum_completed_excluding_title"]
    return s["responses"], s["total_tokens"], s["cached_tokens"], s["reasoning_tokens"]


LEDGERS = {"codex": _codex, "gemini-cli": _gemini, "opencode": _opencode}
#: where in a scenario's folder the logs the ledger counts are (else the whole folder:
#: codex's folder also keeps the `exec --json` output of the run)
LEDGER_LOGS = {"codex": "sessions"}
#: scenarios whose logs are known not to hold what the ledger counts (FORMAT.md says why:
#: Gemini CLI's loop detector drops the responses it stopped)
LEDGER_EXCEPTIONS = {("gemini-cli", "16")}


def _ledgers() -> list[tuple[str, Path]]:
    out = []
    for name in sorted(LEDGERS):
        folder = REAL / name
        if name not in DIALECTS or not folder.is_dir():
            continue
        for ledger in sorted([*folder.rglob("ledger.json"), *folder.rglob("ledger.txt")]):
            scenario = ledger.parent.name.split("-", 1)[0]
            if (name, scenario) not in LEDGER_EXCEPTIONS:
                out.append((name, ledger))
    return out


@pytest.mark.parametrize(
    "name,ledger",
    _ledgers()
    or [pytest.param(None, None, marks=pytest.mark.skip(reason="no coding-agent fixtures yet"))],
)
def test_usage_equals_the_mock_servers_ledger(name: str, ledger: Path) -> None:
    expected = LEDGERS[name](json.loads(ledger.read_text()))
    logs = ledger.parent / LEDGER_LOGS.get(name, ".")
    if not logs.is_dir():
        logs = ledger.parent
    report = collect_usage([str(logs)], priced=False, jobs=1, by=("model",))
    t = report.total
    assert (t.responses, t.tokens, t.cache_read, t.reasoning) == expected


# -- groupings, counted here ---------------------------------------------------------------


def _independent(folder: Path) -> list[dict]:
    """Every response of the Claude Code session files below ``folder``, counted here: the
    records of one message id and request id are one response, its usage the last record's
    (of the first run of records of that id), its time and model the first record's;
    synthetic records and repeats left out."""
    found: dict[tuple, dict] = {}
    for path in sorted(folder.rglob("*.jsonl")):
        current = None
        for line in path.read_bytes().split(b"\n"):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except ValueError:
                continue  # (a line cut short: no response in it)
            if record.get("type") == "user" and not any(
                isinstance(b, dict) and b.get("type") == "tool_result"
                for b in (record.get("message", {}).get("content") or [])
                if isinstance(record.get("message", {}).get("content"), list)
            ):
                current = None
            if record.get("type") != "assistant":
                continue
            message = record["message"]
            key = (message["id"], record.get("requestId"))
            if message.get("model") == "<synthetic>":
                current = key
                continue
            if key in found and current != key:
                continue
            if key not in found:
                found[key] = {
                    "time": datetime.fromisoformat(record["timestamp"]),
                    "model": message["model"],
                    "session": record["sessionId"],
                    "project": record["cwd"],
                }
            current = key
            u = message["usage"]
            found[key].update(
                input=u["input_tokens"],
                output=u["output_tokens"],
                cache_read=u.get("cache_read_input_tokens", 0),
                cache_write=u.get("cache_creation_input_tokens", 0),
            )
    return list(found.values())


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """A projects folder made of the real session files (and their sub-agents)."""
    out = tmp_path_factory.mktemp("projects")
    for i, session in enumerate(_claude_sessions()):
        if "subagents" in session.parts:
            continue
        target = (
            out / f"p{i % 3}" / session.name
            if session.name != "session.jsonl"
            else (out / f"p{i % 3}" / f"{i}.jsonl")
        )
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(session, target)
        beside = session.with_suffix("")
        if (beside / "subagents").is_dir():
            shutil.copytree(beside, target.with_suffix(""))
    return out


def _group(responses: list[dict], by: str, zone: ZoneInfo) -> dict:
    out: dict = defaultdict(lambda: [0, 0, 0])
    for r in responses:
        day = r["time"].astimezone(zone).date()
        key = {
            "day": day.isoformat(),
            "month": day.strftime("%Y-%m"),
            "week": "{}-W{:02}".format(*day.isocalendar()[:2]),
            "model": r["model"],
            "session": r["session"],
            "project": r["project"],
        }[by]
        counts = out[key]
        counts[0] += 1
        counts[1] += r["input"]
        counts[2] += r["output"]
    return dict(out)


@pytest.mark.parametrize("by", ["day", "week", "month", "model", "session", "project"])
@pytest.mark.parametrize("zone", ["UTC", "Pacific/Kiritimati", "America/Los_Angeles"])
def test_every_grouping_against_a_count_made_here(folder: Path, by: str, zone: str) -> None:
    expected = _group(_independent(folder), by, ZoneInfo(zone))
    report = collect_usage([str(folder)], by=(by,), zone=ZoneInfo(zone), priced=False, jobs=2)
    got = {key[0]: [t.responses, t.input, t.output] for key, t in report.rows.items()}
    assert got == expected


def test_days_move_with_the_zone(folder: Path) -> None:
    east = collect_usage([str(folder)], zone=ZoneInfo("Pacific/Kiritimati"), priced=False)
    west = collect_usage([str(folder)], zone=ZoneInfo("America/Los_Angeles"), priced=False)
    assert set(east.rows) != set(west.rows)
    assert east.total.responses == west.total.responses


def test_since_and_until_keep_the_days_between(folder: Path) -> None:
    for name in ("UTC", "America/Los_Angeles", "Pacific/Kiritimati", "Asia/Kolkata"):
        zone = ZoneInfo(name)
        days = sorted(_group(_independent(folder), "day", zone))
        if len(days) >= 2:
            break
    assert len(days) >= 2
    from datetime import date

    report = collect_usage(
        [str(folder)],
        zone=zone,
        since=date.fromisoformat(days[1]),
        until=date.fromisoformat(days[-1]),
        priced=False,
    )
    assert sorted(k[0] for k in report.rows) == days[1:]


# -- prices --------------------------------------------------------------------------------


def _prices(tmp_path: Path, table: dict) -> str:
    path = tmp_path / "prices.json"
    path.write_text(json.dumps(table))
    return str(path)


def test_a_users_table_prices_each_response_on_its_own(tmp_path: Path) -> None:
    session = CLAUDE / "19-compact" / "session.jsonl"
    responses = _independent_file(session)
    inputs = sorted(r["input"] for r in responses)
    # a tier above the largest single request's input, below the sum of all of them
    above = inputs[-1] + 1
    assert sum(inputs) > above
    table = {
        "models": {
            "claude-sonnet-4-5*": {
                "input": 3,
                "output": 15,
                "tiers": [{"above": above, "input": 100, "output": 100}],
            }
        }
    }
    report = collect_usage([str(session)], by=("day",), prices=_prices(tmp_path, table), jobs=1)
    expected = sum(r["input"] * 3 + r["output"] * 15 for r in responses) / 1e6
    assert report.total.cost == pytest.approx(expected)
    assert report.total.unpriced == 0


def test_a_tier_applies_to_the_request_above_it(tmp_path: Path) -> None:
    session = CLAUDE / "19-compact" / "session.jsonl"
    responses = _independent_file(session)
    above = sorted(r["input"] for r in responses)[-1] - 1  # the largest request only
    table = {
        "models": {
            "claude-sonnet-4-5-20250929": {
                "input": 1,
                "output": 2,
                "tiers": [{"above": above, "input": 10}],
            }
        }
    }
    report = collect_usage([str(session)], prices=_prices(tmp_path, table), jobs=1)
    expected = (
        sum(r["input"] * (10 if r["input"] > above else 1) + r["output"] * 2 for r in responses)
        / 1e6
    )
    assert report.total.cost == pytest.approx(expected)


def test_price_history_by_the_responses_date(tmp_path: Path) -> None:
    session = CLAUDE / "19-compact" / "session.jsonl"
    responses = _independent_file(session)
    first = min(r["time"] for r in responses)
    later = datetime(first.year + 1, 1, 1, tzinfo=UTC)
    table = {
        "models": {
            "claude*": [
                {"input": 1, "output": 1},
                {"from": later.date().isoformat(), "input": 50, "output": 50},
            ]
        }
    }
    report = collect_usage([str(session)], prices=_prices(tmp_path, table), jobs=1)
    expected = sum(r["input"] + r["output"] for r in responses) / 1e6
    assert report.total.cost == pytest.approx(expected)


def test_bundled_prices_claude_sonnet_at_its_list_price() -> None:
    pytest.importorskip("genai_prices")
    session = CLAUDE / "01-plain-markdown" / "session.jsonl"
    responses = _independent_file(session)
    report = collect_usage([str(session)], jobs=1)
    # Claude Sonnet 4.5: $3 input, $15 output per million tokens below 200k input tokens
    expected = sum(r["input"] * 3 + r["output"] * 15 for r in responses) / 1e6
    assert report.total.cost == pytest.approx(expected)
    assert any(s.startswith("genai-prices") for s in report.prices)


def test_bundled_prices_are_the_same_from_the_cache(tmp_path: Path) -> None:
    pytest.importorskip("genai_prices")
    session = CLAUDE / "19-compact" / "session.jsonl"
    first = collect_usage([str(session)], jobs=1)
    cached = list((Path(os.environ["XDG_CACHE_HOME"]) / "msgcli").glob("prices-*.json"))
    assert len(cached) == 1
    again = collect_usage([str(session)], jobs=1)
    assert again.total.cost == first.total.cost > 0


def test_bundled_prices_of_cache_tokens_and_the_long_context_tier(tmp_path: Path) -> None:
    """Claude Sonnet 4.5 at Anthropic's list prices: $3 input, $15 output, $0.30 cache
    read, $3.75 cache write per million tokens, and $6, $22.50, $0.60 and $7.50 for a
    request of more than 200k input tokens (cache included), that request alone."""
    pytest.importorskip("genai_prices")
    source = CLAUDE / "02-bash-ls" / "session.jsonl"
    lines = []
    sizes = iter([(1000, 20_000, 5_000), (150_000, 60_000, 1_000)])
    given: dict[str, tuple] = {}  # every record of a response gets the same usage
    for line in source.read_bytes().split(b"\n"):
        if not line.strip():
            continue
        record = json.loads(line)
        if record.get("type") == "assistant":
            usage = record["message"]["usage"]
            mid = record["message"]["id"]
            if mid not in given:
                given[mid] = next(sizes)
            size = given[mid]
            usage["input_tokens"], usage["cache_read_input_tokens"] = size[0], size[1]
            usage["cache_creation_input_tokens"] = size[2]
        lines.append(json.dumps(record, separators=(",", ":")))
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(lines) + "\n")
    found = _independent_file(path)
    assert len(found) == 2
    expected = 0.0
    for r, (inp, read, write) in zip(
        found, [(1000, 20_000, 5_000), (150_000, 60_000, 1_000)], strict=True
    ):
        long = inp + read + write > 200_000
        rates = (6, 22.5, 0.6, 7.5) if long else (3, 15, 0.3, 3.75)
        expected += (
            inp * rates[0] + r["output"] * rates[1] + read * rates[2] + write * rates[3]
        ) / 1e6
    report = collect_usage([str(path)], jobs=1)
    assert report.total.cache_read == 80_000 and report.total.cache_write == 6_000
    assert report.total.cost == pytest.approx(expected)


def test_an_unknown_model_is_unpriced_never_free(tmp_path: Path) -> None:
    session = CLAUDE / "01-plain-markdown" / "session.jsonl"
    text = session.read_text().replace("claude-sonnet-4-5-20250929", "house-model-7")
    renamed = tmp_path / "s.jsonl"
    renamed.write_text(text)
    report = collect_usage([str(renamed)], jobs=1)
    assert report.total.unpriced == report.total.responses > 0
    doc = report.to_dict()
    assert doc["total"]["cost"] is None
    assert doc["total"]["unpriced_models"] == ["house-model-7"]
    assert doc["total"]["output"] > 0


def _independent_file(path: Path) -> list[dict]:
    found: dict = {}
    for line in path.read_bytes().split(b"\n"):
        if not line.strip():
            continue
        record = json.loads(line)
        if record.get("type") != "assistant" or record["message"].get("model") == "<synthetic>":
            continue
        key = (record["message"]["id"], record.get("requestId"))
        u = record["message"]["usage"]
        found.setdefault(key, {"time": datetime.fromisoformat(record["timestamp"])}).update(
            input=u["input_tokens"], output=u["output_tokens"]
        )
    return list(found.values())


# -- the command ---------------------------------------------------------------------------


def _run(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "msgcli", "usage", *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )


def test_the_command_json_csv_and_table(folder: Path) -> None:
    done = _run(str(folder), "--by", "day,model", "--tz", "UTC", "--format", "json", "--breakdown")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["by"] == ["day", "model"]
    assert {
        "key",
        "input",
        "output",
        "cache_read",
        "cache_write",
        "reasoning",
        "cost",
        "unpriced",
    } <= set(doc["rows"][0])
    assert set(doc["rows"][0]["key"]) == {"day", "model"}
    expected = _independent(folder)
    assert doc["total"]["responses"] == len(expected)
    assert doc["total"]["input"] == sum(r["input"] for r in expected)
    assert sum(row["output"] for row in doc["rows"]) == doc["total"]["output"]
    done = _run(str(folder), "--by", "month", "--format", "csv")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("month,responses,input,output")
    assert lines[-1].startswith("total,")
    done = _run(str(folder), "--by", "project")
    assert done.returncode == 0, done.stderr
    assert "Total" in done.stdout and "Cost (USD)" in done.stdout


@pytest.mark.parametrize(
    "args,says",
    [
        (["--by", "year"], "--by"),
        (["--tz", "Mars/Olympus"], "--tz"),
        (["--since", "yesterday"], "--since"),
    ],
)
def test_the_command_refuses_what_it_cannot_do(folder: Path, args: list, says: str) -> None:
    done = _run(str(folder), *args)
    assert done.returncode == 2
    assert says in done.stderr and "Traceback" not in done.stderr


def test_a_bad_price_table_is_a_clear_error(tmp_path: Path, folder: Path) -> None:
    bad = tmp_path / "p.json"
    bad.write_text('{"models": {"x": {"input": "three"}}}')
    done = _run(str(folder), "--prices", str(bad))
    assert done.returncode == 2
    assert "input must be a number" in done.stderr and "Traceback" not in done.stderr


def test_text_from_a_log_is_printed_safely(tmp_path: Path) -> None:
    session = CLAUDE / "01-plain-markdown" / "session.jsonl"
    text = session.read_text().replace("claude-sonnet-4-5-20250929", "evil\\u001b[31m[bold]x")
    (tmp_path / "s.jsonl").write_text(text)
    done = _run(str(tmp_path), "--by", "model")
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout
    assert "[bold]x" in done.stdout
