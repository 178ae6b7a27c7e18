"""A deck as one file to pass to a friend: a ``.zip`` of its ``deck.toml`` (name, title, sources;
never the owner) and its reference crops as ``<type>/<n>.png``. The importer reads nothing else,
and reads it as a stranger's file: sizes, counts, compression and pixels are checked before
anything is inflated or decoded.
"""
from __future__ import annotations

import os
import tempfile
import tomllib
import zipfile
import zlib
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

import cv2
import numpy as np

from ecoscore.scoring import CardType

from .deckstore import (
    MAX_REFERENCES,
    DeckInfo,
    DeckStore,
    DeckStoreError,
    TitleTaken,
    check_name,
    clean_title,
    deck_toml,
    reference_crop,
)

MAX_IMPORT_BYTES = 40 * 2**20
MAX_IMPORT_PIXELS = 2048 * 2048  # an exported reference is REFERENCE_PX square; a bigger member is no export
MAX_MEMBER_BYTES = 16 * 2**20  # a PNG of MAX_IMPORT_PIXELS holds at most ~12 MB of pixels, and compresses
MAX_TOML_BYTES = 2**20  # an export's deck.toml is a few hundred bytes (one that inflated to 78 MB took 56 s: an attack)


def export_deck(store: DeckStore, name: str, out: Path) -> Path:
    """Deck ``name`` written to ``out`` whole or not at all: beside it first, then put in its
    place (an export that failed over a friend's file left it half overwritten). An ``OSError``
    says why it could not be written; nothing is left behind."""
    images = store.images(name)
    info = store.info(name)
    handle, part = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".part", dir=out.parent)
    os.close(handle)
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(part, 0o666 & ~umask)  # as a file written plainly (a temporary file is the owner's alone)
        with zipfile.ZipFile(part, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("deck.toml", deck_toml(name, info.sources, title=info.title))
            for card, crops in images.items():
                for i, crop in enumerate(crops):
                    z.writestr(f"{card.value}/{i:04d}.png", cv2.imencode(".png", reference_crop(crop))[1].tobytes())
        os.replace(part, out)
    finally:
        Path(part).unlink(missing_ok=True)
    return out


def import_deck(store: DeckStore, path: Path, name: str | None = None) -> DeckInfo:
    """Take a deck exported by ``export_deck`` into ``store``, under its own name or ``name``."""
    export = _read_export(path)
    name = check_name(name or export.name)
    if store.is_stored(name):
        raise DeckStoreError(f"a deck {name!r} exists already: remove it first, or import it under another name (--name NAME)")
    # A title a deck here has already is left to it: the copy is called by its own name (two
    # decks both called "Naše kuchyň" stood side by side in the menus: a newcomer's find).
    wanted = export.title
    clash = store.title_taken(name, wanted)  # as an add compares them: its title or key, in any case
    kept_by = clash.name if clash is not None else None
    # Called by its key then, which may be a title here too ("foo" beside a "Foo": a review)
    if (by_key := store.title_taken(name, None)) is not None and (kept_by or not wanted):
        raise TitleTaken(name, by_key, "another name (--name NAME)")
    # A deck still being taught travels as it is, and reads nothing until it has every type
    # (exported half built, it was refused on import: an attack).
    info = store.add(name, export.crops, f"imported from {path.name}", title=None if kept_by else wanted,
                     partial=not all(export.crops.values()))
    return replace(info, title_kept_by=kept_by)


# A deck export's central directory: a record of 46 bytes and a name ("bear/12.png") a member;
# this allows names of 200 characters.
MAX_DIRECTORY_BYTES = (MAX_REFERENCES + 1) * 256
_END_RECORD = b"PK\x05\x06"


def _directory_small(path: Path) -> bool:
    """Whether the zip's end record gives a deck export's count of members and size of directory,
    read before ``zipfile`` reads its whole directory: 300,000 empty members in 26 MB took 6 s and
    227 MB to be refused as too many (an attack). Where the record is not found, ``zipfile`` says
    so; a ZIP64 archive (counts of 0xFFFF, sizes of 0xFFFFFFFF) is no export's."""
    with path.open("rb") as f:
        f.seek(0, os.SEEK_END)
        f.seek(max(0, f.tell() - (22 + 65535)))  # the record (22 bytes) and the longest comment after it
        tail = f.read()
    at = tail.rfind(_END_RECORD)  # (where zipfile looks too: the last one)
    if at < 0 or len(tail) - at < 22:
        return True
    entries = int.from_bytes(tail[at + 10:at + 12], "little")
    size = int.from_bytes(tail[at + 12:at + 16], "little")
    return entries <= MAX_REFERENCES + 1 and size <= MAX_DIRECTORY_BYTES


class _Export(NamedTuple):
    name: str  # as its deck.toml gives it, unchecked
    title: str | None
    crops: dict[CardType, list[np.ndarray]]


def _read_export(path: Path) -> _Export:
    if path.stat().st_size > MAX_IMPORT_BYTES:
        raise DeckStoreError(f"{path}: larger than {MAX_IMPORT_BYTES // 2**20} MB, not a deck export")
    if not _directory_small(path):
        raise DeckStoreError(f"{path}: too many or too large members for a deck export")
    try:
        z = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, NotImplementedError):  # (a member claiming zip version 9.9: a traceback, a review)
        raise DeckStoreError(f"{path}: not a deck export (not a zip file)") from None
    crops: dict[CardType, list[np.ndarray]] = {c: [] for c in CardType}
    with z:
        members = z.infolist()
        if len(members) > MAX_REFERENCES + 1 or sum(m.file_size for m in members) > 4 * MAX_IMPORT_BYTES:
            raise DeckStoreError(f"{path}: too many or too large members for a deck export")
        # An export is deflated (``export_deck``); bzip2 and LZMA inflate a read whole, however
        # little is asked of it (a 498-byte member took 557 MB before its CRC was checked).
        # (Nor as "patched data", flag bit 5, which zipfile cannot read: NotImplementedError, a traceback.)
        if any(m.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED) or m.flag_bits & 0x20 for m in members):
            raise DeckStoreError(f"{path}: a member compressed other than a deck export is (deflate), not a deck export")
        # Encrypted, by a password (bit 0: RuntimeError) or strongly (bit 6: NotImplementedError):
        # tracebacks (attacks).
        if any(m.flag_bits & 0x41 for m in members):
            raise DeckStoreError(f"{path}: a member is encrypted (a password), not a deck export")
        # A name twice: the size was checked on the first deck.toml and the last one read (100 MB
        # behind a 14-byte one took 105 s and 573 MB: an attack). An export names each member once.
        if len({m.filename for m in members}) < len(members):
            raise DeckStoreError(f"{path}: a member is named twice, not a deck export")
        toml = next((m for m in members if m.filename == "deck.toml"), None)
        if toml is not None and toml.file_size > MAX_TOML_BYTES:
            raise DeckStoreError(f"{path}: its deck.toml claims {toml.file_size // 2**10} KB, not a deck export's")
        try:
            if toml is None:
                raise KeyError("deck.toml")
            meta = tomllib.loads(_member_bytes(z, toml).decode("utf-8"))
        # (brackets nested 200,000 deep in a 547-byte file: a RecursionError, a traceback before; a
        # number of 5,000 digits, past Python's limit for reading one, a ValueError)
        except (KeyError, ValueError, zipfile.BadZipFile, zlib.error, EOFError, RecursionError):
            raise DeckStoreError(f"{path}: no readable deck.toml in it, not a deck export") from None
        # Its name a text, or none: a table of 5,000 dotted keys was turned into text and recursed
        # (a traceback), and a number of 5,000 hex digits could not be written as one.
        if not isinstance(meta.get("name", ""), str):
            raise DeckStoreError(f"{path}: its deck.toml gives no name as text, not a deck export")
        for m in members:
            parts = m.filename.split("/")
            if len(parts) != 2 or not parts[1].endswith(".png"):
                continue
            try:
                card = CardType(parts[0])
            except ValueError:
                continue
            if m.file_size > MAX_MEMBER_BYTES:  # inflated whole before its header was read: 359 MB for one (an attack)
                raise DeckStoreError(f"{path}: {m.filename} claims {m.file_size // 2**20} MB, more than a reference "
                                     "image holds: not a deck export")
            try:
                data = _member_bytes(z, m)
            except (zipfile.BadZipFile, zlib.error, EOFError):  # a bad CRC, a damaged stream
                raise DeckStoreError(f"{path}: {m.filename} is damaged in the zip file") from None
            w, h = _png_size(data)
            image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR) if 0 < w * h <= MAX_IMPORT_PIXELS else None
            if image is None:
                raise DeckStoreError(f"{path}: {m.filename} is not a readable reference image (a PNG of at most "
                                     f"{MAX_IMPORT_PIXELS} pixels)")
            crops[card].append(reference_crop(image))  # kept at the stored size, not the member's
    title = meta.get("title")
    return _Export(meta.get("name", ""), clean_title(title) if isinstance(title, str) else None, crops)


def _member_bytes(z: zipfile.ZipFile, member: zipfile.ZipInfo) -> bytes:
    """A zip member's bytes, inflated a piece at a time: read whole, a member that claims 1,000
    bytes and inflates to 1.5 GB took 2 GB of memory before its CRC was checked. Read so, it
    stops at the size it claims (``ZipExtFile`` cuts it there), and the CRC then fails."""
    out = bytearray()
    with z.open(member) as f:
        while chunk := f.read(2**16):
            out += chunk
    return bytes(out)


def _png_size(data: bytes) -> tuple[int, int]:
    """(width, height) a PNG's header claims, before any decoding; (0, 0) if it is no PNG."""
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        return 0, 0
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
