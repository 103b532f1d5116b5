"""OpenAI Chat Completions wire forms as a dialect (``openai-chat``)."""

from __future__ import annotations

from .dialect import DIALECT, ChatDialect

__all__ = ["DIALECT", "ChatDialect"]
