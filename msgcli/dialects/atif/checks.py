"""Checking an ATIF trajectory: the ``atif`` package's own models, then msgcli's checks
across steps.

The models (pydantic, the ``atif`` extra) are imported only when a trajectory is checked.
Their errors become located findings: the JSON pointer of the value (pydantic's location
without the names of union members), reported on the line of the step it is in. A field
the models do not know is no error: the models forbid unknown fields, so those are taken
out, reported as A002 (info), and the rest is validated again without them, so the checks
of a step still run around a field that a newer version brought.

The checks across steps: step ids 1, 2, 3... (A005); observation results answer calls of
their own step (A006); ``final_metrics`` equal the steps' sum (A007); subagent references
resolve (A008, A009); tool call ids unique (A010). Every embedded subagent trajectory is
checked the same way.
"""

from __future__ import annotations

import copy
import os
import re
from typing import Any

from ...guard import deep_recursion
from ...textsafe import short
from .records import HEAD, NOTE, is_trajectory

__all__ = ["TrajectoryChecker", "check_trajectory", "record_pointers"]

#: the newest ATIF version the models know
KNOWN = (1, 8)
_VERSION = re.compile(r"ATIF-v(\d+)\.(\d+)")

#: fields that an ATIF version after 1.0 brought: (where, field) -> version. ``where`` is
#: the kind of object (see :func:`_later_fields`)
LATER: dict[tuple[str, str], tuple[int, int]] = {
    ("metrics", "completion_token_ids"): (1, 3),
    ("metrics", "prompt_token_ids"): (1, 4),
    ("agent", "tool_definitions"): (1, 5),
    ("trajectory", "trajectory_id"): (1, 7),
    ("trajectory", "subagent_trajectories"): (1, 7),
    ("step", "llm_call_count"): (1, 7),
    ("tool_call", "extra"): (1, 7),
    ("result", "extra"): (1, 7),
    ("ref", "trajectory_id"): (1, 7),
}

#: the models' own checks across a trajectory that msgcli makes itself, with a located
#: finding of its own rule (their errors would say the same again)
_OWN = (
    "is not sequential",
    "does not match any tool_call",
    "must set `trajectory_id`",
    "Duplicate trajectory_id",
)


def _escape(key: Any) -> str:
    return str(key).replace("~", "~0").replace("/", "~1")


def record_pointers(document: dict, at: str = "") -> set[str]:
    """The pointers of the records a document is read as (see :func:`records.split`)."""
    out = {at}
    steps = document.get("steps")
    if isinstance(steps, list):
        out.update(f"{at}/steps/{i}" for i, step in enumerate(steps) if isinstance(step, dict))
    subs = document.get("subagent_trajectories")
    if isinstance(subs, list):
        for i, sub in enumerate(subs):
            if isinstance(sub, dict):
                out |= record_pointers(sub, f"{at}/subagent_trajectories/{i}")
    return out


class TrajectoryChecker:
    """The rules of one ATIF file (see :meth:`msgcli.dialects.base.Dialect.record_checker`):
    a trajectory is checked when its first record comes; each finding is reported on the
    line of the record (the step) it is about, as that record comes."""

    def __init__(self, emit: Any, name: str):
        self.emit = emit
        self.folder = os.path.dirname(name) if name and not name.startswith("<") else None
        #: record pointer -> the findings about it, pointers relative to it
        self.waiting: dict[str, list[tuple[str, str, str]]] = {}
        self.first = 0
        #: (a worker's digests: an ATIF file is never checked in parts)
        self.digests: list | None = None

    def check(self, line: int, obj: dict, recovered: bool = False) -> None:
        note = obj.get(NOTE)
        if not isinstance(note, dict):
            if is_trajectory(obj):  # a trajectory on one line: its findings are on it
                for code, message, ptr in check_trajectory(obj, self.folder):
                    self.emit(code, message, ptr)
            return
        at = note.get("at", "")
        document = note.get("document")
        if note.get("kind") == HEAD and isinstance(document, dict):
            self.first = self.first or line
            places = sorted(record_pointers(document, at), key=len, reverse=True)
            for code, message, ptr in check_trajectory(document, self.folder):
                full = at + ptr
                place = next((p for p in places if full == p or full.startswith(p + "/")), at)
                self.waiting.setdefault(place, []).append((code, message, full[len(place) :]))
        for code, message, ptr in self.waiting.pop(at, ()):
            self.emit(code, message, ptr)

    def feed_digest(self, line: int, item: tuple) -> None:  # pragma: no cover - never split
        pass

    def finish(self) -> None:
        # the findings of records that never came (a step that is no object is no record)
        for place, found in self.waiting.items():
            for code, message, ptr in found:
                self.emit(code, message, place + ptr, line=self.first or None)
        self.waiting.clear()


