"""What the commands share besides their options: the one-line usage failure, outputs
checked against the inputs, the configuration resolved into options, a Dask client.

Nothing here imports a heavy module at its top: every command imports this one.
"""

from __future__ import annotations

import contextlib
import os
import sys
from datetime import UTC, timedelta, timezone, tzinfo
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from ..config import Resolver
    from ..writer import JsonlOutput

_state = {"traceback": bool(os.environ.get("MSGCLI_TRACEBACK"))}


def want_traceback(value: bool) -> bool:
    """``--traceback`` given (on the group or on a command): show an internal error's
    traceback rather than its one line."""
    if value:
        _state["traceback"] = True
    return value


def traceback_wanted() -> bool:
    return _state["traceback"]


def fail(message: str, code: int = 2) -> typer.Exit:
    """Say ``msgcli: message`` on standard error; the exit to raise (status 2: a usage error)."""
    typer.echo(f"msgcli: {message}", err=True)
    return typer.Exit(code)


def reader_gone() -> None:
    """Standard output's reader went away (``msgcli ... | head``): what is still buffered
    goes nowhere, quietly, rather than into an error at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def pipe_closed() -> None:
    """For a rich console: its reader went away (rich itself would exit with status 1)."""
    raise BrokenPipeError


def refuse_together(*given: tuple[str, object]) -> None:
    """Options that contradict each other are a usage error, before anything is read."""
    named = [name for name, value in given if value]
    if len(named) > 1:
        raise fail(f"{' and '.join(named)} contradict each other: give one")


@contextlib.contextmanager
def remote_errors():
    """A URL or a scheduler that cannot be used ends the run with one line and exit 2."""
    from ..remote import RemoteError

    try:
        yield
    except RemoteError as exc:
        raise fail(str(exc)) from None
    except Exception as exc:
        if type(exc).__name__ == "ClusterError":
            raise fail(str(exc)) from None
        raise


@contextlib.contextmanager
def dask_client(address: str | None):
    """A Dask client for ``address`` (None: no scheduler, yields None)."""
    if address is None:
        yield None
        return
    from ..cluster import ClusterError, connect

    try:
        with connect(address) as client:
            yield client
    except ClusterError as exc:
        raise fail(str(exc)) from None


def configured_scheduler() -> str | None:
    """The configuration's ``scheduler`` (for the commands that read no other setting)."""
    from ..config import ConfigError, load

    try:
        return load(None, use=True).scheduler
    except ConfigError:
        return None


def jobs_or_default(jobs: int | None) -> int:
    if jobs is not None:
        return jobs
    from ..parallel import default_jobs

    return default_jobs()


def check_outputs(outputs: list[str | None], inputs: list[str]) -> None:
    """Refuse (exit 2, before anything is opened for writing) an output that is the same
    file as an input, or as another output: see :mod:`msgcli.outputs`."""
    if not any(out not in (None, "-") for out in outputs):
        return
    from ..outputs import SameFileError
    from ..outputs import check_outputs as check
    from ..textsafe import visible

    try:
        check(outputs, inputs)
    except SameFileError as exc:
        raise fail(visible(str(exc))) from None


def open_output(path: str | None, inputs: list[str]) -> JsonlOutput:
    """Where ``-o`` points (standard output without it); a path that cannot be written, or
    that is one of the ``inputs``, is a usage error."""
    from ..writer import open_output as open_jsonl

    check_outputs([path], inputs)
    try:
        return open_jsonl(path)
    except OSError as exc:
        raise fail(f"cannot write {path}: {exc.strerror or exc}") from None


def resolve(
    *,
    config: str | None,
    no_config: bool,
    dialect: str | None,
    select: list[str] | None,
    ignore: list[str] | None,
    strict: bool | None,
    expect_invalid: bool = False,
    expectations: bool = True,
    **base,
) -> Resolver:
    """The per-file settings of a run (a :class:`msgcli.config.Resolver`): the
    configuration file, then the command line. A configuration that cannot be used, or an
    unknown rule code, is a usage error."""
    if config is not None and no_config:
        raise fail("--config and --no-config contradict each other: give one")
    from ..api import resolve_options
    from ..config import ConfigError

    try:
        return resolve_options(
            config=config if config is not None else not no_config,
            dialect=dialect,
            select=select,
            ignore=ignore,
            strict=strict,
            expect_invalid=expect_invalid,
            expectations=expectations,
            source="command line",
            **base,
        )
    except ConfigError as exc:
        raise fail(str(exc)) from None
    except ValueError as exc:
        raise fail(str(exc)) from None


def parse_zone(text: str) -> tzinfo | None:
    """``local`` (``None``: this machine's zone), ``UTC``, ``+02:00`` or an IANA name."""
    if text.lower() == "local":
        return None
    if text.upper() in ("UTC", "Z"):
        return UTC
    if text[:1] in "+-" and len(text) in (3, 5, 6):
        digits = text[1:].replace(":", "")
        if digits.isdecimal() and len(digits) in (2, 4):
            hours, minutes = int(digits[:2]), int(digits[2:] or 0)
            if hours < 24 and minutes < 60:
                offset = timedelta(hours=hours, minutes=minutes)
                return timezone(-offset if text[0] == "-" else offset)
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        return ZoneInfo(text)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(
            f"unknown zone {text!r}: use 'local', 'UTC', an offset like +02:00, "
            "or a zone name like Europe/Zurich"
        ) from None
