"""What a conversion keeps for the way back: a JSON patch from what converting back
would give to what the log held.

A conversion from dialect A to dialect B writes, in the metadata of the first
message it makes of a group, the difference between the A records it read and
the A records that converting its own output straight back would give. That
difference is exactly what B has no place for (an id form, a time's microseconds,
a block type, a key B drops), so converting back and applying it gives the A
records again, byte for byte, while everything B can represent stays where B
keeps it, and edits made in B carry over.

A patch is JSON:

- ``{"=": value}``: the value is ``value`` (replaced as a whole);
- ``{"{}": {key: patch, ...}, "-": [key, ...], "order": [key, ...]}``: a dict
  whose listed keys are patched, ``-`` keys removed, and (when the order differs)
  keys put in ``order``;
- ``{"[]": {"index": patch, ...}}``: a list of the same length, some items patched.

Equal means equal as JSON: ``1`` and ``1.0``, or ``true`` and ``1``, differ.
"""

from __future__ import annotations

from typing import Any

__all__ = ["apply", "common_pointer", "diff", "paths"]


def _same(a: Any, b: Any) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(v, b[k]) for k, v in a.items())
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def diff(original: Any, rebuilt: Any) -> dict | None:
    """A patch that turns ``rebuilt`` into ``original``, or ``None`` when they are the same."""
    if type(original) is not type(rebuilt):
        return {"=": original}
    if isinstance(original, dict):
        inner: dict[str, Any] = {}
        for key, value in original.items():
            if key in rebuilt:
                sub = diff(value, rebuilt[key])
                if sub is not None:
                    inner[key] = sub
            else:
                inner[key] = {"=": value}
        gone = [key for key in rebuilt if key not in original]
        kept = [key for key in rebuilt if key in original]
        wanted = [key for key in original if key in rebuilt]
        out: dict[str, Any] = {}
        if inner:
            out["{}"] = inner
        if gone:
            out["-"] = gone
        if kept != wanted or (inner and _added_out_of_order(original, rebuilt)):
            out["order"] = list(original)
        return out or None
    if isinstance(original, list):
        if len(original) != len(rebuilt):
            return {"=": original}
        items = {}
        for i, (x, y) in enumerate(zip(original, rebuilt, strict=True)):
            sub = diff(x, y)
            if sub is not None:
                items[str(i)] = sub
        return {"[]": items} if items else None
    return None if _same(original, rebuilt) else {"=": original}


def _added_out_of_order(original: dict, rebuilt: dict) -> bool:
    """Whether keys missing from ``rebuilt`` would not land where ``original`` has them
    when appended at the end."""
    seen_new = False
    for key in original:
        if key not in rebuilt:
            seen_new = True
        elif seen_new:
            return True
    return False


def apply(value: Any, patch: Any) -> Any:
    """``value`` with ``patch`` applied (a patch that does not fit is applied as far as
    it fits: the value keeps what the patch does not name)."""
    if not isinstance(patch, dict):
        return value
    if "=" in patch:
        return patch["="]
    if "[]" in patch:
        if not isinstance(value, list):
            return value
        out_list = list(value)
        items = patch["[]"]
        if isinstance(items, dict):
            for index, sub in items.items():
                i = int(index) if isinstance(index, str) and index.isdecimal() else -1
                if 0 <= i < len(out_list):
                    out_list[i] = apply(out_list[i], sub)
        return out_list
    if not isinstance(value, dict):
        return value
    out = dict(value)
    gone = patch.get("-")
    if isinstance(gone, list):
        for key in gone:
            out.pop(key, None)
    inner = patch.get("{}")
    if isinstance(inner, dict):
        for key, sub in inner.items():
            out[key] = apply(out[key], sub) if key in out else apply(None, sub)
    order = patch.get("order")
    if isinstance(order, list):
        ranked = {key: i for i, key in enumerate(order)}
        out = dict(sorted(out.items(), key=lambda kv: ranked.get(kv[0], len(ranked))))
    return out


def paths(patch: Any, base: str = "") -> list[str]:
    """The JSON pointers a patch restores (what a conversion without it loses)."""
    if not isinstance(patch, dict):
        return []
    if "=" in patch:
        return [base or "/"]
    found: list[str] = []
    for index, sub in (patch.get("[]") or {}).items():
        found.extend(paths(sub, f"{base}/{index}"))
    for key, sub in (patch.get("{}") or {}).items():
        found.extend(paths(sub, f"{base}/{_escape(key)}"))
    for key in patch.get("-") or ():
        found.append(f"{base}/{_escape(key)} (added)")
    return found


def common_pointer(pointers: list[str]) -> str:
    """The longest pointer every one of ``pointers`` lies under ("" for the whole record)."""
    if not pointers:
        return ""
    split = [p.split(" ", 1)[0].split("/") for p in pointers]
    shared = []
    for parts in zip(*split, strict=False):
        if any(part != parts[0] for part in parts):
            break
        shared.append(parts[0])
    text = "/".join(shared)
    return "" if text in ("", "/") else text


def _escape(key: Any) -> str:
    return str(key).replace("~", "~0").replace("/", "~1")
