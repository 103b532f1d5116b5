"""Logs in object storage: ``s3://``, ``gs://``, ``az://``, ``https://`` and ``file://`` paths.

A URL is read through fsspec, in blocks, as a local file is: nothing is
downloaded whole before reading starts, and ``.gz`` is recognised by its first
bytes. A prefix (``s3://bucket/logs/``) is listed recursively with the suffix
rules of a local directory (:data:`msgcli.inputs.LOG_SUFFIXES`).

Endpoint and credentials come from the usual environment: the AWS variables
(``AWS_ENDPOINT_URL`` included), ``~/.aws``, and fsspec's own configuration.

:func:`mask` is how any path is shown: a URL's ``user:password@`` and the
secret query values of a presigned URL are replaced by ``***``. The name a
file is reported under is masked once, where the inputs are listed, so every
report (text, JSON, GitHub annotations, JUnit, SARIF, export rows) shows the
masked form.
"""

from __future__ import annotations

import io
import os
import re
from typing import IO, Any

__all__ = ["RemoteError", "folder_files", "is_url", "listing", "mask", "open_binary", "size"]

_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]+://")
_USERINFO = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]+://)[^/@?#]*@")
#: query parameters whose values are secrets (presigned S3 URLs, Azure SAS, tokens)
_SECRET_QUERY = re.compile(
    r"([?&](?:X-Amz-Signature|X-Amz-Credential|X-Amz-Security-Token|sig|signature|token|"
    r"access_token|Signature|X-Goog-Signature|X-Goog-Credential)=)[^&#]*",
    re.IGNORECASE,
)

#: seconds to wait for an endpoint to answer before the run fails
CONNECT_TIMEOUT = 5
READ_TIMEOUT = 30


class RemoteError(Exception):
    """A URL that cannot be used: a missing bucket or prefix, no credentials, no extra
    installed. The message is one line, already masked."""


def is_url(text: object) -> bool:
    """Whether a path names a URL (``scheme://``) rather than a local file."""
    return isinstance(text, str) and _URL.match(text) is not None


def mask(text: str) -> str:
    """``text`` with the secrets of a URL replaced by ``***`` (a plain path is unchanged)."""
    if "://" not in text:
        return text
    text = _USERINFO.sub(r"\1***@", text)
    return _SECRET_QUERY.sub(r"\1***", text)


_EXTRA = {"s3": "s3", "s3a": "s3"}
_PACKAGE = {"gs": "gcsfs", "gcs": "gcsfs", "az": "adlfs", "abfs": "adlfs", "http": "aiohttp"}


def filesystem(url: str) -> tuple[Any, str]:
    scheme = url.split("://", 1)[0].lower()
    try:
        import fsspec.core
    except ImportError:
        raise RemoteError(_install_hint(scheme)) from None
    options: dict[str, Any] = {}
    if scheme in ("s3", "s3a"):
        # short timeouts and few retries: an endpoint that does not answer fails in seconds
        options["config_kwargs"] = {
            "connect_timeout": CONNECT_TIMEOUT,
            "read_timeout": READ_TIMEOUT,
            "retries": {"max_attempts": 2, "mode": "standard"},
        }
        import os

        endpoint = os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL")
        if endpoint:
            options["endpoint_url"] = endpoint
    try:
        return fsspec.core.url_to_fs(url, **options)
    except (ImportError, ValueError) as exc:
        if isinstance(exc, ImportError) or "Protocol not known" in str(exc):
            raise RemoteError(_install_hint(scheme)) from None
        raise RemoteError(f"{mask(url)}: {_why(exc)}") from None


def _install_hint(scheme: str) -> str:
    if scheme in _EXTRA:
        return f"{scheme}:// paths need the s3 extra: pip install 'msgcli[s3]'"
    package = _PACKAGE.get("http" if scheme == "https" else scheme, "fsspec")
    return f"{scheme}:// paths need fsspec and {package}: pip install fsspec {package}"


def _why(exc: BaseException) -> str:
    """One line saying why a store refused, without secrets."""
    name = type(exc).__name__
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    if name in ("NoCredentialsError", "PartialCredentialsError"):
        return (
            "no credentials found (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or a profile)"
        )
    if isinstance(exc, PermissionError) or "AccessDenied" in text or "InvalidAccessKeyId" in text:
        return f"access denied ({mask(text)})" if text else "access denied"
    if isinstance(exc, FileNotFoundError) or "NoSuchBucket" in text:
        return "no such bucket, prefix or file"
    if name in ("EndpointConnectionError", "ConnectTimeoutError", "ClientConnectorError"):
        return f"cannot reach the endpoint ({mask(text)})"
    return mask(text) or name


