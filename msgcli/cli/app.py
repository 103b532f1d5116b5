"""The ``msgcli`` application: its command group, ``main``, and the one-line failure.

Each command lives in a module of its own, named in :data:`COMMANDS`; the group imports
and builds only the command being run (``msgcli --help`` builds them all to list them),
so ``msgcli validate`` on one line pays for validate alone.

Exit codes: 0 clean, 1 findings of error severity, 2 a usage error or a path that cannot
be read. An unexpected internal error is reported in one line and exits 2;
``--traceback`` (or ``MSGCLI_TRACEBACK=1``) shows it.
"""

from __future__ import annotations

import errno
import functools
import importlib
import sys
from collections.abc import Iterator, MutableMapping
from typing import Annotated, Any

import typer

from .. import __version__
from .common import fail, reader_gone, traceback_wanted
from .options import TracebackOption

#: every command, in the order ``msgcli --help`` lists them: its name -> the module of
#: :mod:`msgcli.cli` whose ``command`` (a :class:`typer.Typer`) holds it
COMMANDS = {
    "validate": "validate_cmd",
    "replay": "replay_cmd",
    "rules": "rules_cmd",
    "config": "config_cmd",
    "convert": "convert_cmd",
    "diff": "diff_cmd",
    "export": "export_cmd",
    "format": "format_cmd",
    "query": "query_cmd",
    "show": "show_cmd",
    "sql": "sql_cmd",
    "stats": "stats_cmd",
    "usage": "usage_cmd",
    "view": "view_cmd",
    "schema": "schema_cmd",
}


#: the arguments that name a command's inputs
_INPUTS = ("paths", "path", "a", "b")


def load_command(name: str) -> Any:
    """The click command ``name``, imported and built now. A command that reads logs first
    makes sure its standard output is none of them (see :func:`_guarded`)."""
    module = importlib.import_module(f"{__package__}.{COMMANDS[name]}")
    command = typer.main.get_command(module.command)
    if command.callback is not None and any(p.name in _INPUTS for p in command.params):
        command.callback = _guarded(command.callback)
    return command


def _guarded(callback: Any) -> Any:
    """``callback``, run only once standard output is known to be none of the command's
    inputs: ``msgcli convert a.jsonl >> a.jsonl`` would read what it writes, without end
    (and after ``>`` the shell has emptied the input before msgcli starts)."""

    @functools.wraps(callback)
    def run(**params: Any) -> Any:
        inputs: list[str] = []
        for name in _INPUTS:
            value = params.get(name)
            if isinstance(value, str):
                inputs.append(value)
            elif isinstance(value, (list, tuple)):
                inputs.extend(v for v in value if isinstance(v, str))
        if inputs:
            from ..outputs import SameFileError, check_stdout
            from ..textsafe import visible

            try:
                check_stdout(inputs)
            except SameFileError as exc:
                raise fail(visible(str(exc))) from None
        return callback(**params)

    return run


class LazyCommands(MutableMapping):
    """The group's commands by name: every name of :data:`COMMANDS` is there, and a
    command is imported and built the first time it is looked up."""

    def __init__(self) -> None:
        self._built: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        if name not in self._built:
            if name not in COMMANDS:
                raise KeyError(name)
            self._built[name] = load_command(name)
        return self._built[name]

    def __setitem__(self, name: str, command: Any) -> None:
        self._built[name] = command

    def __delitem__(self, name: str) -> None:
        del self._built[name]

    def __iter__(self) -> Iterator[str]:
        return iter({**dict.fromkeys(COMMANDS), **self._built})

    def __len__(self) -> int:
        return len(set(COMMANDS) | set(self._built))

    def __contains__(self, name: object) -> bool:
        return name in COMMANDS or name in self._built


class Group(typer.core.TyperGroup):
    """The command group: its commands are built when they are asked for, and a closed
    pipe on standard output ends any command with status 0, as it does ``cat`` or
    ``grep``: the reader had all it wanted."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        built = self.commands  # any command registered on ``app`` itself comes after
        self.commands = LazyCommands()
        self.commands.update(built)

    def list_commands(self, ctx: Any) -> list[str]:
        return list(self.commands)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        return self.commands.get(cmd_name)

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            reader_gone()
            raise typer.Exit(0) from None


app = typer.Typer(
    name="msgcli",
    cls=Group,
    help="Check, replay and read the message and event logs that LLM-agent frameworks "
    "record (AgentScope Java and Python, LoongFlow), Claude Code sessions, and the OpenAI "
    "and Anthropic wire forms.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"msgcli {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version."),
    ] = False,
    traceback: TracebackOption = False,
) -> None:
    """(the options every command takes)"""


#: what an output that cannot be written fails with (see :func:`main`)
_CANNOT_WRITE = frozenset(
    getattr(errno, name)
    for name in ("ENOSPC", "EDQUOT", "EFBIG", "EROFS", "EIO")
    if hasattr(errno, name)
)


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``msgcli`` script."""
    try:
        app(args=argv, prog_name="msgcli", standalone_mode=True)
    except SystemExit:
        raise
    except KeyboardInterrupt:
        sys.stderr.write("msgcli: interrupted\n")
        sys.exit(130)
    except BrokenPipeError:
        # The reader went away (msgcli ... | head): not an error of ours.
        reader_gone()
        sys.exit(0)
    except Exception as exc:  # an internal error: one line, or the whole story on request
        wanted = traceback_wanted()
        if type(exc).__name__ in ("RemoteError", "ClusterError") and not wanted:
            # a URL or a scheduler that cannot be used, in any command: one line, exit 2
            sys.stderr.write(f"msgcli: {exc}\n")
            sys.exit(2)
        if wanted or "--traceback" in (argv or sys.argv):
            raise
        if isinstance(exc, OSError) and exc.errno in _CANNOT_WRITE:
            # a full disk, a quota, a read-only file system: the machine's, not ours (what is
            # still buffered for standard output goes nowhere)
            reader_gone()
            sys.stderr.write(f"msgcli: cannot write: {exc.strerror or exc}\n")
            sys.exit(2)
        if isinstance(exc, MemoryError):
            # (what was asked for is gone by now: there is room to say so)
            sys.stderr.write(
                "msgcli: out of memory (the usual cause: a line of gigabytes, a file with no "
                "line ends; run again with --traceback to see where)\n"
            )
            sys.exit(2)
        sys.stderr.write(
            f"msgcli: internal error: {type(exc).__name__}: {exc} "
            "(run again with --traceback to see where)\n"
        )
        sys.exit(2)
