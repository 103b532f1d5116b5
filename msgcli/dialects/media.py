"""The media rules every dialect shares (M001-M004, and S003 on a source): written once
over the neutral model, for :func:`msgcli.checks.check_message` and for the fast paths
that answer for records with media (``source_is_clean``)."""

from __future__ import annotations

import binascii
import re
from base64 import b64decode
from urllib.parse import urlsplit

from ..model import DataBlock, pointer
from ..textsafe import short
from .base import says_nothing

__all__ = ["check_source", "source_is_clean", "unknown_key", "written_source_is_clean"]

_MIME = re.compile(
    r"^(application|audio|font|example|image|message|model|multipart|text|video|chemical|x-[\w.+-]+)"
    r"/[a-z0-9][\w!#$&^.+-]{0,126}(\s*;.*)?$",
    re.IGNORECASE,
)
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*$")
_NEEDS_HOST = frozenset({"http", "https", "ftp", "ws", "wss"})

#: declared media type -> the byte signatures its data must start with
_MAGIC: dict[str, tuple[bytes, ...]] = {
    "image/png": (b"\x89PNG\r\n\x1a\n",),
    "image/jpeg": (b"\xff\xd8\xff",),
    "image/jpg": (b"\xff\xd8\xff",),
    "image/gif": (b"GIF87a", b"GIF89a"),
    "image/bmp": (b"BM",),
    "application/pdf": (b"%PDF-",),
    "audio/flac": (b"fLaC",),
    "audio/ogg": (b"OggS",),
    "video/webm": (b"\x1a\x45\xdf\xa3",),
}
_NAMES = {
    b"\x89PNG": "PNG",
    b"\xff\xd8\xff": "JPEG",
    b"GIF8": "GIF",
    b"%PDF": "PDF",
    b"RIFF": "RIFF (WAV/WEBP/AVI)",
    b"OggS": "Ogg",
    b"fLaC": "FLAC",
    b"ID3": "MP3",
}


def unknown_key(key: str, where: str) -> str:
    article = "an" if where[:1] in "aeiou" else "a"
    return (
        f"unknown key {short(key)} in {article} {where}: "
        "the framework drops it when it loads the record"
    )


def check_source(block: DataBlock, emit) -> None:
    source = block.source
    assert source is not None
    base = block.path
    media_type = source.media_type
    for key in source.extra:
        emit("S003", unknown_key(key, "source"), pointer(base, "source", key))
    if isinstance(media_type, str) and media_type and not _MIME.match(media_type):
        emit(
            "M002", f"{short(media_type)} is not a MIME type (type/subtype)", _source_pointer(block)
        )
    if source.kind == "url":
        url = source.url
        if isinstance(url, str):
            problem = _url_problem(url)
            if problem:
                emit("M003", f"{short(url)} is not a usable URL: {problem}", _source_pointer(block))
    elif source.kind == "base64":
        data = source.data
        if not isinstance(data, str):
            return
        try:
            raw = _b64(data)
        except (binascii.Error, ValueError) as exc:
            emit(
                "M001",
                f"the base64 data does not decode ({_b64_reason(data, exc)})",
                _source_pointer(block),
            )
            return
        if isinstance(media_type, str):
            _check_magic(media_type, raw, block, emit)


def source_is_clean(block: DataBlock) -> bool:
    """True when the media checks have nothing to say about ``block``'s source."""
    return says_nothing(check_source, block)


def written_source_is_clean(kind: str, media_type: str, value: str) -> bool:
    """What :func:`source_is_clean` says of a source as a framework writes it: ``kind``
    ``"url"`` or ``"base64"``, its media type, and its URL or base64 data (``value``), no
    other key (the typed paths of validation, which have the values at hand)."""
    if media_type and not _MIME.match(media_type):
        return False
    if kind == "url":
        return _url_problem(value) is None
    try:
        raw = _b64(value)
    except (binascii.Error, ValueError):
        return False
    return _magic_mismatch(media_type, raw) is None


def _b64(data: str) -> bytes:
    """The bytes of base64 text, white space inside it allowed (raises when it does not
    decode)."""
    try:
        return b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return b64decode("".join(data.split()), validate=True)


def _source_pointer(block: DataBlock) -> str:
    # LoongFlow media are content elements with no source object of their own
    return pointer(block.path) if block.kind == "content" else pointer(block.path, "source")


def _b64_reason(data: str, exc: Exception) -> str:
    bad = next((c for c in data if not (c.isalnum() or c in "+/=\n\r\t ")), None)
    if bad is not None:
        return f"{short(bad)} is not a base64 character"
    if len("".join(data.split())) % 4:
        return "its length is not a multiple of 4: it is cut off or unpadded"
    return str(exc)


def _url_problem(url: str) -> str | None:
    if not url.strip():
        return "it is empty"
    if url != url.strip():
        return "it starts or ends with white space"
    try:
        parts = urlsplit(url)
    except ValueError as exc:
        return str(exc)
    if not parts.scheme or not _SCHEME.match(parts.scheme):
        return "it has no scheme (like https:)"
    if parts.scheme.lower() in _NEEDS_HOST and not parts.hostname:
        return "it has no host"
    return None


def _magic_mismatch(media_type: str, raw: bytes) -> str | None:
    """What the bytes are, when they are not what ``media_type`` declares (else None)."""
    signatures = _MAGIC.get(media_type.split(";")[0].strip().lower())
    if not signatures or not raw or raw.startswith(signatures):
        return None
    actual = next((name for sig, name in _NAMES.items() if raw.startswith(sig)), None)
    return f"{actual} data" if actual else "data of another kind"


def _check_magic(media_type: str, raw: bytes, block: DataBlock, emit) -> None:
    found = _magic_mismatch(media_type, raw)
    if found is not None:
        emit("M004", f"declared {media_type} but the bytes are {found}", _source_pointer(block))