#: url -> its listing, so a prefix is listed once per run
LISTINGS: dict[str, list[tuple[str, int]]] = {}
#: url -> size, from the listings
_sizes: dict[str, int] = {}


def listing(url: str, suffixes: tuple[str, ...]) -> list[tuple[str, int]]:
    """``(url, size)`` of every log a URL names: the file itself, or every file below a
    prefix whose name ends with one of ``suffixes`` (hidden names skipped, name order).
    Raises :class:`RemoteError` when the URL names nothing or the store cannot be read."""
    if url in LISTINGS:
        return LISTINGS[url]

    fs, path = filesystem(url)
    if url.split("://", 1)[0].lower() in ("http", "https"):
        # a web address names one file (listing it would mean reading it)
        LISTINGS[url] = [(url, 0)]
        return LISTINGS[url]
    try:
        found = fs.find(path, detail=True, withdirs=False)
        if not found and not url.endswith("/"):
            info = fs.info(path)  # a single object (FileNotFoundError when there is none)
            found = {path: info} if info.get("type") != "directory" else {}
    except Exception as exc:  # the stores raise their own types: say why in one line
        raise RemoteError(f"{mask(url)}: {_why(exc)}") from None
    base = path.rstrip("/")
    if len(found) == 1 and next(iter(found)).rstrip("/") == base:
        # the URL names one object: read it whatever its suffix, as a named local file is
        out = [(url, int(next(iter(found.values())).get("size") or 0))]
    else:
        out = []
        for key in sorted(found):
            rest = key[len(base) :].lstrip("/") if key.startswith(base) else key
            if any(part.startswith(".") for part in rest.split("/")):
                continue
            if key.endswith(suffixes):
                out.append((url.rstrip("/") + "/" + rest, int(found[key].get("size") or 0)))
    if not out:
        what = "no log files below this prefix" if found else "no such bucket, prefix or file"
        raise RemoteError(f"{mask(url)}: {what}")
    LISTINGS[url] = out
    _sizes.update(out)
    return out


def size(source: object) -> int:
    """The size of a local file or a URL (0 when it cannot be told)."""
    import os

    try:
        if is_url(source):
            assert isinstance(source, str)
            if source in _sizes:
                return _sizes[source]
            fs, path = filesystem(source)
            return int(fs.size(path) or 0)
        return os.path.getsize(source)  # type: ignore[arg-type]
    except Exception:
        return 0


def open_binary(source: object) -> IO[bytes]:
    """A local file or a URL opened for reading bytes (read in blocks, seekable)."""
    if not is_url(source):
        return open(source, "rb")  # type: ignore[call-overload]
    assert isinstance(source, str)
    fs, path = filesystem(source)
    try:
        # fsspec's own readline is written in Python; a BufferedReader reads lines in C
        return io.BufferedReader(fs.open(path, "rb", block_size=4 << 20), 1 << 20)
    except FileNotFoundError:
        raise
    except Exception as exc:
        raise OSError(_why(exc)) from None


def clear_target(url: str, shown: str, replace: bool) -> bool:
    """Whether something is at ``url`` (a file or a directory); with ``replace`` it is
    removed first. A store that cannot be asked raises :class:`RemoteError` ("cannot
    write SHOWN: why")."""
    fs, path = filesystem(url)
    try:
        exists = fs.exists(path)
        if exists and replace:
            fs.rm(path, recursive=True)
    except Exception as exc:
        raise RemoteError(f"cannot write {shown}: {_why(exc)}") from None
    return exists


def folder_files(folder: str) -> tuple[tuple[str, int], ...] | None:
    """``(name, size)`` of the files in a folder (local or URL), None when there is none (a
    local file's size is its modification time: what tells a change). A prefix the run has
    listed already is looked in without a request of its own."""
    if not is_url(folder):
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            return None
        out = []
        for name in names:
            try:
                out.append((name, os.stat(os.path.join(folder, name)).st_mtime_ns))
            except OSError:
                continue
        return tuple(out)
    below = folder.rstrip("/") + "/"
    for prefix, listed in list(LISTINGS.items()):
        if below.startswith(prefix.rstrip("/") + "/"):
            # the run listed a prefix that holds the folder: no request of its own
            inside = [
                (url[len(below) :], size)
                for url, size in listed
                if url.startswith(below) and "/" not in url[len(below) :]
            ]
            return tuple(sorted(inside)) if inside else None
    try:
        fs, where = filesystem(folder)
        entries = fs.ls(where, detail=True)
    except (RemoteError, Exception):
        return None
    found = []
    for entry in entries:
        if entry.get("type") == "directory":
            continue
        name = str(entry.get("name", "")).rstrip("/").rpartition("/")[2]
        if name:
            found.append((name, int(entry.get("size") or 0)))
    return tuple(sorted(found))
