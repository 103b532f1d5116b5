"""The dialect registry and per-record detection.

:data:`DIALECTS` is the one list of dialects: configuration, the commands' choices,
``msgcli schema``, the replayers, the converters and the formatters all read it, and
behaviour that differs by dialect is a call on the :class:`~msgcli.dialects.base.Dialect`
object, never a comparison of its name.

:func:`register` is the one way in. msgcli's own dialects (the packages beside this
module) are registered when this module is imported. Another package adds a dialect by
declaring it in the entry-point group ``msgcli.dialects`` of its distribution::

    [project.entry-points."msgcli.dialects"]
    toy = "toy_dialect:DIALECT"

so that installing it is all it takes: no file of msgcli's is edited, and every command,
the library and the pytest plugin know it. The group is read by :func:`load_installed`,
once per process and only when needed (reading installed distributions' metadata takes
longer than the rest of ``msgcli validate``'s start-up): when a record is of no dialect
registered so far, when a name is not one of them (:func:`get_dialect`), and when every
name is asked for (:func:`dialect_names`, what a list of choices shows).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable

from ..containers import add_container
from ..rules import RULES, Rule, record_rules
from ..schemas import add_schema_root
from .agentscope_java import DIALECT as AGENTSCOPE_JAVA
from .agentscope_py import DIALECT as AGENTSCOPE_PY
from .anthropic import DIALECT as ANTHROPIC
from .atif import DIALECT as ATIF
from .base import EVENT, MESSAGE, TOLERANT_RULES, Dialect
from .claude_code import DIALECT as CLAUDE_CODE
from .codex import DIALECT as CODEX
from .gemini_cli import DIALECT as GEMINI_CLI
from .loongflow import DIALECT as LOONGFLOW
from .openai_chat import DIALECT as OPENAI_CHAT
from .openai_responses import DIALECT as OPENAI_RESPONSES
from .opencode import DIALECT as OPENCODE
from .otel import DIALECT as OTEL

__all__ = [
    "DIALECTS",
    "ENTRY_POINT_GROUP",
    "EVENT",
    "MESSAGE",
    "Dialect",
    "classify",
    "dialect_names",
    "fits",
    "get_dialect",
    "is_plain",
    "load_installed",
    "owned_rules",
    "register",
    "rule_explained",
    "split_document",
    "uncovered",
    "unregister",
]

#: the entry-point group through which an installed distribution adds dialects
ENTRY_POINT_GROUP = "msgcli.dialects"

#: name -> dialect, in the order registered
DIALECTS: dict[str, Dialect] = {}
#: the order detection asks the dialects in: the wire forms first (their signatures are
#: exact keys and type names), then the others, each group in the order registered
_ORDER: tuple[Dialect, ...] = ()


def register(dialect: Dialect) -> Dialect:
    """Make ``dialect`` known to every command: detection, ``--dialect``, configuration,
    ``msgcli schema``, replay (its :attr:`~Dialect.replayer_class`) and conversion (its
    :attr:`~Dialect.writer` and :attr:`~Dialect.formatters`). Its schemas are read from
    :attr:`~Dialect.schema_root`. Registering the same object again changes nothing;
    another dialect under a name already taken is a ``ValueError``."""
    global _ORDER
    name = dialect.name
    if not name or not isinstance(name, str):
        raise ValueError(f"a dialect needs a name: {dialect!r}")
    known = DIALECTS.get(name)
    if known is dialect:
        return dialect
    if known is not None:
        raise ValueError(f"a dialect named {name!r} is already registered")
    if dialect.schema_root is not None:
        add_schema_root(name, dialect.schema_root)
    for rule in dialect.rules:
        taken = RULES.get(rule.code)
        if taken is not None and taken != rule:
            raise ValueError(f"rule {rule.code} of {name} is already a rule of msgcli's")
    for rule in dialect.rules:
        RULES[rule.code] = rule
    for container in dialect.containers:
        add_container(container)
    DIALECTS[name] = dialect
    ordered = list(DIALECTS.values())
    _ORDER = (*(d for d in ordered if d.wire_form), *(d for d in ordered if not d.wire_form))
    return dialect


for _builtin in (
    AGENTSCOPE_JAVA,
    AGENTSCOPE_PY,
    LOONGFLOW,
    GEMINI_CLI,
    CLAUDE_CODE,
    CODEX,
    ANTHROPIC,
    OPENAI_RESPONSES,
    OPENAI_CHAT,
    OPENCODE,
    OTEL,
    ATIF,
):
    register(_builtin)


_installed_read = False


def load_installed(again: bool = False) -> None:
    """Register the dialects that installed distributions declare in the entry-point group
    :data:`ENTRY_POINT_GROUP`: once per process, or ``again`` (after ``sys.path`` changed)."""
    global _installed_read
    if _installed_read and not again:
        return
    _installed_read = True
    from importlib.metadata import entry_points  # slow to import: only when needed

    for entry in entry_points(group=ENTRY_POINT_GROUP):
        register(entry.load())


def unregister(name: str) -> Dialect:
    """Take the dialect ``name`` out of the registry (``KeyError`` when there is none);
    undoes :func:`register`, e.g. in a test."""
    global _ORDER
    dialect = DIALECTS.pop(name)
    for rule in dialect.rules:
        RULES.pop(rule.code, None)
    _ORDER = tuple(d for d in _ORDER if d is not dialect)
    return dialect


def dialect_names() -> list[str]:
    """The name of every dialect, installed ones included (the choices of ``--dialect``)."""
    load_installed()
    return list(DIALECTS)


def uncovered(
    dialects: Iterable[Dialect] | None = None, rules: Iterable[Rule] | None = None
) -> dict[str, list[str]]:
    """Dialect name -> the ``record`` rules its fast path does not declare it covers
    (:attr:`~Dialect.fast_covers`), for each dialect with a fast path that misses one;
    ``{}`` when every fast path covers every record rule its records may get: every rule of
    :func:`msgcli.rules.record_rules` but those other dialects claim as their own
    (:attr:`~Dialect.own_rules`). ``dialects`` and ``rules``: other registries than
    :data:`DIALECTS` and :data:`msgcli.rules.RULES`."""
    dialects = list(DIALECTS.values() if dialects is None else dialects)
    record = record_rules(RULES.values() if rules is None else rules)
    owned = frozenset().union(*(owned_rules(d) for d in dialects))
    out: dict[str, list[str]] = {}
    for dialect in dialects:
        if type(dialect).fast_digest is Dialect.fast_digest:
            continue  # no fast path: every record takes the full path
        missing = record - (owned - owned_rules(dialect)) - dialect.fast_covers
        if missing:
            out[dialect.name] = sorted(missing)
    return out


def owned_rules(dialect: Dialect) -> frozenset[str]:
    """The rules only some dialects' checks report that ``dialect`` reports: its
    :attr:`~Dialect.own_rules`, and for a tolerant one the info findings of what is merely
    new (:data:`~msgcli.dialects.base.TOLERANT_RULES`)."""
    if dialect.tolerant:
        return dialect.own_rules | TOLERANT_RULES
    return dialect.own_rules


def rule_explained(code: str) -> tuple[str, str] | None:
    """What ``msgcli rules CODE`` says of a rule a dialect brought (its example and how to
    fix it), or ``None`` when no dialect declares it."""
    for dialect in DIALECTS.values():
        if dialect.rule_docs and any(r.code == code for r in dialect.rules):
            module, _, attr = dialect.rule_docs.partition(":")
            found = getattr(importlib.import_module(module), attr).get(code)
            if found is not None:
                return found
    return None


def split_document(value: dict) -> list[tuple[str, dict]] | None:
    """The records a JSON document is read as, by the first dialect whose logs are whole
    documents that takes it (:meth:`Dialect.document_records`), or ``None``."""
    for dialect in _ORDER:
        if type(dialect).document_records is not Dialect.document_records:
            found = dialect.document_records(value)
            if found is not None:
                return found
    return None


def get_dialect(name: str) -> Dialect:
    found = DIALECTS.get(name)
    if found is None:
        load_installed()
        found = DIALECTS.get(name)
    if found is None:
        known = ", ".join(DIALECTS)
        raise ValueError(f"unknown dialect {name!r} (known: {known})")
    return found


def classify(obj: dict) -> tuple[Dialect, str] | None:
    """The dialect and kind (``"message"`` or ``"event"``) of one record, or ``None``."""
    for d in _ORDER:
        kind = d.classify(obj)
        if kind is not None:
            return d, kind
    if not _installed_read:
        known = len(DIALECTS)
        load_installed()
        if len(DIALECTS) > known:
            return classify(obj)
    return None


def fits(dialect: Dialect, obj: dict) -> str | None:
    """The kind of ``obj`` as a record of ``dialect``, also when it is a plain message that
    several dialects take (``{"role": "user", "content": "..."}``) and detection gave it to
    another one."""
    kind = dialect.classify(obj)
    if kind is None and dialect.wire_form and is_plain(obj):
        return MESSAGE
    return kind


_PLAIN_KEYS = frozenset({"role", "content"})
_PLAIN_ROLES = frozenset({"user", "assistant", "system", "developer"})


def is_plain(obj: dict) -> bool:
    """A message every provider form takes: a role and text (a string or text parts) only.
    A file that begins with such messages is of the dialect of its first other record."""
    role = obj.get("role")
    if not obj.keys() <= _PLAIN_KEYS or type(role) is not str or role not in _PLAIN_ROLES:
        return False
    content = obj.get("content")
    if isinstance(content, str):
        return True
    return isinstance(content, list) and all(
        isinstance(p, dict) and p.get("type") == "text" and p.keys() <= {"type", "text"}
        for p in content
    )
