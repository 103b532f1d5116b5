"""Anthropic Messages API wire forms as a dialect (``anthropic``)."""

from __future__ import annotations

from .dialect import DIALECT, AnthropicDialect

__all__ = ["DIALECT", "AnthropicDialect"]
