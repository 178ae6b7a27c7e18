"""Decode a photo safely and only as large as needed.

Refuses what is not an image, is truncated, or claims more pixels than memory allows — before
decoding. Honours EXIF orientation. Decodes JPEG at 1/2, 1/4 or 1/8 scale directly in the
DCT (much faster than a full 12 MP decode), since the finder never needs 12 MP.
"""
from __future__ import annotations

import io
import re
import warnings
from dataclasses import dataclass

import cv2
import numpy as np
from PIL import Image

MAX_BYTES = 40 * 1024 * 1024
MAX_PIXELS = 60_000_000  # a 48 MP phone photo passes; a decompression bomb does not
# Pillow warns on stderr of any image over 89 MP it opens ("DecompressionBombWarning: ... could be
# decompression bomb DOS attack") before our own refusal said it in the player's words (a run,
# in Italian): the size is ours to judge (``probe``: MAX_PIXELS), so its warning is not shown.
warnings.filterwarnings("ignore", category=Image.DecompressionBombWarning)
MIN_SIDE = 64  # pixels across the short side: less cannot hold a readable tableau
MAX_ASPECT = 8  # long side / short side: a 5 × 4 tableau photo is near 4:3; 10000 × 1 broke the resize
WORK_LONG_SIDE = 1000  # decode at least this large: detection needs ~320, crops want detail

try:  # HEIC/HEIF, if the optional library is installed
    from pillow_heif import register_heif_opener

    register_heif_opener()
except ImportError:  # pragma: no cover - depends on the environment
    pass

# EXIF orientation tag -> OpenCV operations that undo it
_ORIENT = {
    2: [("flip", 1)],
    3: [("rotate", cv2.ROTATE_180)],
    4: [("flip", 0)],
    5: [("rotate", cv2.ROTATE_90_CLOCKWISE), ("flip", 1)],
    6: [("rotate", cv2.ROTATE_90_CLOCKWISE)],
    7: [("rotate", cv2.ROTATE_90_COUNTERCLOCKWISE), ("flip", 1)],
    8: [("rotate", cv2.ROTATE_90_COUNTERCLOCKWISE)],
}


def _upright(image: np.ndarray, orientation: int) -> np.ndarray:
    """``image`` turned as its EXIF ``orientation`` says the camera held it."""
    for op, arg in _ORIENT.get(orientation, []):
        image = cv2.rotate(image, arg) if op == "rotate" else cv2.flip(image, arg)
    return image


_AVERAGED = {"L", "LA", "RGB", "RGBA", "CMYK", "YCbCr", "I", "F"}  # modes whose pixels are values, not indices


def _reduced(im: Image.Image, factor: int) -> Image.Image:
    """``im`` shrunk by a whole factor (each pixel a block's mean), in colour where its mode's
    pixels are no values to average (a palette's indices, 1-bit, 16-bit grey)."""
    if factor <= 1:
        return im
    return (im if im.mode in _AVERAGED else im.convert("RGB")).reduce(factor)


class ImageError(ValueError):
    """An upload that is not a usable image; the message says why."""


class NotAnImageError(ImageError):
    """An upload that is no image at all (a 415 over HTTP, whatever else it says)."""


@dataclass
class Photo:
    """A decoded photo, upright (EXIF applied). ``image`` may be smaller than the original."""

    image: np.ndarray  # BGR uint8
    scale: float  # image pixels per original pixel
    original_size: tuple[int, int]  # width, height of the original, upright
    data: bytes  # the file, kept so detail can be decoded again when cards are small

    def at_least(self, long_side: int) -> Photo:
        """The same photo decoded with at least ``long_side`` pixels (or at full size)."""
        if max(self.image.shape[:2]) >= long_side or self.scale >= 1 or not self.data:  # (let go: ``to_draw_on``)
            return self
        return decode(self.data, long_side)

    def to_draw_on(self, long_side: int) -> Photo:
        """The photo at most ``long_side`` pixels, its file let go: what is kept of it once read,
        to draw on (a game's photos are kept until its last is read; each held its file and its
        reading copy, several times the readers' bound in memory: an attack on a running server).
        Nothing decodes it again."""
        h, w = self.image.shape[:2]
        k = long_side / max(h, w)
        image = self.image if k >= 1 else cv2.resize(self.image, (round(w * k), round(h * k)), interpolation=cv2.INTER_AREA)
        return Photo(image, self.scale * image.shape[1] / w, self.original_size, b"")


