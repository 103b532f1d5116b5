"""Project configuration: ``[tool.msgcli]`` in ``pyproject.toml``, or a ``msgcli.toml``.

The file is found by walking up from the current directory; in each directory
a ``msgcli.toml`` comes before a ``pyproject.toml``, and a ``pyproject.toml``
without a ``[tool.msgcli]`` table is passed over. ``--config FILE`` names one,
``--no-config`` ignores them.

::

    [tool.msgcli]
    dialect = "agentscope-py"      # read every log as this dialect (default: detect)
    select = ["S", "T", "I"]       # rule codes or prefixes that are on (default: all)
    ignore = ["C002"]              # ... and those taken out
    strict = true                  # warnings fail the run too
    exclude = ["fixtures/format"]  # paths never checked

    [[tool.msgcli.overrides]]      # settings for some paths; later tables win
    paths = ["fixtures/invalid"]
    expect = "invalid"             # negative fixtures: see msgcli.expect
    ignore = ["M"]

Paths are relative to the directory of the configuration file. A pattern is a
glob (``*``, ``?``, ``[...]``, and ``**`` for any number of directories); it
names a file or a directory and everything below it, and a pattern without a
``/`` matches a file or directory of that name at any depth, as in
``.gitignore``.

Settings are applied in layers, each one winning over the ones before: the
defaults, the top-level table, every override whose paths match (in the order
written), then the command line. A ``select`` starts the rule set afresh; an
``ignore`` takes rules out of it.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from .dialects import DIALECTS, dialect_names
from .rules import RULES, select_codes

__all__ = [
    "CONFIG_NAMES",
    "Config",
    "ConfigError",
    "Effective",
    "Layer",
    "Override",
    "Resolver",
    "discover",
    "load",
]

#: looked for in every directory from the current one up, in this order
CONFIG_NAMES = ("msgcli.toml", "pyproject.toml")
EXPECTS = ("invalid", "valid")

_TOP_KEYS = ("dialect", "select", "ignore", "strict", "exclude", "overrides", "scheduler")
_OVERRIDE_KEYS = ("paths", "dialect", "select", "ignore", "strict", "expect")


class ConfigError(Exception):
    """A configuration file that cannot be used: says the file and the key."""


@dataclass(frozen=True, slots=True)
class Override:
    """One ``[[overrides]]`` table: settings for the paths it names."""

    number: int  # 1-based, in the order written
    paths: tuple[str, ...]
    dialect: str | None = None
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] | None = None
    strict: bool | None = None
    expect: str | None = None
    pattern: re.Pattern[str] | None = None

    def where(self, config: Config) -> str:
        return f"{config.label} overrides #{self.number}"


@dataclass(slots=True)
class Config:
    """A loaded configuration file (or none: :meth:`empty`)."""

    path: Path | None = None
    #: the directory the paths are relative to
    root: Path = field(default_factory=Path.cwd)
    #: "[tool.msgcli]" in a pyproject.toml, or "" for a msgcli.toml
    table: str = ""
    dialect: str | None = None
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] | None = None
    strict: bool | None = None
    exclude: tuple[str, ...] = ()
    overrides: tuple[Override, ...] = ()
    exclude_pattern: re.Pattern[str] | None = None
    #: the Dask scheduler validate, stats and export use (``--scheduler``)
    scheduler: str | None = None

    @classmethod
    def empty(cls) -> Config:
        return cls()

    @property
    def label(self) -> str:
        """How the file is named to the user: ``pyproject.toml [tool.msgcli]``."""
        if self.path is None:
            return "(no configuration file)"
        name = _display(self.path)
        return f"{name} {self.table}" if self.table else name

    def relative(self, name: str) -> str | None:
        """``name`` (a path as given) relative to the configuration's directory, with ``/``;
        None for standard input or a path outside that directory."""
        if name in ("-", "<stdin>"):
            return None
        full = os.path.abspath(name)
        root = str(self.root)
        if full == root:
            return ""
        below = root if root.endswith(os.sep) else root + os.sep
        if not full.startswith(below):
            return None
        rel = full[len(below) :]
        return rel if os.sep == "/" else rel.replace(os.sep, "/")

    def excluded(self, name: str, rel: str | None = None) -> bool:
        if self.exclude_pattern is None:
            return False
        rel = self.relative(name) if rel is None else rel
        return rel is not None and _matches(self.exclude_pattern, rel)

    def matching(self, name: str, rel: str | None = None) -> tuple[Override, ...]:
        """The overrides that apply to the file ``name``, in the order written."""
        if not self.overrides:
            return ()
        rel = self.relative(name) if rel is None else rel
        if rel is None:
            return ()
        return tuple(o for o in self.overrides if o.pattern and _matches(o.pattern, rel))


@dataclass(frozen=True, slots=True)
class Layer:
    """Settings from one place (a table of the file, or the command line), and where."""

    source: str
    dialect: str | None = None
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] | None = None
    strict: bool | None = None
    expect: str | None = None


@dataclass(slots=True)
class Effective:
    """What applies to one file, and where each value came from."""

    dialect: str | None = None
    select: frozenset[str] = frozenset(RULES)
    strict: bool = False
    expect: str | None = None
    sources: dict[str, str] = field(default_factory=dict)
    #: the ``select``/``ignore`` steps that made the rule set, in order
    rule_steps: list[tuple[str, str, tuple[str, ...]]] = field(default_factory=list)


def resolve(layers: list[Layer]) -> Effective:
    """Apply the layers in order; later ones win."""
    out = Effective(sources={k: "default" for k in ("dialect", "rules", "strict", "expect")})
    on = set(RULES)
    for layer in layers:
        if layer.dialect is not None:
            out.dialect = layer.dialect
            out.sources["dialect"] = layer.source
        if layer.select is not None:
            on = set(select_codes(list(layer.select), None))
            out.rule_steps.append((layer.source, "select", layer.select))
            out.sources["rules"] = layer.source
        if layer.ignore:
            on -= select_codes(list(layer.ignore), None)
            out.rule_steps.append((layer.source, "ignore", layer.ignore))
            out.sources["rules"] = layer.source
        if layer.strict is not None:
            out.strict = layer.strict
            out.sources["strict"] = layer.source
        if layer.expect is not None:
            out.expect = None if layer.expect == "valid" else layer.expect
            out.sources["expect"] = layer.source
    out.select = frozenset(on)
    return out


def layers_for(config: Config, name: str | None, command_line: Layer | None) -> list[Layer]:
    """The layers that apply to the file ``name`` (None: the top level only)."""
    layers = []
    if config.path is not None:
        layers.append(
            Layer(config.label, config.dialect, config.select, config.ignore, config.strict)
        )
        for o in config.matching(name) if name is not None else ():
            layers.append(Layer(o.where(config), o.dialect, o.select, o.ignore, o.strict, o.expect))
    if command_line is not None:
        layers.append(command_line)
    return layers


# -- finding and reading the file -------------------------------------------------------


def discover(start: Path | None = None) -> Path | None:
    """The configuration file that applies in ``start`` (the current directory)."""
    here = (start or Path.cwd()).absolute()
    for folder in (here, *here.parents):
        for name in CONFIG_NAMES:
            candidate = folder / name
            if not candidate.is_file():
                continue
            if name == "msgcli.toml" or _has_table(candidate):
                return candidate
    return None


def _has_table(pyproject: Path) -> bool:
    # most pyproject.toml files say nothing to msgcli: look before parsing
    try:
        text = pyproject.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return re.search(r"^\s*\[\[?\s*tool\s*\.\s*msgcli\b", text, re.MULTILINE) is not None


def load(path: str | Path | None = None, *, use: bool = True) -> Config:
    """The configuration: the file named, else the one found from the current directory.

    ``use=False`` (``--no-config``) gives none. Raises :class:`ConfigError`.
    """
    if not use:
        return Config.empty()
    if path is None:
        found = discover()
        if found is None:
            return Config.empty()
        path = found
    return _load_file(Path(path))


def _load_file(path: Path) -> Config:
    label = _display(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{label}: cannot read: {exc.strerror or exc}") from None
    toml = _toml()
    try:
        doc = toml.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{label}: not UTF-8 text ({exc.reason})") from None
    except toml.TOMLDecodeError as exc:
        raise ConfigError(f"{label}: not valid TOML: {exc}") from None
    tool = doc.get("tool")
    tool = tool if isinstance(tool, dict) else {}
    if path.name == "pyproject.toml" or "msgcli" in tool:
        table_name = "[tool.msgcli]"
        table = tool.get("msgcli")
        if table is None:
            raise ConfigError(f"{label}: has no [tool.msgcli] table")
        where = f"{label} [tool.msgcli]"
    else:
        table_name = ""
        table = doc
        where = label
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: must be a table")
    config = Config(path=path.absolute(), root=path.absolute().parent, table=table_name)
    _check_keys(table, _TOP_KEYS, where)
    config.dialect = _dialect(table, "dialect", where)
    config.select = _codes(table, "select", where)
    config.ignore = _codes(table, "ignore", where)
    config.strict = _bool(table, "strict", where)
    scheduler = table.get("scheduler")
    if scheduler is not None and not (isinstance(scheduler, str) and scheduler.strip()):
        raise ConfigError(f"{where}: scheduler must be a string (tcp://HOST:PORT, local, local:N)")
    config.scheduler = scheduler
    config.exclude = _patterns(table, "exclude", where, required=False)
    if config.exclude:
        config.exclude_pattern = _compile(config.exclude, where, "exclude")
    overrides = table.get("overrides", [])
    if not isinstance(overrides, list) or not all(isinstance(o, dict) for o in overrides):
        raise ConfigError(
            f"{where}: overrides must be an array of tables ([[tool.msgcli.overrides]] or "
            "overrides = [{paths = [...], ...}])"
        )
    built = []
    for number, item in enumerate(overrides, 1):
        at = f"{where} overrides #{number}"
        _check_keys(item, _OVERRIDE_KEYS, at)
        paths = _patterns(item, "paths", at, required=True)
        expect = item.get("expect")
        if expect is not None and expect not in EXPECTS:
            raise ConfigError(f'{at}: expect must be "invalid" or "valid", not {expect!r}')
        built.append(
            Override(
                number=number,
                paths=paths,
                dialect=_dialect(item, "dialect", at),
                select=_codes(item, "select", at),
                ignore=_codes(item, "ignore", at),
                strict=_bool(item, "strict", at),
                expect=expect,
                pattern=_compile(paths, at, "paths"),
            )
        )
    config.overrides = tuple(built)
    return config


def _toml() -> Any:
    import tomllib

    return tomllib


def _check_keys(table: dict, known: tuple[str, ...], where: str) -> None:
    for key in table:
        if key not in known:
            hint = _close(key, known)
            raise ConfigError(
                f"{where}: unknown key {key!r}"
                + (f" (did you mean {hint!r}?)" if hint else f" (known: {', '.join(known)})")
            )


def _close(key: str, known: tuple[str, ...]) -> str | None:
    import difflib

    found = difflib.get_close_matches(key.replace("_", "-").lower(), known, n=1, cutoff=0.6)
    return found[0] if found else None


def _dialect(table: dict, key: str, where: str) -> str | None:
    value = table.get(key)
    if value is None:
        return None
    if value not in DIALECTS and value not in dialect_names():
        known = ", ".join(dialect_names())
        raise ConfigError(f"{where}: {key} must be one of {known}, not {value!r}")
    return value


def _bool(table: dict, key: str, where: str) -> bool | None:
    value = table.get(key)
    if value is None or isinstance(value, bool):
        return value
    raise ConfigError(f"{where}: {key} must be true or false, not {value!r}")


def _strings(table: dict, key: str, where: str) -> tuple[str, ...] | None:
    value = table.get(key)
    if value is None:
        return None
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: {key} must be a list of strings, not {value!r}")
    return tuple(value)


def _codes(table: dict, key: str, where: str) -> tuple[str, ...] | None:
    codes = _strings(table, key, where)
    if codes is not None:
        try:
            select_codes(list(codes), None)
        except ValueError as exc:
            raise ConfigError(f"{where}: {key}: {exc}") from None
    return codes


def _patterns(table: dict, key: str, where: str, *, required: bool) -> tuple[str, ...]:
    patterns = _strings(table, key, where)
    if not patterns:
        if required:
            raise ConfigError(f"{where}: {key} must name at least one path or glob")
        return ()
    for p in patterns:
        if not p.strip():
            raise ConfigError(f"{where}: {key}: an empty pattern")
    return patterns


# -- globs -------------------------------------------------------------------------------


def _compile(patterns: tuple[str, ...], where: str, key: str) -> re.Pattern[str]:
    try:
        return re.compile("|".join(f"(?:{_glob(p)})" for p in patterns))
    except re.error as exc:
        raise ConfigError(f"{where}: {key}: a pattern cannot be read: {exc}") from None


@lru_cache(maxsize=256)
def _glob(pattern: str) -> str:
    """A regular expression for a pattern: the path itself or a directory above it matches."""
    p = pattern.replace("\\", "/").strip()
    while p.startswith("./"):
        p = p[2:]
    anchored = "/" in p.rstrip("/")
    p = p.strip("/")
    out = []
    i = 0
    while i < len(p):
        c = p[i]
        if p.startswith("**/", i):
            out.append("(?:[^/]+/)*")
            i += 3
        elif p.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            end = p.find("]", i + 2)
            if end == -1:
                out.append(re.escape(c))
                i += 1
            else:
                body = p[i + 1 : end]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append(f"[{body}]")
                i = end + 1
        else:
            out.append(re.escape(c))
            i += 1
    body = "".join(out)
    head = "" if anchored else "(?:[^/]+/)*"
    return f"{head}{body}(?:/.*)?"


def _matches(pattern: re.Pattern[str], rel: str) -> bool:
    return pattern.fullmatch(rel) is not None


def _display(path: Path) -> str:
    """A path as the user would write it: relative to the current directory when below it."""
    try:
        return str(path.absolute().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


class Resolver:
    """Per-file options for a run: the configuration's layers under the command line's.

    ``resolver(name)`` gives the :class:`msgcli.pipeline.Options` for a file (None when the
    configuration excludes it); files that match the same overrides share one object.
    """

    def __init__(
        self, config: Config, command_line: Layer, base: Any, *, expectations: bool = True
    ):
        self.config = config
        self.command_line = command_line
        self.base = base
        self.expectations = expectations
        self._cache: dict[tuple[int, ...] | None, Any] = {}
        per_file = bool(config.overrides or config.exclude)
        self._top = self._build(None, self if per_file else None)

    def top(self) -> Any:
        """The options for standard input, and for every file when nothing is per path."""
        return self._top

    def effective(self, name: str | None) -> Effective:
        return resolve(layers_for(self.config, name, self.command_line))

    def _build(self, name: str | None, files: Any) -> Any:
        eff = self.effective(name)  # raises ValueError for an unknown code on the command line
        return replace(
            self.base,
            dialect=eff.dialect,
            select=eff.select,
            strict=eff.strict,
            expect=eff.expect if self.expectations else None,
            files=files,
        )

    def __call__(self, name: str) -> Any:
        config = self.config
        rel = config.relative(name)
        if rel is None:
            return self._top  # standard input, or outside the project: no path applies
        if config.excluded(name, rel):
            return None
        key = tuple(o.number for o in config.matching(name, rel))
        found = self._cache.get(key)
        if found is None:
            found = self._cache[key] = self._build(name, self)
        return found
