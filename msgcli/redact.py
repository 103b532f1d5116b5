"""Masking secrets in log records before they are shown or shared (``--redact``).

Every string of a record (at any depth; keys are left alone) is searched for the secrets
in :data:`RULES`, and each is replaced by ``[REDACTED:<rule>]``. The words around a
secret stay: in ``API_KEY=abc123...`` or ``Authorization: Bearer abc...`` only the value
goes. The patterns follow the published formats of each provider's credentials (and the
rule sets of secret scanners such as gitleaks); they look for the shape of a key, so a
secret of a shape that is not listed (a bare random password, a key of an unlisted
provider) is not caught.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

__all__ = ["RULES", "redact_record", "redact_text"]

#: ``(name, pattern)``; where a pattern has a group named ``secret``, only that group is
#: masked, else the whole match
RULES: tuple[tuple[str, str], ...] = (
    (
        "private-key",
        r"-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?-----END[ A-Z0-9]*PRIVATE KEY"
        r"(?: BLOCK)?-----",
    ),
    ("anthropic", r"\bsk-ant-(?:api|admin|oat|sid)[0-9]{2}-[A-Za-z0-9_\-]{20,}"),
    ("anthropic", r"\bsk-ant-[A-Za-z0-9_\-]{20,}"),
    ("openai", r"\bsk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_\-]{20,}"),
    ("openai", r"\bsk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}\b"),
    ("openai", r"\bsk-[A-Za-z0-9]{32,}\b"),
    ("github", r"\bgh[pousr]_[A-Za-z0-9]{36,255}\b"),
    ("github", r"\bgithub_pat_[A-Za-z0-9_]{22,255}\b"),
    ("gitlab", r"\bglpat-[A-Za-z0-9_\-]{20,}\b"),
    ("aws-access-key-id", r"\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}\b"),
    ("google-api-key", r"\bAIza[0-9A-Za-z_\-]{35}\b"),
    ("google-oauth", r"\bGOCSPX-[A-Za-z0-9_\-]{28}\b"),
    ("google-oauth", r"\bya29\.[0-9A-Za-z_\-]{20,}"),
    ("slack", r"\bxox[abposr]-[0-9A-Za-z\-]{10,}"),
    ("slack-webhook", r"https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9/_\-]{20,}"),
    ("stripe", r"\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}\b"),
    ("huggingface", r"\bhf_[A-Za-z0-9]{34,}\b"),
    ("npm", r"\bnpm_[A-Za-z0-9]{36}\b"),
    ("pypi", r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{50,}"),
    ("sendgrid", r"\bSG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}\b"),
    ("twilio", r"\bSK[0-9a-fA-F]{32}\b"),
    ("jwt", r"\beyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}"),
    (
        "authorization",
        r"(?i)\b(?:proxy-)?authorization[\"']?\s*[:=]\s*[\"']?(?:(?:bearer|basic|token|digest)\s+)?"
        r"(?P<secret>[A-Za-z0-9._~+/=\-]{8,})",
    ),
    ("bearer", r"(?i)\bbearer\s+(?P<secret>[A-Za-z0-9._~+/\-]{16,}=*)"),
    (
        "url-password",
        r"\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s/:@\"']+:(?P<secret>[^\s/@\"']{3,})@",
    ),
    (
        "assignment",
        r"(?i)\b[A-Z0-9_.\-]*(?:password|passwd|secret|token|api[_\-]?key|access[_\-]?key"
        r"|private[_\-]?key|client[_\-]?secret|auth[_\-]?key)[A-Z0-9_\-]*[\"']?\s*(?:=|:)\s*"
        r"[\"']?(?P<secret>(?![\"'$<{*\[])(?![0-9.]+(?![^\s\"'&;,)}\]]))[^\s\"'&;,)}\]]{6,})",
    ),
)

_COMPILED = [(name, re.compile(pattern)) for name, pattern in RULES]
#: a quick test whether a string can hold a secret at all (most cannot)
_TRIGGER = re.compile(
    r"(?i)PRIVATE KEY|sk-|gh[pousr]_|github_pat_|glpat-|AKIA|ASIA|ABIA|ACCA|A3T|AIza|GOCSPX|ya29\."
    r"|xox|hooks\.slack|_live_|_test_|hf_|npm_|pypi-|SG\.|SK[0-9a-f]|eyJ|authoriz|bearer|://"
    r"|pass|secret|token|key"
)


def _masker(name: str) -> Callable[[re.Match], str]:
    def mask(match: re.Match) -> str:
        text = match.group(0)
        if "secret" in match.re.groupindex and match.group("secret") is not None:
            start = match.start("secret") - match.start()
            end = match.end("secret") - match.start()
            if text[start:end].startswith("[REDACTED:"):
                return text
            return f"{text[:start]}[REDACTED:{name}]{text[end:]}"
        return f"[REDACTED:{name}]"

    return mask


_MASKS = [(pattern, _masker(name)) for name, pattern in _COMPILED]


def redact_text(text: str) -> str:
    """``text`` with every secret the rules find masked."""
    if not _TRIGGER.search(text):
        return text
    for pattern, mask in _MASKS:
        text = pattern.sub(mask, text)
    return text


def redact_record(value: Any) -> Any:
    """A JSON value with every string in it redacted (a new value where something changed),
    however deep it nests (as deep as the reader takes)."""
    from .guard import deep_recursion

    with deep_recursion():
        return _redact(value)


def _redact(value: Any) -> Any:
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, dict):
        return {k: _redact(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_redact(v) for v in value]
    return value
