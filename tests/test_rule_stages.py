"""Every rule declares its stage, and every fast path declares the record rules it covers.

Validation skips the per-record rules for a record its dialect's fast path answers for, so a
record rule that a fast path does not cover would be silently skipped on the records the
frameworks write. These tests make that a failure of the suite instead.
"""

from __future__ import annotations

from dataclasses import replace

from msgcli.dialects import DIALECTS, uncovered
from msgcli.dialects.base import Dialect
from msgcli.findings import WARNING
from msgcli.rules import RECORD, RULES, STAGES, Rule, record_rules


def _with_fast_path() -> list[Dialect]:
    return [d for d in DIALECTS.values() if type(d).fast_digest is not Dialect.fast_digest]


def test_every_rule_declares_a_known_stage():
    assert {r.stage for r in RULES.values()} <= set(STAGES)
    # each stage has rules (a stage no rule names is a word too many)
    assert {r.stage for r in RULES.values()} == set(STAGES)


def test_stages_by_family():
    """What a user reads in the rule table: parsing is about bytes, E about event streams,
    the shared tool, media and block checks look at one record."""
    by_code = {code: rule.stage for code, rule in RULES.items()}
    assert {by_code[c] for c in RULES if c.startswith("P")} == {"bytes"}
    assert {by_code[c] for c in RULES if c.startswith("E")} == {"stream"}
    assert {by_code[c] for c in ("T004", "T005", "T007", "T008", "M001", "B001")} == {RECORD}
    assert {by_code[c] for c in ("T001", "T002", "T003", "I001", "I002", "C002")} == {
        "cross-record"
    }


def test_the_three_framework_dialects_have_fast_paths():
    names = {d.name for d in _with_fast_path()}
    assert names == {"agentscope-java", "agentscope-py", "loongflow"}


def test_every_record_rule_is_covered_by_every_fast_path():
    assert uncovered() == {}, (
        "a record rule is not covered by a fast path: when a record passes its schema and "
        "the fast path answers, validate skips it. Make the fast path answer None where the "
        "rule could speak, then add the code to the dialect's fast_covers"
    )


def test_own_rules_are_rules():
    for dialect in DIALECTS.values():
        assert dialect.own_rules <= set(RULES), dialect.name
        assert dialect.fast_covers <= record_rules(), dialect.name


def test_a_new_record_rule_without_coverage_fails_the_check():
    new = Rule("B999", "new-record-rule", WARNING, "A rule added after the fast paths.")
    assert new.stage == RECORD  # the default: a rule on one record
    found = uncovered(rules=[*RULES.values(), new])
    assert set(found) == {d.name for d in _with_fast_path()}
    assert all(missing == ["B999"] for missing in found.values())


def test_a_rule_moved_to_the_record_stage_without_coverage_fails_the_check():
    moved = [replace(r, stage=RECORD) if r.code == "C002" else r for r in RULES.values()]
    found = uncovered(rules=moved)
    assert found and all("C002" in missing for missing in found.values())


def test_a_dialects_own_rule_binds_only_its_fast_path():
    """A record rule one dialect claims (LoongFlow's S005) is required of that dialect's fast
    path only; taking it out of that fast path's coverage is caught."""
    loongflow = DIALECTS["loongflow"]

    class Forgetful(type(loongflow)):  # type: ignore[misc]
        fast_covers = loongflow.fast_covers - {"S005"}

    others = [d for d in DIALECTS.values() if d is not loongflow]
    assert uncovered([*others, Forgetful()]) == {"loongflow": ["S005"]}


def test_a_rule_no_dialect_claims_binds_a_new_dialects_fast_path():
    """A fourth dialect whose fast path forgets a shared record rule (B001) is caught."""

    class Partial(Dialect):
        name = "partial"
        fast_covers = record_rules() - {"B001"}

        def fast_digest(self, obj):
            return None

    assert "B001" in uncovered([*DIALECTS.values(), Partial()])["partial"]
