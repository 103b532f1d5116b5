"""Where msgcli writes files: never over one of its inputs, never half a file.

Every command that writes a file (``-o``, ``--output FORMAT:FILE``, ``show --export-*``)
goes through this module:

- :func:`check_outputs` refuses, before anything is opened for writing, an output that is
  the same file as an input: the same inode, however it is named (a symlink, a hard link,
  a relative path), or an existing log file that a directory named as input would read.
  Two outputs that are the same file are refused too. :func:`check_stdout` does the same
  for standard output redirected to a file (``msgcli convert a.jsonl >> a.jsonl`` would
  read what it writes, without end).
- :class:`PendingFile` writes to a temporary file in the destination's directory and
  renames it into place when the command is done, so an interrupted run leaves the file
  that was there before (or none), never half a file. Something that is not a regular file
  (``/dev/null``, a pipe) is written directly, and so is an existing file in a folder where
  no new file may be made.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import os
import stat
from collections.abc import Iterable
from typing import IO, Any

__all__ = ["PendingFile", "SameFileError", "check_outputs", "check_stdout"]


class SameFileError(ValueError):
    """An output is the same file as an input (or as another output)."""


def _stat(path: str) -> os.stat_result | None:
    try:
        return os.stat(path)
    except (OSError, ValueError):
        return None


def _scanned(name: str) -> bool:
    from .inputs import is_log_name

    return is_log_name(name)


def check_outputs(outputs: Iterable[str | None], inputs: Iterable[str]) -> None:
    """Raise :class:`SameFileError` when writing ``outputs`` would overwrite one of the
    ``inputs`` (``None`` and ``-``, standard output and input, are never files)."""
    files: dict[tuple[int, int], str] = {}
    folders: list[tuple[str, str]] = []
    for raw in inputs:
        if raw == "-":
            continue
        st = _stat(raw)
        if st is None:
            continue  # reported as unreadable by the command
        if stat.S_ISDIR(st.st_mode):
            folders.append((os.path.realpath(raw), raw))
        else:
            files[(st.st_dev, st.st_ino)] = raw
    seen: dict[object, str] = {}
    for out in outputs:
        if out is None or out == "-":
            continue
        st = _stat(out)
        real = os.path.realpath(out)
        key: object = (st.st_dev, st.st_ino) if st is not None else real
        if st is not None and key in files:
            raise SameFileError(
                f"the output {out} is the input {files[key]}: refusing to overwrite it"
            )
        if key in seen:
            raise SameFileError(f"the outputs {seen[key]} and {out} are the same file")
        seen[key] = out
        if st is None or not stat.S_ISREG(st.st_mode):
            continue  # a file that is not there yet is never read by this run
        for folder, named in folders:
            inside = os.path.relpath(real, folder)
            if inside.startswith(os.pardir) or os.path.isabs(inside):
                continue
            parts = inside.split(os.sep)
            if _scanned(parts[-1]) and not any(p.startswith(".") for p in parts):
                raise SameFileError(
                    f"the output {out} is a log in the input directory {named}: "
                    "refusing to overwrite it"
                )


def check_stdout(inputs: Iterable[str]) -> None:
    """Raise :class:`SameFileError` when standard output is a file that is one of the
    ``inputs``, or a log a directory named as input would read. (Checked only when standard
    output is a regular file: a terminal or a pipe is never an input.)"""
    import sys

    try:
        out = os.fstat(sys.stdout.fileno())
    except (AttributeError, OSError, ValueError):
        return  # (no file behind it: a test's capture, a closed stream)
    if not stat.S_ISREG(out.st_mode):
        return
    key = (out.st_dev, out.st_ino)
    for raw in inputs:
        if raw == "-" or "://" in raw:
            continue
        st = _stat(raw)
        if st is None:
            continue
        if not stat.S_ISDIR(st.st_mode):
            if (st.st_dev, st.st_ino) == key:
                raise SameFileError(f"standard output is the input {raw}: refusing to write to it")
            continue
        from .inputs import log_files

        for full, _ in log_files(raw):
            found = _stat(full)
            if found is not None and (found.st_dev, found.st_ino) == key:
                raise SameFileError(
                    f"standard output is {full}, a log in the input directory {raw}: "
                    "refusing to write to it"
                )


def _new_file_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


class PendingFile:
    """A file written beside ``path`` and renamed onto it by :meth:`commit`.

    ``stream`` is binary, text (UTF-8, ``\\n`` line ends, ``errors`` for what UTF-8 cannot
    encode) with ``text=True``, and gzip
    when ``path`` ends in ``.gz`` (binary only). As a context manager it commits when the
    block ends normally and discards the temporary file when it ends by an exception.
    A path that cannot be written raises :class:`OSError` at once.
    """

    def __init__(self, path: str, *, text: bool = False, errors: str = "strict"):
        self.path = path
        # a symlink is written through: the file it points to is replaced, the link kept
        self._target = os.path.realpath(path)
        self._temp: str | None = None
        st = _stat(self._target)
        raw: IO[bytes]
        folder, name = os.path.split(self._target)
        if (st is not None and not stat.S_ISREG(st.st_mode)) or (
            st is not None and not os.access(folder or ".", os.W_OK)
        ):
            # /dev/null, a pipe, a terminal; or a file that may be written in a folder where
            # no other file may be made: written in place, as there is no other way
            raw = open(self._target, "wb")  # noqa: SIM115  (closed by commit or discard)
        else:
            import tempfile

            fd, self._temp = tempfile.mkstemp(dir=folder or ".", prefix=f".{name}.", suffix=".tmp")
            try:
                os.chmod(self._temp, stat.S_IMODE(st.st_mode) if st else _new_file_mode())
                raw = os.fdopen(fd, "wb")
            except BaseException:
                os.close(fd)
                os.unlink(self._temp)
                raise
        self._raw = raw
        stream: Any = raw
        if path.endswith(".gz") and not text:
            stream = gzip.GzipFile(filename=self._target, mode="wb", fileobj=raw)
        elif text:
            stream = io.TextIOWrapper(raw, encoding="utf-8", errors=errors, newline="\n")
        self.stream = stream

    def _close(self) -> None:
        try:
            self.stream.close()
        finally:
            self._raw.close()

    def commit(self) -> None:
        """Finish the file and put it in place."""
        self._close()
        if self._temp is not None:
            os.replace(self._temp, self._target)
            self._temp = None

    def discard(self) -> None:
        """Forget what was written: the destination is left as it was."""
        try:
            self._close()
        finally:
            if self._temp is not None:
                with contextlib.suppress(OSError):
                    os.unlink(self._temp)
                self._temp = None

    def __enter__(self) -> PendingFile:
        return self

    def __exit__(self, kind: object, *rest: object) -> None:
        if kind is None:
            self.commit()
        else:
            self.discard()