def sniff(data: bytes) -> str | None:
    """The format named by the file's first bytes (the upload's name and type are not trusted)."""
    if data[:3] == b"\xff\xd8\xff":
        return "JPEG"
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return "PNG"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "WEBP"
    if data[4:8] == b"ftyp" and data[8:12] in (b"heic", b"heix", b"mif1", b"msf1", b"heim", b"heis"):
        return "HEIF"
    return None


MAX_SEGMENTS = 1000  # a camera's JPEG has a few dozen segments before its scan
MAX_PADDING = 1 << 20  # zero bytes after a JPEG's end marker (some cameras pad to a block); more: truncated


def _last_bytes(data: bytes, n: int = 2, block: int = 1 << 16) -> bytes:
    """The last ``n`` bytes of ``data`` before its trailing zero bytes (at most MAX_PADDING of them
    looked at), read backwards a block at a time. ``data.rstrip(b"\\0")`` copied a whole photo,
    and on 40 MB of zeros (junk) held the GIL 88 ms in one call, stalling the service's event
    loop; each block here is a short call, and junk costs at most a megabyte's scan."""
    end = len(data)
    while end > 0 and len(data) - end <= MAX_PADDING:
        start = max(0, end - block)
        kept = len(data[start:end].rstrip(b"\x00"))
        if kept:
            return data[max(0, start + kept - n):start + kept]
        end = start
    return b""


# Scans of one JPEG: a baseline photo has 1, a progressive one about 10 (libjpeg's default
# script). Each costs the decoder a pass over every block of the image: a 300 KB file of one
# tiny scan repeated 3,000 times held a reader for 15 s (an attack on a running server).
MAX_SCANS = 64
# ... and, weighed by the image's size, at most this many pixels passed over in all: a 58 MP
# progressive JPEG of one scan repeated to 64 took 7.9 s (an attack). A camera's progressive
# photo has about 10 scans: 60 MP × 12.
MAX_SCAN_PIXELS = 720_000_000
# PNG and WebP are decoded at full size (a JPEG at an eighth, a quarter or a half): above this
# they cost seconds (a 457 KB 16-bit PNG of 59 MP, 4.4 s and 245 MB: an attack). A phone's photo
# is a JPEG or a HEIC; a PNG of a tableau is a screenshot or an export, far smaller.
MAX_FULL_DECODE_PIXELS = 25_000_000
# A HEIC is decoded at full size too (no reduced decode): a 233 KB HEIC of 59 MP held a reader
# 6-7 s and 0.9 GB (an attack). A phone's HEIC is 12 or 24 MP, 48-50 at its largest setting.
MAX_HEIF_PIXELS = 52_000_000  # (a 50 MP sensor's photo is 8192 × 6144 = 50.3 MP)
_FILL = re.compile(rb"\xff+")
MAX_JPEG_JUNK = 1 << 20  # bytes of no segment before a JPEG's image (a damaged photo's are a few)
# The two markers walked after the first scan, in one pass: FF DA (a scan) and FF D9 (the end).
# A pass of bytes.find and one of bytes.count took 3 ms of a 12 MP photo's 60; this one 0.7.
_SCAN_MARKERS = re.compile(rb"\xff[\xd9\xda]")