# -- the checks ---------------------------------------------------------------------


Found = list[tuple[str, str, str]]  # (code, message, pointer)


def check_trajectory(document: dict, folder: str | None = None) -> Found:
    """Every finding on a trajectory (pointers from its top)."""
    out: Found = []
    version = _version(document.get("schema_version"))
    if version is not None and version > KNOWN:
        out.append(
            (
                "A003",
                f"schema_version {short(document.get('schema_version'))}: newer than the ATIF "
                f"versions msgcli knows (1.0 to {KNOWN[0]}.{KNOWN[1]}); read by the fields "
                "it knows",
                "/schema_version",
            )
        )
    with deep_recursion():  # (a copy of the document is made as deep as it nests)
        out.extend(_models(document))
    if version is not None:
        out.extend(_later_fields(document, version, "", "trajectory"))
    _cross(document, "", folder, out)
    return out


def _version(value: Any) -> tuple[int, int] | None:
    found = _VERSION.fullmatch(value) if isinstance(value, str) else None
    return (int(found.group(1)), int(found.group(2))) if found else None


def _models(document: dict) -> Found:
    """The errors of the ``atif`` package's models, located; unknown fields as A002."""
    try:
        from atif import Trajectory
        from pydantic import ValidationError
    except ImportError:
        return [
            (
                "A011",
                "the atif package is not installed (pip install 'msgcli[atif]'): the trajectory "
                "is checked by msgcli's own checks only",
                "",
            )
        ]
    out: Found = []
    try:
        Trajectory.model_validate(document)
        return out
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
    unknown = [e for e in errors if e.get("type") == "extra_forbidden"]
    if unknown:
        stripped = copy.deepcopy(document)
        for error in unknown:
            path = _path(document, error.get("loc", ()))
            out.append(("A002", f"{_name(path)}: a field ATIF-v1.8 does not have", _pointer(path)))
            _drop(stripped, path)
        try:
            Trajectory.model_validate(stripped)
            errors = []
        except ValidationError as again:
            errors = again.errors(include_url=False)
    for error in errors:
        message = str(error.get("msg", ""))
        if error.get("type") == "extra_forbidden" or any(own in message for own in _OWN):
            continue
        path = _path(document, error.get("loc", ()))
        message = message.removeprefix("Value error, ")
        shown = error.get("input")
        what = f"{_name(path)}: " if path else ""
        value = ""
        if error.get("type") != "missing" and not isinstance(shown, (dict, list)):
            value = f" (got {short(shown, 40)})"
        out.append(("A001", f"{what}{message}{value}", _pointer(path)))
    return out


def _path(document: Any, loc: Any) -> tuple:
    """Pydantic's location as a path into the document: the names of union members and
    validators in it (``str``, ``list[ContentPart]``, ``function-after[...]``) left out."""
    path: list[Any] = []
    here = document
    for part in loc:
        if (isinstance(here, dict) and isinstance(part, str) and part in here) or (
            isinstance(here, list) and isinstance(part, int) and 0 <= part < len(here)
        ):
            path.append(part)
            here = here[part]  # type: ignore[index]
        elif (
            isinstance(here, dict)
            and isinstance(part, str)
            and "[" not in part
            and (part.islower() or part == part.lower())
            and part not in ("str", "int", "float", "bool", "list", "dict", "none")
        ):
            path.append(part)  # a missing field: named, though it is not there
            here = None
    return tuple(path)


def _pointer(path: tuple) -> str:
    return "".join(f"/{_escape(p)}" for p in path)


def _name(path: tuple) -> str:
    if path and isinstance(path[-1], str):
        return path[-1]
    if len(path) >= 2 and path[-2] == "steps":
        return f"step {path[-1] + 1}"
    return "the trajectory" if not path else f"{path[-2]}[{path[-1]}]"


def _drop(document: Any, path: tuple) -> None:
    here = document
    for part in path[:-1]:
        try:
            here = here[part]
        except (KeyError, IndexError, TypeError):
            return
    if isinstance(here, dict) and path:
        here.pop(path[-1], None)


