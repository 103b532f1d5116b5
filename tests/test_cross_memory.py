"""What the checks across records keep of each message: one int in the common case.

A million messages keep a million entries, so each entry is packed (line, sender, first
block, unfinished, time in one int) where its values fit, and kept as a tuple where they do
not. Either way the same values come back, and the same findings follow.
"""

from __future__ import annotations

import re
import sys
import uuid

from hypothesis import given
from hypothesis import strategies as st

from msgcli.checks import _PACKED, CrossChecks, _compact, _first_line, _kept, _unpacked
from msgcli.dialects import get_dialect

KEYS = st.one_of(st.integers(-(2**40), 2**40), st.none(), st.text(max_size=3), st.booleans())


@given(
    who=st.one_of(st.integers(0, 2**32 - 1), KEYS),
    first=st.one_of(st.integers(0, 2**32 - 1), KEYS),
    unfinished=st.one_of(st.booleans(), st.none()),
    when=st.one_of(st.integers(0, 2**62 - 1), KEYS),
    line=st.one_of(st.integers(1, 2**40 - 1), st.integers(2**40, 2**45)),
)
def test_a_kept_part_gives_back_its_values(who, first, unfinished, when, line):
    kept = _kept((who, first, unfinished), when, line)
    assert _unpacked(kept) == (who, first, unfinished, when, line)
    assert _first_line(kept) == line
    if type(kept) is int:
        assert kept >= _PACKED  # never read as a plain line


def test_a_common_part_takes_far_less_memory_than_a_tuple():
    kept = _kept((2**31 + 5, 2**32 - 1, True), 1_795_348_329_563_728, 999_999)
    assert type(kept) is int
    as_tuple = (2**31 + 5, 2**32 - 1, True, 1_795_348_329_563_728, 999_999)
    tuple_bytes = sys.getsizeof(as_tuple) + sum(
        sys.getsizeof(v) for v in as_tuple[:2] + as_tuple[3:]
    )
    assert sys.getsizeof(kept) * 3 < tuple_bytes


def _findings(digests):
    found = []
    checks = CrossChecks(get_dialect("agentscope-py"), lambda *a, **k: found.append((a, k)))
    for line, item in digests:
        checks.feed_digest(line, item)
    checks.finish()
    return found


def test_parts_of_a_message_and_a_repeated_id_either_way():
    # (id, id, time, group, tools, (sender, first block, unfinished))
    def msg(first, unfinished, when):
        return ("m1", "m1", when, None, (), (7, first, unfinished))

    parts = [(1, msg(10, True, 5)), (2, msg(11, False, 6)), (3, msg(12, False, 7))]
    again = [(1, msg(10, True, 5)), (2, msg(10, True, 6))]  # the same first block: I001
    other = [(1, msg(10, False, 5)), (2, ("m1", "m1", 6, None, (), (8, 11, True)))]
    odd = [(1, msg(10, True, -5)), (2, msg(11, False, -4)), (3, msg(10, False, -3))]
    assert _findings(parts) == []
    assert [a[0] for a, _ in _findings(again)] == ["I001"]
    assert [k["line"] for _, k in _findings(again)] == [2]
    assert [a[0] for a, _ in _findings(other)] == ["I001"]
    # a time that does not pack (negative) is kept as a tuple, with the same findings
    assert [(a[0], k["line"]) for a, k in _findings(odd)] == [("I001", 3)]


_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


@given(
    seed=st.integers(0, 2**128 - 1),
    changes=st.lists(st.tuples(st.integers(0, 40), st.sampled_from("0af9-AGz\n١ ")), max_size=3),
)
def test_an_id_is_kept_as_a_number_exactly_when_it_is_hex_or_a_uuid(seed, changes):
    text = list(str(uuid.UUID(int=seed)))
    for at, char in changes:
        if at < len(text):
            text[at] = char
        else:
            text.append(char)
    key = "".join(text)
    compact = _compact(key)
    if key and not key.strip("0123456789abcdef") and len(key) <= 64:
        assert compact == int("1" + key, 16)
    elif _UUID.fullmatch(key):
        assert compact == int("2" + key.replace("-", ""), 16)
    else:
        assert compact == key