def _eoi_after_scan(data: bytes) -> tuple[bool | None, int]:
    """Whether a JPEG's image data ends in its end-of-image marker, found by walking its segments
    to the first scan and looking for the marker after it: scan data never holds FF D9 (its FF
    bytes are stuffed), and an EXIF thumbnail's own end marker lies before the scan. Whatever
    follows the marker is allowed: a phone's Motion Photo appends its video there, other phones
    a maker's trailer (both were refused as truncated). None: the file ends damaged before a scan.
    With it, its count of scans (0 where not walked). Refuses (ImageError) a JPEG of more than
    MAX_SCANS scans: FF DA, like FF D9, is never in scan data, so the markers between the first
    scan and the end are its scans."""
    i, n, damaged, junk = 2, len(data), False, 0
    for _ in range(MAX_SEGMENTS):
        if i + 4 > n:
            return (None if damaged else False), 0  # the file ends before its first scan
        if data[i] != 0xFF:
            # Bytes that are no marker: a damaged file, or a byte of junk before millions of
            # segments, which sent Pillow's header read walking them all (10 s and +1.4 GB: an
            # attack on a running server). The next FF is found in C, and the walk counted on.
            # (looked for only as far as the cap: Pillow steps over such bytes one at a time, 30 MB
            # of zeros 1.7 s; and a file of zeros is judged on its first megabyte, not all 40)
            at = data.find(b"\xff", i, i + MAX_JPEG_JUNK - junk + 1)
            if at == -1 and i + MAX_JPEG_JUNK - junk + 1 < n:
                raise ImageError(f"the JPEG file holds more than {MAX_JPEG_JUNK // 2**20} MB of bytes that belong to "
                                 "no segment before its image: damaged, or not a camera's photo")
            if at == -1:
                return None, 0
            damaged, junk, i = True, junk + at - i, at
            continue
        # Fill bytes before a marker (any number: T.81 B.1.1.2), skipped in C and not counted as
        # segments (each was, and 1,500 of them refused a JPEG both decoders read: a review).
        fill = _FILL.match(data, i)
        i = (fill.end() if fill else i + 1) - 1  # (data[i] is FF: always a match)
        if i + 4 > n:
            return False, 0
        marker = data[i + 1]
        if marker == 0x01 or 0xD0 <= marker <= 0xD7:  # markers with no length
            i += 2
            continue
        length = int.from_bytes(data[i + 2:i + 4], "big")
        if marker == 0x00 or length < 2:  # (no segment: stepped over, and counted, as junk is)
            damaged, i = True, i + 2
            continue
        if marker == 0xDA:  # start of scan
            scans, end = 0, -1
            for found in _SCAN_MARKERS.finditer(data, i):
                if data[found.start() + 1] == 0xDA:
                    scans += 1
                    if scans > MAX_SCANS:
                        # Refused: the message's count is taken in C, as it was before the one
                        # pass (40 MB of scans stepped through in Python took 4.6 s, in C 0.1).
                        end = data.find(b"\xff\xd9", i + 2 + length)
                        scans = data.count(b"\xff\xda", i, end if end != -1 else n)
                        break
                elif found.start() >= i + 2 + length:
                    end = found.start()
                    break
            if scans > MAX_SCANS:
                raise ImageError(f"the JPEG file holds {scans} scans (a photo has at most a few dozen): "
                                 "not a camera's photo")
            return end != -1, scans
        i += 2 + length
    # More segments than any camera writes: Pillow's header read walks them all in Python, and
    # keeps each (3 million empty ones, 12 MB: 3 s and +220 MB a photo; 10 million, 11 s and
    # +1.3 GB: an attack on a running server).
    raise ImageError(f"the JPEG file holds more than {MAX_SEGMENTS} segments before its image (a camera writes a few "
                     "dozen): not a camera's photo")


# Chunks of a PNG other than its image data: a PNG writer puts a handful (its header, palette,
# colour profile, a few texts). Pillow walks each in Python: 2.5 million empty ones, 30 MB,
# before the image data held a reader 6 s, 3 million after it 8 s (an attack on a running server,
# and a review). Its image data comes in chunks of 8-64 KB: a 40 MB PNG has a few thousand.
MAX_PNG_CHUNKS = 1000
MAX_PNG_DATA_CHUNKS = 50_000


def _png_chunks(data: bytes) -> tuple[int, int]:
    """A PNG's chunks other than its image data, and its image data's (IDAT), as far as its IEND
    or either cap passed (a walk of at most 51,001 chunks)."""
    at, other, image = 8, 0, 0
    while at + 8 <= len(data) and other <= MAX_PNG_CHUNKS and image <= MAX_PNG_DATA_CHUNKS:
        kind = data[at + 4:at + 8]
        if kind == b"IEND":
            break
        if kind == b"IDAT":
            image += 1
        else:
            other += 1
        at += 12 + int.from_bytes(data[at:at + 4], "big")
    return other, image


