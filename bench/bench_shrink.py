"""How small may the phone page send a photo? Reads rendered phone photos at full size and
shrunk as the page shrinks them (upright, long side at most N px, JPEG quality 90), through the
real reader, and compares each read with the truth.

    python bench/bench_shrink.py data/test/12mp [more folders] [--sizes 0,2560,2048,1600,1280]

0 is the original. Prints, per size: tableaux read exactly, found, confident wrong, the mean
bytes sent, and the time to send them at 1 Mbit/s.
"""
from __future__ import annotations

import argparse
import io
import json
from pathlib import Path

from PIL import Image, ImageOps

from ecoscore.datasets.truth import fully_visible, truth_tableau
from ecoscore.vision.decode import ImageError
from ecoscore.vision.evaluate import match_read
from ecoscore.vision.pipeline import Reader
from ecoscore.vision.refusals import NoTableauError


def shrink(data: bytes, long_side: int, quality: int = 90) -> tuple[bytes, float]:
    """What the page sends: (bytes, scale of the sent pixels to the original's)."""
    if not long_side:
        return data, 1.0
    im = ImageOps.exif_transpose(Image.open(io.BytesIO(data))).convert("RGB")
    f = min(1.0, long_side / max(im.size))
    if f < 1:
        im = im.resize((round(im.width * f), round(im.height * f)), Image.LANCZOS)
    out = io.BytesIO()
    im.save(out, "JPEG", quality=quality)
    return out.getvalue(), f


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("folders", nargs="+", type=Path)
    ap.add_argument("--sizes", default="0,2560,2048,1600,1280")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    reader = Reader()
    stats = {s: {"tableaux": 0, "found": 0, "exact": 0, "confident_wrong": 0, "bytes": 0, "photos": 0} for s in sizes}
    for folder in args.folders:
        for path in sorted((folder / "truth").glob("*.json")):
            truth = json.loads(path.read_text())
            original = (folder / truth["image"]).read_bytes()
            visible = [t for t in truth["tableaux"] if fully_visible(t, truth["width"], truth["height"])]
            for size in sizes:
                st = stats[size]
                data, f = shrink(original, size)
                st["photos"] += 1
                st["bytes"] += len(data)
                st["tableaux"] += len(visible)
                try:
                    read = reader.read(data)
                except (NoTableauError, ImageError):
                    continue
                for tab in read.tableaux:  # back to the original's pixels, where the truth is
                    for cell in tab.cells:
                        cell.quad = cell.quad / f
                for t in visible:
                    r, mapping = next(((r, m) for r in read.tableaux if (m := match_read(r, t)) is not None), (None, None))
                    if mapping is None:
                        continue
                    st["found"] += 1
                    grid = truth_tableau(t)
                    if all(r.cells[i].type == grid.at(*rc) for i, rc in mapping.items()):
                        st["exact"] += 1
                    elif not r.doubts:
                        st["confident_wrong"] += 1
    print("| long side | tableaux exact | found | confident wrong | mean bytes sent | at 1 Mbit/s |")
    print("|---|---|---|---|---|---|")
    for size, st in stats.items():
        mean = st["bytes"] / max(1, st["photos"])
        print(f"| {size or 'original'} | {st['exact']} of {st['tableaux']} | {st['found']} | {st['confident_wrong']} "
              f"| {mean / 1e6:.2f} MB | {mean * 8 / 1e6:.1f} s |")


if __name__ == "__main__":
    main()
