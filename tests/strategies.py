"""Hypothesis strategies and the robustness check the dialect tests share.

Each dialect test file names the keys and the string values its framework writes (they
differ per dialect); these helpers build JSON from them that looks enough like a record to
reach deep into ``read()``, and run on it everything the engine calls on a record.
"""

from __future__ import annotations

import copy

from hypothesis import strategies as st

from msgcli.dialects import Dialect
from msgcli.model import Block, Message
from msgcli.rules import RULES

JSON_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
)
#: any JSON value
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=25,
)


def shaped_values(known_keys, tokens) -> st.SearchStrategy:
    """JSON values whose object keys are mostly ``known_keys`` and whose strings are often
    ``tokens`` (block types, roles, id and time forms); floats may be NaN or infinite, as a
    lenient JSON parser gives them."""
    return st.recursive(
        JSON_SCALARS | st.sampled_from(tokens) | st.floats(allow_nan=True, allow_infinity=True),
        lambda children: (
            st.lists(children, max_size=4)
            | st.dictionaries(
                st.sampled_from(sorted(known_keys)) | st.text(max_size=6), children, max_size=6
            )
        ),
        max_leaves=30,
    )


def shaped_records(known_keys, tokens) -> st.SearchStrategy:
    """Objects of up to eight ``known_keys`` holding :func:`shaped_values`."""
    return st.dictionaries(
        st.sampled_from(sorted(known_keys)), shaped_values(known_keys, tokens), max_size=8
    )


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _paths(child, (*prefix, key))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            yield from _paths(child, (*prefix, i))


def mutated(data: st.DataObject, good: list, values: st.SearchStrategy):
    """A copy of one of the ``good`` records with one to three of its values, at any depth,
    deleted or replaced by one drawn from ``values``."""
    record = copy.deepcopy(data.draw(st.sampled_from(good)))
    for _ in range(data.draw(st.integers(min_value=1, max_value=3))):
        paths = list(_paths(record))[1:]
        if not paths:
            break
        path = data.draw(st.sampled_from(paths))
        parent = record
        for key in path[:-1]:
            parent = parent[key]
        if data.draw(st.booleans()):
            del parent[path[-1]]
        else:
            parent[path[-1]] = data.draw(values)
    return record


def exercise(dialect: Dialect, record, block_types=None) -> None:
    """Everything the engine calls on a record must return normally, with sane results: a
    :class:`Message` of blocks (of ``block_types``, if given), and findings of known rules."""
    dialect.classify(record)
    dialect.variant(record)
    msg = dialect.read(record)
    assert isinstance(msg, Message)
    for block in msg.blocks():
        assert isinstance(block, Block)
        if block_types is not None:
            assert block.type in block_types
        dialect.pair_key(block.id)
    dialect.write(msg)
    codes = []
    dialect.check(record, msg, lambda code, message, pointer="": codes.append(code))
    assert set(codes) <= set(RULES)
    dialect.parse_time(msg.timestamp)
    dialect.time_group(msg)