def _check_complete(data: bytes, fmt: str) -> int:
    """Refuses a file cut short; returns a JPEG's count of scans (0 if not known, or not a JPEG)."""
    complete, scans = _eoi_after_scan(data) if fmt == "JPEG" else (True, 0)
    if complete is None:  # damaged segments (the decoder will say so): the last bytes decide
        complete = _last_bytes(data) == b"\xff\xd9"
    if not complete:
        raise ImageError("the JPEG file is truncated (no end-of-image marker): its upload or copy stopped early")
    if fmt == "PNG" and b"IEND" not in data[-64:]:
        raise ImageError("the PNG file is truncated (no IEND chunk): its upload or copy stopped early")
    if fmt == "PNG":
        other, image = _png_chunks(data)
        if other > MAX_PNG_CHUNKS or image > MAX_PNG_DATA_CHUNKS:
            raise ImageError(f"the PNG file holds more than {MAX_PNG_CHUNKS if other > MAX_PNG_CHUNKS else MAX_PNG_DATA_CHUNKS} "
                             "chunks (a PNG writer makes a handful, and its image data a few thousand at most): not a "
                             "photo or a screenshot")
    if fmt == "WEBP" and len(data) < int.from_bytes(data[4:8], "little") + 8:
        raise ImageError("the WebP file is truncated: its upload or copy stopped early")
    return scans


def _unreadable(data: bytes, fmt: str) -> ImageError:
    """Why a file its decoder could not open or read is refused: a HEIC cut short says so (its
    boxes walked only now: a file that decodes is read, whatever trails them), else it is damaged
    (a HEIF named the HEIC phones write, as its other refusals name it)."""
    if fmt == "HEIF" and not _boxes_complete(data):
        return ImageError("the HEIC file is truncated: its upload or copy stopped early")
    return ImageError(f"the {'HEIC' if fmt == 'HEIF' else fmt} file is damaged and cannot be read")


MAX_BOXES = 1000  # a phone's HEIC has a handful of top-level boxes (ftyp, meta, mdat, ...)


def _boxes_complete(data: bytes) -> bool:
    """Whether a HEIF's top-level boxes (ISO BMFF: a 32-bit size, or 1 and a 64-bit size after
    the type, or 0 for "to the end") end within the file (``_unreadable``)."""
    at, boxes = 0, 0
    while at + 8 <= len(data) and boxes < MAX_BOXES:
        size, boxes = int.from_bytes(data[at:at + 4], "big"), boxes + 1
        if size == 1:
            if at + 16 > len(data):
                return False
            size = int.from_bytes(data[at + 8:at + 16], "big")
        if size == 0:
            return True
        if size < 8:
            return True  # not a box's size: damaged, which the decoder says
        at += size
    return at <= len(data)


