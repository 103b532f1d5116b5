"""What a model response cost: the price tables of ``msgcli usage``.

The bundled table is pydantic's ``genai-prices`` (the ``prices`` extra): prices per model
and per provider, per token kind (input, cache reads, cache writes, output), with their
history (the price in force on a given date) and their tiers (a higher rate for every
token of a request above a number of input tokens), kept up to date with each of its
releases and read from the data it ships, never from the network. It costs about a third
of a second to load, so it is loaded only when a report prices something, and while the
files are being read (:meth:`PriceBook.warm`).

A user's own table (``msgcli usage --prices FILE``) comes first; a model it does not name
is looked up in the bundled table. Its format (JSON, prices in US dollars per million
tokens)::

    {"models": {
        "claude-sonnet-4-5*": {"input": 3, "output": 15, "cache_read": 0.3,
                               "cache_write": 3.75,
                               "tiers": [{"above": 200000, "input": 6, "output": 22.5,
                                          "cache_read": 0.6, "cache_write": 7.5}]},
        "gpt-5": [{"input": 1.25, "output": 10, "cache_read": 0.125},
                  {"from": "2026-01-01", "input": 1.0, "output": 8, "cache_read": 0.1}]}}

A model's key is its name or a pattern (``*`` and ``?``), matched without regard to case;
the first key that matches wins (names before patterns). A list holds the model's prices
over time, each from its ``from`` date (timezone.utc) on. A missing ``cache_read`` or
``cache_write`` price is the ``input`` price; a tier applies, to every token of the
request, when the request's input tokens (cache reads and writes included) are above
``above``.
"""

from __future__ import annotations

import fnmatch
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import orjson

from .model import ResponseUsage

__all__ = ["PriceBook", "PriceError", "Rates", "bundled_version", "cost"]

#: a price per million tokens: a flat rate, or ``(base, ((above, rate), ...))``
Price = float | tuple[float, tuple[tuple[int, float], ...]]

KINDS = ("input", "output", "cache_read", "cache_write")


class PriceError(ValueError):
    """A user's price table that cannot be read."""


@dataclass(frozen=True, slots=True)
class Rates:
    """A model's prices per million tokens at one time (``None``: not priced apart)."""

    input: Price | None = None
    output: Price | None = None
    cache_read: Price | None = None
    cache_write: Price | None = None
    #: where the price comes from (``genai-prices 0.2.5``, the user's file)
    source: str = ""


def _rate(price: Price | None, total_input: int) -> float:
    if price is None:
        return 0.0
    if isinstance(price, tuple):
        base, tiers = price
        for above, rate in reversed(tiers):
            if total_input > above:
                return rate
        return base
    return price


def cost(r: ResponseUsage, rates: Rates) -> float:
    """What one response cost in US dollars: each token kind at its rate, a tier chosen by
    this request's own input tokens."""
    total_input = r.input + r.cache_read + r.cache_write
    inp = _rate(rates.input, total_input)
    read = _rate(rates.cache_read, total_input) if rates.cache_read is not None else inp
    write = _rate(rates.cache_write, total_input) if rates.cache_write is not None else inp
    out = _rate(rates.output, total_input)
    return (r.input * inp + r.cache_read * read + r.cache_write * write + r.output * out) / 1e6


# -- the bundled table ----------------------------------------------------------------------


