"""The rules of ATIF trajectories (family ``A``) and what ``msgcli rules CODE`` says of them."""

from __future__ import annotations

from ...findings import ERROR, INFO, WARNING
from ...rules import CROSS_RECORD, RECORD, Rule

__all__ = ["EXPLAINED", "RULES"]

RULES = (
    Rule(
        "A001",
        "atif-model",
        ERROR,
        "An ATIF trajectory does not match the format's models (the atif package): a required "
        "field missing, a value of the wrong type, an agent-only field on another step.",
        stage=RECORD,
    ),
    Rule(
        "A002",
        "atif-unknown-field",
        INFO,
        "A field no ATIF version msgcli knows has (a newer version, or a producer's own): kept "
        "and shown.",
        stage=RECORD,
    ),
    Rule(
        "A003",
        "atif-newer-version",
        INFO,
        "The trajectory declares an ATIF version newer than msgcli knows: read by the fields "
        "it knows.",
        stage=RECORD,
    ),
    Rule(
        "A004",
        "atif-field-of-later-version",
        INFO,
        "A field that a later ATIF version than the one the trajectory declares brought.",
        stage=RECORD,
    ),
    Rule(
        "A005",
        "atif-step-id-sequence",
        ERROR,
        "Step ids are not 1, 2, 3... in order.",
        stage=CROSS_RECORD,
    ),
    Rule(
        "A006",
        "atif-observation-call",
        ERROR,
        "An observation result's source_call_id names no tool call of its step.",
        stage=CROSS_RECORD,
    ),
    Rule(
        "A007",
        "atif-final-metrics",
        WARNING,
        "A trajectory's final_metrics total differs from the sum over its steps.",
        stage=CROSS_RECORD,
    ),
    Rule(
        "A008",
        "atif-subagent-ref",
        ERROR,
        "A subagent_trajectory_ref names an embedded trajectory that is not there, or an "
        "embedded subagent trajectory has no trajectory_id or shares one.",
        stage=CROSS_RECORD,
    ),
    Rule(
        "A009",
        "atif-subagent-file",
        WARNING,
        "A subagent_trajectory_ref's trajectory_path, or a continued_trajectory_ref, names a "
        "file that is not there.",
        stage=CROSS_RECORD,
    ),
    Rule(
        "A010",
        "atif-duplicate-call-id",
        ERROR,
        "Two tool calls of one trajectory share a tool_call_id.",
        stage=CROSS_RECORD,
    ),
    Rule(
        "A011",
        "atif-models-missing",
        INFO,
        "The atif package (the msgcli[atif] extra) is not installed: a trajectory is checked "
        "by msgcli's own checks only, not by the format's models.",
        stage=RECORD,
    ),
)

EXPLAINED = {
    "A001": (
        'line 14: /steps/1/tool_calls/0/arguments: "{\\"cmd\\": \\"ls\\"}" is not an object '
        "(the arguments must be a JSON object)",
        "Write the value as the ATIF models ask (the finding names the field and what it "
        "should be); validate the fix with msgcli or the atif package.",
    ),
    "A002": (
        "line 9: /steps/0/tool_ancestry: a field ATIF-v1.8 does not have",
        "Nothing to fix if a newer producer wrote it: it is kept and shown with show --all. "
        "--ignore A002 silences the note.",
    ),
    "A003": (
        "line 2: schema_version ATIF-v1.9: newer than the ATIF versions msgcli knows (1.0 to 1.8)",
        "Nothing to fix: the fields msgcli knows are read and checked, the others are A002.",
    ),
    "A004": (
        "line 30: /subagent_trajectories: ATIF-v1.7 brought this field, the trajectory "
        "declares ATIF-v1.5",
        "Raise schema_version to the version whose fields the trajectory uses.",
    ),
    "A005": (
        "line 40: /steps/3/step_id: step id 5 where 4 comes next",
        "Number the steps 1, 2, 3... in the order they are written.",
    ),
    "A006": (
        "line 52: /steps/4/observation/results/0/source_call_id: call_9 is no tool call of step 5",
        "Put the result on the step whose tool_calls hold the call, or fix the id.",
    ),
    "A007": (
        "line 120: /final_metrics/total_prompt_tokens: 10000, the steps sum to 10178",
        "Recount the totals from the steps' metrics (or leave final_metrics out).",
    ),
    "A008": (
        "line 33: /steps/2/observation/results/0/subagent_trajectory_ref/0/trajectory_id: "
        "no embedded subagent trajectory is named sub-1",
        "Embed the subagent trajectory under subagent_trajectories with that trajectory_id, "
        "or point at its file with trajectory_path.",
    ),
    "A009": (
        "line 33: .../trajectory_path: subagents/sub-1.json is not there",
        "Keep the subagent's trajectory file beside the trajectory, at the path named.",
    ),
    "A010": (
        "line 61: /steps/6/tool_calls/0/tool_call_id: toolu_01 is also the id of a call of step 3",
        "Give each tool call its own id: results are matched to calls by it.",
    ),
    "A011": (
        "line 1: the atif package is not installed (pip install 'msgcli[atif]')",
        "Install the extra to check trajectories against the format's own models.",
    ),
}
