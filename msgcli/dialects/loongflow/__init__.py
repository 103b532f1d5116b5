"""LoongFlow: ``loongflow.agentsdk.message`` ``Message.to_dict()`` records.

A LoongFlow log is a sequence of whole messages (JSONL, or one JSON array as
``FileStorage`` writes it); there is no event stream. Keys, in the order
``to_dict()`` writes them::

    id, timestamp, trace_id, conversation_id, role, sender, metadata, content

``content`` is a list of elements told apart by ``type``:

- ``content`` ``{type, mime_type, metadata, data}``: text, JSON, or media
  (``data`` is then a URL, a ``data:`` URI or base64);
- ``tool_call`` (alias ``function``, kept as written) ``{type, call_id,
  metadata, target, arguments}``;
- ``tool_output`` ``{type, call_id, metadata, tool_name, status, result}``,
  ``result`` being content elements whose ``type`` may be left out;
- ``think`` ``{type, metadata, content}``;
- ``evolve_result`` ``{type, best_score, best_solution, evaluation,
  start_time, end_time, cost_time, last_iteration, total_iterations,
  total_cost, total_tokens}``: ``best_solution``/``evaluation`` are lists of
  strings in the current library and strings in PyPI 0.0.1, which has no
  ``total_cost``/``total_tokens``.

``from_dict()`` fills in what a record leaves out (a fresh ``id`` and
``call_id``, the load time as ``timestamp``, ``""`` and ``{}`` defaults) and
drops unknown keys; :meth:`LoongFlowDialect.check` reports both, since real
``to_dict()`` output always has every key.

The package: :mod:`.records` (detection, reading and writing, ids and times),
:mod:`.rules` (the per-record rules beyond the schema) and :mod:`.fast` (the fast path of
validation), put together in :mod:`.dialect`. LoongFlow writes no event logs.
"""

from __future__ import annotations

from .dialect import DIALECT, LoongFlowDialect

__all__ = ["DIALECT", "LoongFlowDialect"]