def _later_fields(value: Any, version: tuple[int, int], at: str, kind: str) -> Found:
    """A004 for each field that a later version than ``version`` brought."""
    out: Found = []
    if not isinstance(value, dict):
        return out
    for key in value:
        since = LATER.get((kind, key))
        if since is not None and since > version:
            out.append(
                (
                    "A004",
                    f"{key}: ATIF-v{since[0]}.{since[1]} brought this field, the trajectory "
                    f"declares ATIF-v{version[0]}.{version[1]}",
                    f"{at}/{_escape(key)}",
                )
            )
    if kind == "trajectory":
        out.extend(_later_fields(value.get("agent"), version, f"{at}/agent", "agent"))
        for i, step in enumerate(_list(value.get("steps"))):
            out.extend(_later_fields(step, version, f"{at}/steps/{i}", "step"))
        for i, sub in enumerate(_list(value.get("subagent_trajectories"))):
            out.extend(_later_fields(sub, version, f"{at}/subagent_trajectories/{i}", "trajectory"))
    elif kind == "step":
        out.extend(_later_fields(value.get("metrics"), version, f"{at}/metrics", "metrics"))
        for i, call in enumerate(_list(value.get("tool_calls"))):
            out.extend(_later_fields(call, version, f"{at}/tool_calls/{i}", "tool_call"))
        if isinstance(value.get("message"), list) and version < (1, 6):
            out.append(
                (
                    "A004",
                    "message: content parts came with ATIF-v1.6, the trajectory declares "
                    f"ATIF-v{version[0]}.{version[1]}",
                    f"{at}/message",
                )
            )
        observation = value.get("observation")
        results = observation.get("results") if isinstance(observation, dict) else None
        for i, result in enumerate(_list(results)):
            where = f"{at}/observation/results/{i}"
            out.extend(_later_fields(result, version, where, "result"))
            refs = result.get("subagent_trajectory_ref") if isinstance(result, dict) else None
            for j, ref in enumerate(_list(refs)):
                out.extend(
                    _later_fields(ref, version, f"{where}/subagent_trajectory_ref/{j}", "ref")
                )
    return out


def _list(value: Any) -> list:
    return value if isinstance(value, list) else []


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _cross(trajectory: dict, at: str, folder: str | None, out: Found) -> None:
    steps = _list(trajectory.get("steps"))
    subs = _list(trajectory.get("subagent_trajectories"))
    embedded: dict[str, int] = {}
    for i, sub in enumerate(subs):
        where = f"{at}/subagent_trajectories/{i}"
        tid = sub.get("trajectory_id") if isinstance(sub, dict) else None
        if not isinstance(sub, dict):
            continue
        if not isinstance(tid, str):
            out.append(("A008", "an embedded subagent trajectory needs a trajectory_id", where))
        elif tid in embedded:
            out.append(
                (
                    "A008",
                    f"trajectory_id {short(tid)} is also the id of subagent trajectory "
                    f"{embedded[tid]}",
                    f"{where}/trajectory_id",
                )
            )
        else:
            embedded[tid] = i
    calls: dict[str, Any] = {}
    sums = {"prompt_tokens": 0, "completion_tokens": 0, "cached_tokens": 0, "cost_usd": 0.0}
    counted = dict.fromkeys(sums, False)
    # what steps copied from a prior trajectory hold (a total may leave them out)
    copied = dict.fromkeys(sums, 0.0)
    for i, step in enumerate(steps):
        where = f"{at}/steps/{i}"
        if not isinstance(step, dict):
            continue
        step_id = step.get("step_id")
        if step_id != i + 1 or isinstance(step_id, bool):
            out.append(
                (
                    "A005",
                    f"step id {short(step_id)} where {i + 1} comes (steps are numbered 1, 2, "
                    "3... in order)",
                    f"{where}/step_id",
                )
            )
        own: set[str] = set()
        for j, call in enumerate(_list(step.get("tool_calls"))):
            cid = call.get("tool_call_id") if isinstance(call, dict) else None
            if not isinstance(cid, str):
                continue
            if cid in calls:
                out.append(
                    (
                        "A010",
                        f"{short(cid)} is also the id of a call of step {calls[cid]}",
                        f"{where}/tool_calls/{j}/tool_call_id",
                    )
                )
            else:
                calls[cid] = step_id if _number(step_id) else i + 1
            own.add(cid)
        observation = step.get("observation")
        results = observation.get("results") if isinstance(observation, dict) else None
        for j, result in enumerate(_list(results)):
            if not isinstance(result, dict):
                continue
            rwhere = f"{where}/observation/results/{j}"
            cid = result.get("source_call_id")
            if isinstance(cid, str) and cid not in own:
                out.append(
                    (
                        "A006",
                        f"{short(cid)} is no tool call of step {short(step_id)}"
                        + (f" (it is a call of step {calls[cid]})" if cid in calls else ""),
                        f"{rwhere}/source_call_id",
                    )
                )
            for k, ref in enumerate(_list(result.get("subagent_trajectory_ref"))):
                _ref(ref, f"{rwhere}/subagent_trajectory_ref/{k}", embedded, folder, out)
        metrics = step.get("metrics")
        if isinstance(metrics, dict):
            for key in sums:
                if _number(metrics.get(key)):
                    sums[key] += metrics[key]
                    counted[key] = True
                    if step.get("is_copied_context") is True:
                        copied[key] += metrics[key]
    _final(trajectory, at, steps, subs, sums, counted, copied, out)
    continued = trajectory.get("continued_trajectory_ref")
    if (
        isinstance(continued, str)
        and continued
        and "://" not in continued
        and folder is not None
        and not os.path.exists(os.path.join(folder, continued))
    ):
        out.append(
            (
                "A009",
                f"the continuation {short(continued)} is not there",
                f"{at}/continued_trajectory_ref",
            )
        )
    for i, sub in enumerate(subs):
        if isinstance(sub, dict):
            _cross(sub, f"{at}/subagent_trajectories/{i}", folder, out)


