"""How msgcli starts its worker processes (``validate -j``, ``usage``): the start method and
the first step of every worker. Kept apart from :mod:`msgcli.parallel` so that a command
that only needs a pool imports nothing more."""

from __future__ import annotations

import gc
import sys
from typing import Any

__all__ = ["context", "worker_start"]


def context() -> Any:
    """fork starts a worker in milliseconds and hands it the compiled schemas; where it is
    unsafe or missing (macOS, Windows) the platform's default start method is used."""
    import multiprocessing

    if sys.platform == "linux":
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()


def worker_start() -> None:
    """A worker's first step. What it was forked with (the owner's modules, compiled schemas
    and, in a program that calls msgcli, all that program holds) is set aside from the cycle
    collector: each task's collection then walks only what the worker made since, not the
    whole heap it was handed, and leaves those pages shared with the owner rather than
    writing to every object's header. Then the collector is turned on (an owner may hold it
    off while results come in).

    A worker leaves Ctrl-C to its owner: the terminal sends the interrupt to every process
    of the command, and a worker that took it printed its traceback, or died in the middle
    of handing back a result, which left the owner waiting for the rest of it for ever. The
    owner, interrupted, cancels the tasks not started and waits for those under way, and the
    workers end with it."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    gc.freeze()
    gc.enable()
