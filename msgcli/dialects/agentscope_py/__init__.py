"""AgentScope Python: ``Msg`` records of 2.x (pydantic) and of 1.x (``to_dict``).

Two shapes share this dialect, told apart by the time key:

- **2.x** (``agentscope`` 2.0.x) writes ``Msg.model_dump_json()``: eleven keys
  (``name``, ``content``, ``role``, ``id``, ``metadata``, ``created_at``,
  ``usage``, ``finished_at``, ``finished_reason``, ``structured_output``,
  ``error``), always all of them, ``content`` a list of ``text``,
  ``thinking``, ``hint``, ``tool_call``, ``tool_result`` and ``data`` blocks.
  A tool call's ``input`` is the raw JSON *text*; tool results sit in the same
  assistant message as their calls.
- **1.x** (``agentscope`` 1.0.x) writes ``Msg.to_dict()``: ``id``, ``name``,
  ``role``, ``content`` (a string or a list), ``metadata``, ``timestamp``.
  Blocks are plain dicts: ``text``, ``thinking``, ``image``/``audio``/``video``
  with a ``source``, ``tool_use`` (``input`` an object, ``raw_input`` the text)
  and ``tool_result``; tool results are separate ``system`` messages.

A record is 1.x when it has ``timestamp`` and no ``created_at``; everything
else of this dialect is 2.x. Events (upper-case ``type``, ``reply_id``) are
recognised but not read here.

Reading keeps everything: keys a block or message of that version does not
have go to ``extra``; values the model cannot hold (a ``source`` that is not
an object, a block of unknown type) are kept whole so that writing gives the
record back. A 1.x string ``content`` becomes one :class:`TextBlock` whose
``path`` is ``("content",)`` (the text *is* the content), and is written back
as a string.

The package: :mod:`.records` (detection, reading and writing, times), :mod:`.rules` (the
per-record rules beyond the schema), :mod:`.fast` (the fast path of validation),
:mod:`.events` (the event forms) and :mod:`.replay` (the replayer), put together in
:mod:`.dialect`.
"""

from __future__ import annotations

from .dialect import DIALECT, AgentScopePyDialect
from .records import read_nested_block

__all__ = ["DIALECT", "AgentScopePyDialect", "read_nested_block"]
