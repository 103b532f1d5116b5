"""Ids and timestamps in the form LoongFlow writes them, told without a regular expression
per value (for the fast and the typed paths of validation): what the record rules I003 and
C001 ask of a value the schema accepts."""

from __future__ import annotations

from datetime import datetime, timedelta

__all__ = [
    "DIGITS_AS_0",
    "EPOCH",
    "HEX_AS_0",
    "NAIVE_FRACTION",
    "NO_FRACTION",
    "UUID_RUNS",
    "written_ids",
    "written_time",
]

#: lower-case hex digits as 0, and a UUID as LoongFlow writes it, so read
HEX_AS_0 = bytes.maketrans(b"0123456789abcdef", b"0" * 16)
_UUID = b"00000000-0000-0000-0000-000000000000"
#: ``n`` of them, a ``|`` between two
UUID_RUNS = [b"|".join([_UUID] * n) for n in range(17)]

#: ASCII digits as 0, and the forms of a timestamp LoongFlow writes (naive, or with a zone
#: after it), by length; a fraction is written only when it is not zero
DIGITS_AS_0 = bytes.maketrans(b"0123456789", b"0000000000")
_NAIVE = {19: b"0000-00-00T00:00:00", 26: b"0000-00-00T00:00:00.000000"}
NAIVE_FRACTION = _NAIVE[26]
_ZONE = frozenset({b"+00:00", b"-00:00"})
NO_FRACTION = ".000000"

EPOCH = datetime(1970, 1, 1)
_MICROSECOND = timedelta(microseconds=1)
_fromisoformat = datetime.fromisoformat


def written_ids(ids: str, count: int) -> bool:
    """Whether ``ids``, ``count`` strings with a ``|`` between two, are each a UUID as
    LoongFlow writes it (lower-case, hyphenated), all read at once (no UUID holds a ``|``,
    so each must stand where the form has it)."""
    shape = UUID_RUNS[count] if count < len(UUID_RUNS) else b"|".join([_UUID] * count)
    return ids.isascii() and ids.encode().translate(HEX_AS_0) == shape


def written_time(stamp: str) -> tuple[bool, int | None]:
    """Whether a timestamp is in the form LoongFlow writes it, and its instant (UTC, in
    microseconds since 1970; ``None`` for one beyond the calendar's ends in UTC)."""
    if not stamp.isascii():
        return False, None
    shape = stamp.encode().translate(DIGITS_AS_0)
    if shape == NAIVE_FRACTION and not stamp.endswith(NO_FRACTION):
        # the common case: naive, with a fraction
        try:
            return True, (_fromisoformat(stamp) - EPOCH) // _MICROSECOND
        except ValueError:
            return False, None  # (not a date: the schema says so)
    size = len(stamp)
    offset = None
    naive = _NAIVE.get(size)
    if naive is None:
        if stamp.endswith("Z"):
            size -= 1
            offset = 0
        elif shape[-6:] in _ZONE:
            size -= 6
            hours, minutes = int(stamp[-5:-3]), int(stamp[-2:])
            if hours > 23 or minutes > 59 or not (hours or minutes):
                return False, None  # (a zero offset is written as Z)
            offset = hours * 60 + minutes
            if stamp[-6] == "-":
                offset = -offset
        naive = _NAIVE.get(size)
        if naive is None:
            return False, None
        stamp = stamp[:size]
    if shape[:size] != naive or stamp.endswith(NO_FRACTION):
        return False, None
    try:
        moment = _fromisoformat(stamp)
    except ValueError:
        return False, None
    if offset:
        try:
            moment -= timedelta(minutes=offset)
        except OverflowError:
            return True, None
    return True, (moment - EPOCH) // _MICROSECOND