def probe(data: bytes) -> tuple[str, tuple[int, int], int]:
    """(format, upright size, EXIF orientation) from the header alone; raises ImageError."""
    if not data:
        raise ImageError("the file is empty")
    if len(data) > MAX_BYTES:
        raise ImageError(f"the file is {len(data) / 2**20:.0f} MB; the limit is {MAX_BYTES // 2**20} MB")  # as the service says
    sniffed = sniff(data)
    if sniffed is None:
        raise NotAnImageError("not an image (JPEG, PNG, WebP or HEIC expected)")
    scans = _check_complete(data, sniffed)
    try:
        with Image.open(io.BytesIO(data)) as im:
            fmt, (w, h) = im.format or sniffed, im.size
            # A PNG's EXIF is read where it comes before the image data: Pillow looks for one
            # after it by decoding the whole image (and walking every chunk there, in Python).
            orientation = im.getexif().get(0x0112, 1) if fmt != "PNG" or "exif" in im.info else 1
    except Image.DecompressionBombError as err:
        claimed = re.search(r"\((\d+) pixels\)", str(err))
        size = f" {int(claimed.group(1)) / 1e6:.0f} MP" if claimed else " too many pixels"
        raise ImageError(f"the image claims{size}; the limit is {MAX_PIXELS / 1e6:.0f} MP") from None
    except Exception:
        raise _unreadable(data, sniffed) from None
    if w * h > MAX_PIXELS:
        raise ImageError(
            f"the image claims {w} × {h} = {w * h / 1e6:.0f} MP; the limit is {MAX_PIXELS / 1e6:.0f} MP"
        )
    if fmt in ("PNG", "WEBP") and w * h > MAX_FULL_DECODE_PIXELS:
        raise ImageError(f"the {fmt} image is {w} × {h} = {w * h / 1e6:.0f} MP; a {fmt} is read at most "
                         f"{MAX_FULL_DECODE_PIXELS / 1e6:.0f} MP (send the camera's JPEG or HEIC)")
    # By what the file's head says, not by which Pillow plugin opened it: an AVIF labelled "mif1"
    # is sniffed a HEIF and opened as "AVIF", and passed every cap (a review).
    if sniffed == "HEIF" and w * h > MAX_HEIF_PIXELS:
        raise ImageError(f"the HEIC image is {w} × {h} = {w * h / 1e6:.0f} MP; a HEIC is read at most "
                         f"{MAX_HEIF_PIXELS / 1e6:.0f} MP (a phone's largest): send a smaller photo, or its JPEG")
    if scans * w * h > MAX_SCAN_PIXELS:
        raise ImageError(f"the JPEG file holds {scans} scans of {w * h / 1e6:.0f} MP (a camera's photo has about "
                         "10): too costly to read, not a camera's photo")
    if min(w, h) < MIN_SIDE or max(w, h) > MAX_ASPECT * min(w, h):
        raise ImageError(f"the image is {w} × {h} pixels: too small or too narrow to hold a tableau "
                         f"(at least {MIN_SIDE} pixels across, at most {MAX_ASPECT}:1)")
    if orientation in (5, 6, 7, 8):
        w, h = h, w
    return fmt, (w, h), orientation


def decode(data: bytes, long_side: int = WORK_LONG_SIDE) -> Photo:
    """Decode ``data`` upright with a long side of at least ``long_side`` (when the photo has it)."""
    fmt, (w, h), orientation = probe(data)
    image = None
    if fmt in ("JPEG", "PNG", "WEBP"):
        reduce = 1
        for factor in (8, 4, 2):
            if max(w, h) / factor >= long_side:
                reduce = factor
                break
        flag = {1: cv2.IMREAD_COLOR, 2: cv2.IMREAD_REDUCED_COLOR_2, 4: cv2.IMREAD_REDUCED_COLOR_4,
                8: cv2.IMREAD_REDUCED_COLOR_8}[reduce if fmt == "JPEG" else 1]
        image = cv2.imdecode(np.frombuffer(data, np.uint8), flag | cv2.IMREAD_IGNORE_ORIENTATION)
        if image is not None:
            image = _upright(image, orientation)
    if image is None:  # HEIC, or something OpenCV cannot read: Pillow, upright by EXIF
        try:
            with Image.open(io.BytesIO(data)) as im:
                im.draft("RGB", (long_side, long_side))
                # Shrunk by a whole factor before it is turned upright and converted, as a JPEG
                # is decoded reduced: each of those made a full-size copy (a 12 KB HEIC of 50 MP
                # took +690 MB a read: an attack on a running server). (A HEIC comes upright from
                # libheif, its EXIF orientation then 1; another photo is turned here.)
                small = _reduced(im, max(1, max(im.size) // long_side))
                image = _upright(cv2.cvtColor(np.asarray(small.convert("RGB")), cv2.COLOR_RGB2BGR),
                                 im.getexif().get(0x0112, 1))
        except Exception as err:
            # Not the decoder's words: English whatever the language asked, a newline in them (a
            # HEIC cut short: an attack). An AV1 image whose head names a HEIF brand is an AVIF,
            # refused as a plain one is.
            if "AV1" in str(err):
                raise NotAnImageError("not an image (JPEG, PNG, WebP or HEIC expected)") from None
            raise _unreadable(data, fmt) from None
    # Formats decoded at full size are shrunk here (decode cost is already paid; memory is not).
    k = long_side / max(image.shape[:2])
    if k < 0.5:
        image = cv2.resize(image, None, fx=k, fy=k, interpolation=cv2.INTER_AREA)
    return Photo(image, image.shape[1] / w, (w, h), data)
