"""Anthropic stream events as typed structs, for the replay's fast paths.

``msgspec`` decodes a line straight into one flat struct (every field the common events
have, each of the type the event schema asks for) and checks the types on the way: a line
it decodes needs no ``dict.get`` and no type check per field. Whatever it does not decode (a
value of another type, a line that is no JSON) is parsed by orjson and goes the way it
always went, as does every event a fast path declines, so the structs only ever speed up
what would be applied anyway. (One flat struct rather than a union tagged by ``type``:
``to_json()`` writes ``type`` last, and a tag that comes last makes msgspec read the line
twice.)

The JSON values an event carries whole (a block, a message, ``usage``, a message delta's
``stop_details`` and ``container``) are kept as raw JSON (:class:`msgspec.Raw`) and parsed
by orjson, so they are exactly what orjson makes of them (orjson reads a number past 64 bits
as a float, msgspec as an int).
"""

from __future__ import annotations

from typing import Annotated

import msgspec

#: orjson reads integers past 64 bits as floats, msgspec as ints: an index past int64 is
#: left to orjson
Index = Annotated[int, msgspec.Meta(ge=0, le=9_223_372_036_854_775_807)]
#: a value the event does not have (a Raw of no bytes)
ABSENT = msgspec.Raw(b"")


class Delta(msgspec.Struct, gc=False):
    """A block delta (``text_delta``, ``input_json_delta``, ...) or a message delta."""

    type: str | None = None
    text: str | None = None
    partial_json: str | None = None
    thinking: str | None = None
    signature: str | None = None
    stop_reason: str | None = None
    stop_sequence: str | None = None
    stop_details: msgspec.Raw = ABSENT
    container: msgspec.Raw = ABSENT


class Event(msgspec.Struct, gc=False):
    type: str
    index: Index | None = None
    delta: Delta | None = None
    content_block: msgspec.Raw = ABSENT
    message: msgspec.Raw = ABSENT
    usage: msgspec.Raw = ABSENT


DECODER = msgspec.json.Decoder(Event)
ERROR = msgspec.MsgspecError