def bundled_version() -> str | None:
    """The version of ``genai-prices`` installed, or ``None``."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("genai-prices")
    except PackageNotFoundError:
        return None


def _price(value: Any) -> Price | None:
    if value is None:
        return None
    base = getattr(value, "base", None)
    if base is not None:  # a TieredPrices
        tiers = tuple(sorted((int(t.start), float(t.price)) for t in value.tiers))
        return (float(base), tiers)
    return float(value)


def _cache_file(version: str) -> str:
    import os

    root = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(root, "msgcli", f"prices-genai-prices-{version}.json")


def _rates_doc(rates: Rates) -> list:
    return [rates.input, rates.output, rates.cache_read, rates.cache_write]


def _doc_rates(doc: list, source: str) -> Rates:
    def price(value: Any) -> Price | None:
        if isinstance(value, list):
            return (float(value[0]), tuple((int(a), float(r)) for a, r in value[1]))
        return None if value is None else float(value)

    return Rates(*(price(v) for v in doc), source=source)  # type: ignore[misc, arg-type]


class _Bundled:
    """genai-prices: what a report needs of it (each model's prices over time) is kept in a
    small file of the user's cache, one per release, so that a later report on the same
    models never loads the package (a third of a second, some 30 MB). A model whose price
    hangs on more than the date (the time of day) is looked up in the package each time."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._snapshot: Any = None
        self._failed = False
        self.version = bundled_version()
        self.source = f"genai-prices {self.version}" if self.version else ""
        self._models: dict[tuple[str, str | None], Any] = {}
        self._rates: dict[int, Rates] = {}
        self._keep: list = []
        self._cached: dict[str, Any] = {}
        self._dirty = False
        if self.version:
            try:
                with open(_cache_file(self.version), "rb") as stream:
                    found = orjson.loads(stream.read())
                if isinstance(found, dict):
                    self._cached = found
            except (OSError, orjson.JSONDecodeError):
                pass

    def needed(self) -> bool:
        """Whether the package itself may have to be loaded (a model not in the cache)."""
        return self.version is not None

    def load(self) -> Any:
        with self._lock:
            if self._snapshot is None and not self._failed:
                try:
                    from genai_prices import data_snapshot
                except ImportError:
                    self._failed = True
                    return None
                self._snapshot = data_snapshot.get_snapshot()
            return self._snapshot

    def cached(self, model: str, provider: str | None) -> Any:
        """``(history, "")`` from the cache: ``[(start or None, Rates)]``, ``None`` for a model
        without a price; the cache's miss, ``self``."""
        doc = self._cached.get(f"{provider or ''}\x00{model}", self)
        if doc is self:
            return self
        if doc is None:
            return None
        return [
            (datetime.fromisoformat(start) if start else None, _doc_rates(r, self.source))
            for start, r in doc
        ]

    def rates(self, model: str, provider: str | None, when: datetime | None) -> Rates | None:
        key = (model, provider)
        found = self._models.get(key, self)
        if found is self:
            found = self.cached(model, provider)
            if found is self:
                found = self._find(model, provider)
            self._models[key] = found
        if found is None:
            return None
        if isinstance(found, list):  # a history by start date
            day = (when or datetime.now(tz=UTC)).astimezone(UTC)
            chosen = found[0][1]
            for start, rates in reversed(found):
                if start is None or day.date() >= start.date():
                    chosen = rates
                    break
            return chosen
        price = found.get_prices(when or datetime.now(tz=UTC))
        rates = self._rates.get(id(price))
        if rates is None:
            found_prices = [_price(getattr(price, f"{kind}_mtok", None)) for kind in KINDS]
            rates = self._rates[id(price)] = Rates(*found_prices, source=self.source)  # type: ignore[misc, arg-type]
            self._keep.append(price)  # (ids stay theirs while the price is held)
        return rates

    def _find(self, model: str, provider: str | None) -> Any:
        snapshot = self.load()
        if snapshot is None:
            return None
        info = None
        for hint in (provider, None) if provider else (None,):
            try:
                _, info = snapshot.find_provider_model(model, None, hint, None)
            except Exception:  # (LookupError and its own kinds: no such model or provider)
                continue
            break
        history = self._history(info) if info is not None else None
        if info is None or history is not None:
            self._cached[f"{provider or ''}\x00{model}"] = history
            self._dirty = True
            if history is not None:
                return [
                    (datetime.fromisoformat(s) if s else None, _doc_rates(r, self.source))
                    for s, r in history
                ]
        return info

    def _history(self, info: Any) -> list | None:
        """The model's prices by start date, as the cache keeps them; ``None`` where they
        hang on anything else (the time of day). (Its price variants, by the request's
        context, such as a batch, are never asked for: the logs do not say.)"""
        prices = info.prices
        entries = prices if isinstance(prices, list) else [None]
        out = []
        for entry in entries:
            if entry is None:
                start, price = None, prices
            else:
                constraint = entry.constraint
                if constraint is not None and not hasattr(constraint, "start_date"):
                    return None
                start = constraint.start_date.isoformat() if constraint is not None else None
                price = entry.prices
            found = [_price(getattr(price, f"{kind}_mtok", None)) for kind in KINDS]
            out.append([start, [list(p) if isinstance(p, tuple) else p for p in found]])
        return out

    def save(self) -> None:
        """Keep what was looked up in the package for the next report."""
        if not self._dirty or not self.version:
            return
        import os

        path = _cache_file(self.version)
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            tmp = f"{path}.{os.getpid()}.tmp"
            with open(tmp, "wb") as stream:
                stream.write(orjson.dumps(self._cached))
            os.replace(tmp, path)
        except OSError:
            pass  # (a cache that cannot be written is only slower)
        self._dirty = False


# -- a user's table -------------------------------------------------------------------------


def _user_rates(value: Any, where: str) -> Rates:
    if not isinstance(value, dict):
        raise PriceError(f"{where}: a price is an object of rates per million tokens")

    def number(v: Any, what: str) -> float:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
            raise PriceError(f"{where}: {what} must be a number of dollars, 0 or more")
        return float(v)

    tiers = value.get("tiers", [])
    if not isinstance(tiers, list):
        raise PriceError(f"{where}: tiers must be a list")
    prices: list[Price | None] = []
    for kind in KINDS:
        base = value.get(kind)
        if base is None:
            prices.append(None)
            continue
        steps = []
        for tier in tiers:
            above = tier.get("above") if isinstance(tier, dict) else None
            if isinstance(above, bool) or not isinstance(above, int):
                raise PriceError(f"{where}: a tier needs 'above', a number of input tokens")
            if tier.get(kind) is not None:
                steps.append((above, number(tier[kind], f"{kind} above {above}")))
        rate = number(base, kind)
        prices.append((rate, tuple(sorted(steps))) if steps else rate)
    return Rates(*prices, source="your price table")  # type: ignore[misc, arg-type]


def _start(value: Any, where: str) -> datetime:
    if value is None:
        return datetime.min.replace(tzinfo=UTC)
    try:
        when = datetime.fromisoformat(str(value))
    except ValueError:
        raise PriceError(f"{where}: 'from' must be a date (YYYY-MM-DD)") from None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def read_table(path: str) -> list[tuple[str, list[tuple[datetime, Rates]]]]:
    """A user's price table: ``(model name or pattern, [(from, rates), ...])``."""
    try:
        with open(path, "rb") as stream:
            doc = orjson.loads(stream.read())
    except OSError as exc:
        raise PriceError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except orjson.JSONDecodeError as exc:
        raise PriceError(f"{path}: not JSON: {exc}") from None
    models = doc.get("models") if isinstance(doc, dict) else None
    if not isinstance(models, dict):
        raise PriceError(f'{path}: expected {{"models": {{"<model>": {{...}}}}}}')
    table = []
    for name, value in models.items():
        where = f"{path}: {name}"
        entries = value if isinstance(value, list) else [value]
        history = []
        for entry in entries:
            rates = _user_rates(entry, where)
            history.append((_start(entry.get("from"), where), rates))
        history.sort(key=lambda item: item[0])
        table.append((name.lower(), history))
    # names before patterns
    table.sort(key=lambda item: any(c in item[0] for c in "*?["))
    return table


class PriceBook:
    """Prices for every response of a report: the user's table first, then the bundled one."""

    def __init__(self, user_table: str | None = None, bundled: bool = True) -> None:
        self._user = read_table(user_table) if user_table else []
        self._bundled = _Bundled() if bundled else None
        self._cache: dict[tuple[str, str | None], Any] = {}
        self._warming: threading.Thread | None = None

    @property
    def sources(self) -> list[str]:
        out = ["your price table"] if self._user else []
        if self._bundled is not None and self._bundled.source:
            out.append(self._bundled.source)
        return out

    def warm(self) -> None:
        """Load the bundled table in a thread of its own (while the files are read), unless
        the cache of earlier reports holds it."""
        if self._bundled is not None and self._warming is None and not self._bundled._cached:
            self._warming = threading.Thread(target=self._bundled.load, daemon=True)
            self._warming.start()

    def _user_history(self, model: str) -> list[tuple[datetime, Rates]] | None:
        lowered = model.lower()
        for name, history in self._user:
            if name == lowered or fnmatch.fnmatchcase(lowered, name):
                return history
        return None

    def rates(self, r: ResponseUsage) -> Rates | None:
        """The prices of a response's model in force at its time, or ``None``: unpriced."""
        model = r.model
        if not model:
            return None
        key = (model, r.provider)
        history = self._cache.get(key, self)
        if history is self:
            history = self._cache[key] = self._user_history(model)
        if history is not None:
            when = r.time or datetime.now(tz=UTC)
            found = history[0][1]
            for start, rates in history:
                if start <= when:
                    found = rates
            return found
        if self._bundled is None:
            return None
        if self._warming is not None:
            self._warming.join()
            self._warming = None
        return self._bundled.rates(model, r.provider, r.time)

    def save(self) -> None:
        """Keep the prices looked up for the next report (the user's cache)."""
        if self._bundled is not None:
            self._bundled.save()
