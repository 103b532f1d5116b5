"""AgentScope Java: ``Msg`` records as Jackson writes them.

The format is ``io.agentscope.core.message.Msg`` of ``agentscope-ai/agentscope-java``
(2.x, and the older 1.x shape), serialised by the framework's Jackson mapper:

- message keys, in order: ``id``, ``name``, ``role``, ``content``, ``metadata``,
  ``timestamp``, ``usage`` (1.x has no ``usage``); roles are upper case
  (``USER``, ``ASSISTANT``, ``SYSTEM``, ``TOOL``);
- blocks ``text``, ``thinking``, ``tool_use``, ``tool_result``, ``image``,
  ``audio``, ``video``, and in 2.x ``hint`` and ``data``; ``type`` comes first;
- a tool call holds its arguments twice: ``input`` (the parsed object) and
  ``content`` (the raw JSON text the model streamed, or null);
- tool results sit in ``TOOL`` messages, one ``tool_result`` per message;
- ``timestamp`` is ``yyyy-MM-dd HH:mm:ss.SSS`` in the JVM's local zone.

A record's version shape is told by what it holds: ``usage``, a ``hint`` or
``data`` block, a ``state`` on a tool call or result, or a ``mime_type`` on a
URL source only exist in 2.x; a record with none of them is the 1.x shape
(six keys). Jackson ignores unknown keys, so every key it does not bind is
kept in ``extra`` and reported.

The package: :mod:`.records` (detection, reading and writing, times), :mod:`.rules` (the
per-record rules beyond the schema), :mod:`.fast` (the fast path of validation),
:mod:`.events` (event records before replay) and :mod:`.replay` (the replayer), put
together in :mod:`.dialect`.
"""

from __future__ import annotations

from .dialect import DIALECT, AgentScopeJavaDialect

__all__ = ["DIALECT", "AgentScopeJavaDialect"]