def _ref(ref: Any, where: str, embedded: dict, folder: str | None, out: Found) -> None:
    if not isinstance(ref, dict):
        return
    tid = ref.get("trajectory_id")
    path = ref.get("trajectory_path")
    if isinstance(tid, str) and tid not in embedded and not isinstance(path, str):
        out.append(
            (
                "A008",
                f"no embedded subagent trajectory is named {short(tid)}",
                f"{where}/trajectory_id",
            )
        )
    if (
        isinstance(path, str)
        and not (isinstance(tid, str) and tid in embedded)
        and "://" not in path
        and folder is not None
        and not os.path.exists(os.path.join(folder, path))
    ):
        out.append(("A009", f"{short(path)} is not there", f"{where}/trajectory_path"))


def _step_sum(trajectory: dict, key: str) -> tuple[float, bool]:
    """The sum of ``metrics[key]`` over a trajectory's steps and its subagents'."""
    total, seen = 0.0, False
    for step in _list(trajectory.get("steps")):
        metrics = step.get("metrics") if isinstance(step, dict) else None
        if isinstance(metrics, dict) and _number(metrics.get(key)):
            total += metrics[key]
            seen = True
    for sub in _list(trajectory.get("subagent_trajectories")):
        if isinstance(sub, dict):
            more, found = _step_sum(sub, key)
            total += more
            seen = seen or found
    return total, seen


def _final(
    trajectory: dict,
    at: str,
    steps: list,
    subs: list,
    sums: dict,
    counted: dict,
    copied: dict,
    out: Found,
) -> None:
    final = trajectory.get("final_metrics")
    if not isinstance(final, dict):
        return
    for key in ("prompt_tokens", "completion_tokens", "cached_tokens", "cost_usd"):
        total = final.get(f"total_{key}")
        if not _number(total) or not counted[key]:
            continue
        assert total is not None
        own = sums[key]
        everything, _ = _step_sum(trajectory, key)
        # (a total may count the embedded subagents' steps too, or leave out the copied
        # ones)
        margin = 1e-6 * max(1.0, abs(total)) if key == "cost_usd" else 1e-6
        close = any(
            abs(total - candidate) <= margin
            for candidate in (own, everything, own - copied[key], everything - copied[key])
        )
        if not close:
            shown = f"{own:.6g}" if key == "cost_usd" else str(int(own))
            out.append(
                (
                    "A007",
                    f"total_{key} is {total}, the steps sum to {shown}",
                    f"{at}/final_metrics/total_{key}",
                )
            )
    total_steps = final.get("total_steps")
    if (
        _number(total_steps)
        and total_steps != len(steps)
        and not trajectory.get("notes")
        and total_steps
        != len(steps) + sum(len(_list(s.get("steps"))) for s in subs if isinstance(s, dict))
    ):
        out.append(
            (
                "A007",
                f"total_steps is {total_steps}, the trajectory has {len(steps)} steps "
                "(and no notes that say why)",
                f"{at}/final_metrics/total_steps",
            )
        )
