"""Decoding photos: EXIF orientation, reduced decode, and every kind of bad file."""
import io
import struct
import zlib

import cv2
import numpy as np
import pytest
from PIL import Image

from ecoscore.vision.decode import MAX_BYTES, MAX_SCANS, ImageError, decode


def marked_image(w=400, h=300):
    """Grey image with a red block in the top-left corner."""
    img = np.full((h, w, 3), 128, np.uint8)
    img[: h // 4, : w // 4] = (0, 0, 255)
    return img


def jpeg_bytes(img, orientation=None, quality=92):
    pil = Image.fromarray(cv2.cvtColor(img, cv2.COLOR_BGR2RGB))
    buf = io.BytesIO()
    exif = Image.Exif()
    if orientation:
        exif[0x0112] = orientation
    pil.save(buf, "JPEG", quality=quality, exif=exif.tobytes())
    return buf.getvalue()


def red_corner(img) -> str:
    h, w = img.shape[:2]
    corners = {"tl": img[5, 5], "tr": img[5, w - 6], "bl": img[h - 6, 5], "br": img[h - 6, w - 6]}
    return next(name for name, px in corners.items() if px[2] > 200 and px[0] < 60)


@pytest.mark.parametrize("orientation, corner, shape", [(1, "tl", (300, 400)), (3, "br", (300, 400)),
                                                        (6, "tr", (400, 300)), (8, "bl", (400, 300))])
def test_exif_orientation_is_honoured(orientation, corner, shape):
    photo = decode(jpeg_bytes(marked_image(), orientation))
    assert photo.image.shape[:2] == shape
    assert red_corner(photo.image) == corner
    assert photo.original_size == shape[::-1]


def test_big_jpeg_is_decoded_reduced_and_upright():
    data = jpeg_bytes(marked_image(4000, 3000), orientation=6)
    photo = decode(data)
    assert 1000 <= max(photo.image.shape[:2]) <= 2000
    assert photo.image.shape[0] > photo.image.shape[1]  # portrait after EXIF
    assert photo.scale == pytest.approx(photo.image.shape[1] / 3000)
    assert red_corner(photo.image) == "tr"
    assert max(photo.at_least(3000).image.shape[:2]) >= 3000


def test_png_and_webp():
    for ext in (".png", ".webp"):
        ok, buf = cv2.imencode(ext, marked_image())
        photo = decode(buf.tobytes())
        assert photo.image.shape[:2] == (300, 400) and red_corner(photo.image) == "tl"


def test_truncated_jpeg_is_refused():
    data = jpeg_bytes(marked_image())
    with pytest.raises(ImageError, match="truncated"):
        decode(data[: len(data) // 2])


def test_junk_of_zeros_is_refused_cheaply_and_a_padded_jpeg_is_read():
    """The end-marker check read the whole file in one call (``rstrip``): on 40 MB of zeros,
    88 ms holding the GIL in a read thread while the service's event loop waited (bench_abuse).
    Zero bytes after the end marker (cameras pad to a block) are still allowed, up to 1 MB."""
    import time

    from ecoscore.vision.decode import _check_complete

    def cost(n: int) -> float:
        junk = b"\xff\xd8\xff" + b"\x00" * n
        started = time.thread_time()
        for _ in range(3):
            with pytest.raises(ImageError, match="truncated|more than 1 MB of bytes that belong to no segment"):
                _check_complete(junk, "JPEG")
        return time.thread_time() - started

    assert cost(39_000_000) < 5 * cost(2_000_000) + 0.005  # the scan stops after 1 MB of zeros, whatever the size
    data = jpeg_bytes(marked_image())
    for pad in (1, 65_535, 65_536, 65_537, 2**20, 2**20 + 70_000):
        assert decode(data + b"\x00" * pad).image.shape[:2] == (300, 400)
    # A file of many tiny segments is walked only so far, and refused (no camera writes them).
    many = b"\xff\xd8" + b"\xff\xfe\x00\x02" * 5_000_000 + b"\x00" * 100
    started = time.thread_time()
    with pytest.raises(ImageError, match="more than 1000 segments"):
        _check_complete(many, "JPEG")
    assert time.thread_time() - started < 0.1


def test_a_jpeg_with_data_after_its_end_marker_is_read_and_a_cut_one_with_a_thumbnail_is_not():
    # A phone's Motion Photo appends its video after the end marker (other phones a trailer):
    # such photos were refused as truncated. A truncated photo whose EXIF thumbnail holds an end
    # marker of its own (before the image's scan) is still refused.
    import os

    data = jpeg_bytes(marked_image())
    motion = data + b"\x00\x00\x00\x18ftypmp42" + os.urandom(5000)
    photo = decode(motion)
    assert photo.image.shape[:2] == (300, 400) and red_corner(photo.image) == "tl"
    thumbnail = b"Exif\x00\x00" + b"\xff\xd8 a thumbnail \xff\xd9"
    with_thumb = data[:2] + b"\xff\xe1" + (len(thumbnail) + 2).to_bytes(2, "big") + thumbnail + data[2:]
    assert decode(with_thumb).image.shape[:2] == (300, 400)
    with pytest.raises(ImageError, match="truncated"):
        decode(with_thumb[: len(with_thumb) * 2 // 3])


def test_truncated_png_is_refused():
    data = cv2.imencode(".png", marked_image())[1].tobytes()
    with pytest.raises(ImageError, match="truncated"):
        decode(data[:-30])


def png_claiming(width, height) -> bytes:
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\x00" * 64)) + chunk(b"IEND", b"")


def test_decompression_bomb_is_refused_before_decoding():
    with pytest.raises(ImageError, match="claims 900 MP; the limit is 60 MP"):
        decode(png_claiming(30000, 30000))


@pytest.mark.parametrize("data, message", [(b"", "empty"), (b"hello, not a photo", "not an image"),
                                           (b"\xff\xd8\xff" + b"\x00" * 100, "truncated"),
                                           (b"\xff\xd8\xff\xe0" + b"\x00" * 100 + b"\xff\xd9", "damaged")])
def test_not_an_image(data, message):
    with pytest.raises(ImageError, match=message):
        decode(data)


def test_too_large_a_file():
    with pytest.raises(ImageError, match="limit is"):
        decode(b"\xff" * (MAX_BYTES + 1))


def test_a_jpeg_of_thousands_of_scans_is_refused_before_decoding():
    # One tiny progressive scan repeated thousands of times: a 300 KB file held a photo reader
    # for 15 s, each scan a pass over every block (an attack on a running server).
    import time

    progressive = cv2.imencode(".jpg", marked_image(1600, 1200), [cv2.IMWRITE_JPEG_PROGRESSIVE, 1])[1].tobytes()
    assert 1 < progressive.count(b"\xff\xda") <= MAX_SCANS
    assert decode(progressive).image.shape[:2] == (1200, 1600)  # a camera's progressive JPEG is read
    end = len(progressive) - 2
    last_scan = progressive[progressive.rfind(b"\xff\xda"):end]  # a flat image's scans are small
    bomb = progressive[:end] + last_scan * 3000 + b"\xff\xd9"
    assert len(bomb) < MAX_BYTES
    start = time.perf_counter()
    with pytest.raises(ImageError, match=r"holds 30\d\d scans"):
        decode(bomb)
    assert time.perf_counter() - start < 1.0


def test_a_header_of_millions_of_segments_or_chunks_is_refused_before_it_is_walked():
    # 3 million empty JPEG segments (12 MB) before a 640 x 480 picture held a reader 3 s and
    # +220 MB, 10 million 11 s and +1.3 GB; 2.5 million empty PNG chunks 6 s: Pillow's header read
    # walks and keeps each, in Python (an attack on a running server).
    import time

    img = marked_image(640, 480)
    jpeg = cv2.imencode(".jpg", img)[1].tobytes()
    png = cv2.imencode(".png", img)[1].tobytes()
    idat = png.index(b"IDAT") - 4
    private = struct.pack(">I", 0) + b"prIv" + struct.pack(">I", zlib.crc32(b"prIv"))
    iend = png.rindex(b"IEND") - 4
    one_row = zlib.compress(b"".join(b"\x00" + bytes(640 * 3) for _ in range(480)))
    data_chunks = b"".join(struct.pack(">I", 1) + b"IDAT" + one_row[k:k + 1] + struct.pack(">I", zlib.crc32(b"IDAT" + one_row[k:k + 1]))
                           for k in range(len(one_row)))
    for many, few, said in ((jpeg[:2] + b"\xff\xef\x00\x02" * 3_000_000 + jpeg[2:],
                             jpeg[:2] + b"\xff\xfe\x00\x02" * 500 + jpeg[2:],  # a few hundred: a camera's many APP2s
                             r"more than 1000 segments before its image"),
                            (png[:idat] + private * 2_500_000 + png[idat:], png[:idat] + private * 500 + png[idat:],
                             r"more than 1000 chunks"),
                            # ... after its image data too (Pillow read those by decoding the image: a review)
                            (png[:iend] + private * 3_000_000 + png[iend:], png[:iend] + private * 500 + png[iend:],
                             r"more than 1000 chunks"),
                            # ... and its image data in more chunks than any writer makes
                            (png[:idat] + data_chunks * 80 + png[iend:], png[:idat] + data_chunks + png[iend:],
                             r"more than 50000 chunks")):
        start = time.perf_counter()
        with pytest.raises(ImageError, match=said):
            decode(many)
        assert time.perf_counter() - start < 0.5
        assert decode(few).image.shape[:2] == (480, 640)
    # Fill bytes before a marker, any number, are no segments (1,500 of them were refused: a review)
    assert decode(jpeg[:20] + b"\xff" * 1500 + jpeg[20:]).image.shape[:2] == (480, 640)
    # ... nor is a byte of junk a way past the count (one before 10 million segments sent Pillow
    # walking them: 10 s and +1.4 GB, an attack), nor a segment too short to be one, nor FF 00
    for junk in (b"\x00", b"\xff\x00", b"\xff\xef\x00\x01"):
        start = time.perf_counter()
        with pytest.raises(ImageError, match="more than 1000 segments"):
            decode(jpeg[:20] + junk + b"\xff\xef\x00\x02" * 3_000_000 + jpeg[20:])
        assert time.perf_counter() - start < 0.5
        assert decode(jpeg[:20] + junk + jpeg[20:]).image.shape[:2] == (480, 640)  # a damaged photo still reads
    # ... and a megabyte of bytes that are no segment (Pillow steps over them a byte at a time)
    with pytest.raises(ImageError, match="MB of bytes that belong to no segment"):
        decode(jpeg[:20] + b"\x00" * 30_000_000 + jpeg[20:])


def test_costly_pictures_in_small_files_are_refused_before_decoding():
    # A 457 KB 16-bit PNG of 59 MP held a reader 4.4 s and 245 MB; a 58 MP progressive JPEG of
    # one scan repeated to 64 held one 7.9 s (an attack). A PNG or WebP is read to 25 MP, and a
    # JPEG's scans are weighed by its size; a camera's progressive photo passes.
    from ecoscore.vision.decode import probe

    flat = np.full((6000, 8000, 3), 120, np.uint8)
    png = cv2.imencode(".png", flat[:, :4500])[1].tobytes()  # 27 MP
    with pytest.raises(ImageError, match="a PNG is read at most 25 MP"):
        probe(png)
    progressive = cv2.imencode(".jpg", flat, [cv2.IMWRITE_JPEG_PROGRESSIVE, 1])[1].tobytes()
    fmt, size, _ = probe(progressive)  # 48 MP, its own ~10 scans
    assert size == (8000, 6000)
    last = progressive.rindex(b"\xff\xda")
    scan, end = progressive[last:-2], progressive[-2:]
    repeated = progressive[:-2] + scan * 10 + end
    with pytest.raises(ImageError, match="scans of 48 MP"):
        probe(repeated)


def test_a_heic_larger_than_a_phones_largest_is_refused_before_decoding(monkeypatch):
    # A 233 KB HEIC of 59 MP was decoded whole: 6-7 s of a reader and 0.9 GB (an attack). A
    # phone's HEIC is 12-48 MP. (The limit lowered here: a HEIC of 59 MP is slow to make.)
    import pillow_heif  # a runtime dependency (iPhone photos)

    from ecoscore.vision import decode as decoding

    pillow_heif.register_heif_opener()
    out = io.BytesIO()
    Image.fromarray(np.full((1000, 1200, 3), 90, np.uint8)).save(out, format="HEIF", quality=30)
    assert decoding.probe(out.getvalue())[0] == "HEIF"  # under the limit: read
    monkeypatch.setattr(decoding, "MAX_HEIF_PIXELS", 1_000_000)
    with pytest.raises(ImageError, match=r"^the HEIC image is 1200 × 1000 = 1 MP; a HEIC is read at most 1 MP"):
        decoding.probe(out.getvalue())
    # An AVIF labelled "mif1" is sniffed a HEIF and opened by Pillow's AVIF plugin: it passed
    # every cap (a review). Judged by its head, as a HEIF.
    avif = io.BytesIO()
    Image.fromarray(np.full((1000, 1200, 3), 90, np.uint8)).save(avif, format="AVIF")
    relabelled = avif.getvalue()[:8] + b"mif1" + avif.getvalue()[12:]
    with pytest.raises(ImageError, match=r"^the HEIC image is 1200 × 1000"):
        decoding.probe(relabelled)


@pytest.mark.parametrize("orientation, corner, shape", [(1, "tl", (768, 1024)), (6, "tr", (1024, 768)),
                                                      (3, "br", (768, 1024)), (8, "bl", (1024, 768))])
def test_a_big_photo_pillow_decodes_is_shrunk_before_it_is_turned_upright(orientation, corner, shape, monkeypatch):
    # Turned upright and converted at full size, each step a copy: a 12 KB HEIC of 50 MP took
    # +690 MB a read (an attack on a running server). Shrunk by a whole factor first, as a JPEG is
    # decoded reduced (+350 MB), and upright as before: a HEIC's turn is libheif's as it decodes
    # (its EXIF says 1 after), any other photo's Pillow's on the reduced copy (a JPEG OpenCV
    # could not read, here made so).
    import pillow_heif

    from ecoscore.vision import decode as decoding

    pillow_heif.register_heif_opener()
    exif = Image.Exif()
    exif[0x0112] = orientation
    out = io.BytesIO()
    Image.fromarray(cv2.cvtColor(marked_image(4096, 3072), cv2.COLOR_BGR2RGB)).save(out, format="HEIF", quality=60,
                                                                                     exif=exif.tobytes())
    jpeg = jpeg_bytes(marked_image(4096, 3072), orientation, quality=60)
    monkeypatch.setattr(decoding.cv2, "imdecode", lambda *args: None)  # (the JPEG to Pillow)
    for data in (out.getvalue(), jpeg):
        photo = decode(data)
        assert photo.image.shape[:2] == shape and red_corner(photo.image) == corner  # 4096 / 4: as a JPEG is read
        assert photo.original_size == (4 * shape[1], 4 * shape[0]) and photo.scale == 0.25


def test_a_palette_is_shrunk_in_colour_not_by_its_indices():
    from ecoscore.vision.decode import _reduced

    stripes = Image.new("PA", (4, 4))
    stripes.putpalette([255, 0, 0, 0, 0, 255])
    stripes.putdata([(k % 2, 255) for k in range(16)])  # red and blue pixels side by side
    assert _reduced(stripes, 2).convert("RGB").getpixel((0, 0)) == (128, 0, 128)  # purple, not index 0.5's black


def test_an_image_past_pillows_warning_size_is_judged_by_ours_without_its_warning(tmp_path):
    # "DecompressionBombWarning: Image size (108000000 pixels) exceeds limit ... could be
    # decompression bomb DOS attack" was printed before the refusal in the player's words (a run,
    # in Italian). In a fresh interpreter, as the command runs, Pillow's limit made small: the
    # same path as a 90 MP photo's.
    import subprocess
    import sys

    path = tmp_path / "big.jpg"
    path.write_bytes(cv2.imencode(".jpg", np.full((200, 200, 3), 128, np.uint8))[1].tobytes())  # 40,000 pixels
    code = ("import sys; from PIL import Image; from ecoscore.vision.decode import probe; "
            "Image.MAX_IMAGE_PIXELS = 30_000; print(probe(open(sys.argv[1], 'rb').read())[1])")
    run = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and run.stdout.strip() == "(200, 200)" and run.stderr == "", run.stderr


def test_a_heic_cut_short_is_said_truncated_and_an_av1_image_labelled_heif_not_an_image():
    # A HEIC cut short (any cut, even its last byte) was refused with the decoder's own words,
    # "(Invalid input: Unexpected end of file: Extent in iloc box ...\n)", English in every
    # language; an AVIF whose head names a HEIF brand with "Error while loading plugin ... dav1d"
    # (an attack). A plain AVIF is not an image to us: so neither is it.
    import pillow_heif

    from ecoscore.vision.decode import NotAnImageError

    pillow_heif.register_heif_opener()
    out = io.BytesIO()
    Image.fromarray(np.random.default_rng(1).integers(0, 255, (300, 400, 3), np.uint8)).save(out, format="HEIF")
    whole = out.getvalue()
    assert decode(whole).original_size == (400, 300)
    for cut in (len(whole) // 2, len(whole) - 10, len(whole) - 1):
        with pytest.raises(ImageError, match=r"^the HEIC file is truncated: its upload or copy stopped early$"):
            decode(whole[:cut])
    # a file that decodes is read, whatever follows its boxes (a vendor's trailer: a review)
    assert decode(whole + b"SEFHjunkjunkjunkjunkSEFT").original_size == (400, 300)
    avif = io.BytesIO()
    Image.fromarray(np.full((300, 400, 3), 90, np.uint8)).save(avif, format="AVIF")
    with pytest.raises(NotAnImageError, match=r"^not an image \(JPEG, PNG, WebP or HEIC expected\)$"):
        decode(avif.getvalue()[:8] + b"mif1" + avif.getvalue()[12:])
