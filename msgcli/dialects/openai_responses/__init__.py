"""OpenAI Responses API wire forms as a dialect (``openai-responses``)."""

from __future__ import annotations

from .dialect import DIALECT, ResponsesDialect

__all__ = ["DIALECT", "ResponsesDialect"]
