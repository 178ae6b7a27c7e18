"""Decks whose art is photographs (never imported by training code): the nearest we can come here
to a real deck's painted, detailed art, which no deck of ours (generated, mosaic, silhouette)
draws. The photographs are scikit-image's sample images that are CC0 or public domain, taken
from its wheel on PyPI (nothing is committed: ``fetch`` downloads it):

    python bench/photo_art_decks.py fetch            # -> data/photo-art/*.png and SOURCES.txt
    python bench/photo_art_decks.py write            # -> data/photo-art/decks/{printed,fullart}

Two designs, as real decks come: ``printed`` (a cream card with a banner in its habitat's colour
and the type's name, the art in a window, a text box of rules under it: every type shares the
frame and differs by the picture and a word) and ``fullart`` (the picture to the card's edges, a
name plate across its foot). Grey photographs are printed in a tint, as duotone art is.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from ecoscore.datasets.deck import CARD_MM, Deck
from ecoscore.datasets.deckgen import write_deck
from ecoscore.paths import data_dir, fonts_dir
from ecoscore.scoring import CardType

W, H = 360, 504
WHEEL = "scikit-image==0.26.0"
# type -> (sample image, its licence as scikit-image's docs give it, crop (x0, y0, x1, y1) as
# fractions, tint for a grey image or None)
ART: dict[CardType, tuple[str, str, tuple[float, float, float, float], tuple[int, int, int] | None]] = {
    CardType.BEAR: ("chelsea.png", "CC0, Stefan van der Walt", (0.15, 0.0, 0.75, 1.0), None),
    CardType.BEE: ("coffee.png", "CC0, Rachel Michetti", (0.1, 0.0, 0.75, 1.0), None),
    CardType.DEER: ("astronaut.png", "public domain, NASA", (0.05, 0.0, 0.75, 1.0), None),
    CardType.DRAGONFLY: ("ihc.png", "no known copyright restrictions", (0.0, 0.0, 0.7, 1.0), None),
    CardType.EAGLE: ("rocket.jpg", "public domain, SpaceX", (0.25, 0.0, 0.8, 1.0), None),
    CardType.FOX: ("retina.jpg", "CC0, Häggström", (0.1, 0.0, 0.8, 1.0), None),
    CardType.MEADOW: ("grass.png", "CC0, linolafett", (0.0, 0.0, 0.7, 1.0), (90, 170, 60)),
    CardType.RABBIT: ("camera.png", "CC0, Lav Varshney", (0.1, 0.0, 0.8, 1.0), (200, 160, 110)),
    CardType.STREAM: ("gravel.png", "CC0, CC0Textures", (0.0, 0.0, 0.7, 1.0), (70, 120, 200)),
    CardType.TROUT: ("hubble_deep_field.jpg", "public domain, NASA", (0.2, 0.1, 0.8, 0.9), None),
    CardType.WOLF: ("coins.png", "no known copyright restrictions, Brooklyn Museum", (0.0, 0.0, 0.7, 1.0),
                    (150, 150, 170)),
}
HABITAT = {  # banner colours (RGB) shared by types, as a real deck's habitats share a colour
    "land": (120, 84, 50), "water": (40, 90, 150), "air": (90, 130, 70)}
TYPE_HABITAT = {CardType.BEAR: "land", CardType.DEER: "land", CardType.FOX: "land", CardType.RABBIT: "land",
                CardType.WOLF: "land", CardType.STREAM: "water", CardType.TROUT: "water",
                CardType.DRAGONFLY: "water", CardType.BEE: "air", CardType.EAGLE: "air", CardType.MEADOW: "air"}
RULE_TEXT = "Scores for each neighbour\nof the kind it feeds on;\nsee the rulebook."
BOLD, REGULAR = fonts_dir() / "DejaVuSans-Bold.ttf", fonts_dir() / "DejaVuSans.ttf"


def fetch(dest: Path) -> Path:
    """Download scikit-image's wheel (no install) and keep the sample photos ``ART`` names."""
    dest.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", tmp, WHEEL], check=True)
        (wheel,) = Path(tmp).glob("scikit_image-*.whl")
        with zipfile.ZipFile(wheel) as zf:
            for name, *_ in ART.values():
                (dest / name).write_bytes(zf.read(f"skimage/data/{name}"))
    lines = [f"{card.value}: {name} ({licence}), from the {WHEEL} wheel's skimage/data"
             for card, (name, licence, *_) in ART.items()]
    (dest / "SOURCES.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return dest


def _art(src: Path, card: CardType, w: int, h: int) -> np.ndarray:
    """The type's picture cut to ``w`` x ``h`` (BGR), covering, tinted if grey."""
    name, _, (x0, y0, x1, y1), tint = ART[card]
    img = cv2.imread(str(src / name), cv2.IMREAD_COLOR)
    ih, iw = img.shape[:2]
    img = img[int(y0 * ih):int(y1 * ih), int(x0 * iw):int(x1 * iw)]
    ih, iw = img.shape[:2]
    s = max(w / iw, h / ih)  # cover, then cut the middle
    img = cv2.resize(img, (max(w, round(iw * s)), max(h, round(ih * s))), interpolation=cv2.INTER_AREA)
    oy, ox = (img.shape[0] - h) // 2, (img.shape[1] - w) // 2
    img = img[oy:oy + h, ox:ox + w]
    if tint is not None:
        grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).astype(np.float32)[..., None] / 255.0
        img = np.clip(grey * np.array(tint[::-1], np.float32) * 1.3, 0, 255).astype(np.uint8)
    return img


def _printed_face(src: Path, card: CardType) -> np.ndarray:
    face = Image.new("RGB", (W, H), (232, 226, 208))
    draw = ImageDraw.Draw(face)
    draw.rectangle([0, 0, W - 1, H - 1], outline=(40, 36, 30), width=8)
    banner = HABITAT[TYPE_HABITAT[card]]
    draw.rectangle([14, 14, W - 15, 78], fill=banner)
    draw.text((W / 2, 46), card.value.upper(), font=ImageFont.truetype(str(BOLD), 34), fill=(250, 246, 236), anchor="mm")
    art = _art(src, card, W - 40, 270)
    face.paste(Image.fromarray(cv2.cvtColor(art, cv2.COLOR_BGR2RGB)), (20, 88))
    draw.rectangle([20, 88, W - 21, 88 + 269], outline=(40, 36, 30), width=3)
    draw.multiline_text((28, 372), RULE_TEXT, font=ImageFont.truetype(str(REGULAR), 22), fill=(50, 44, 36), spacing=6)
    return cv2.cvtColor(np.asarray(face), cv2.COLOR_RGB2BGR)


def _fullart_face(src: Path, card: CardType) -> np.ndarray:
    face = Image.fromarray(cv2.cvtColor(_art(src, card, W, H), cv2.COLOR_BGR2RGB))
    plate = Image.new("RGBA", (W, 70), (20, 20, 24, 170))
    face.paste(plate, (0, H - 90), plate)
    draw = ImageDraw.Draw(face)
    draw.text((W / 2, H - 55), card.value.capitalize(), font=ImageFont.truetype(str(BOLD), 36),
              fill=(245, 240, 230), anchor="mm")
    draw.rectangle([0, 0, W - 1, H - 1], outline=(245, 245, 240), width=10)
    return cv2.cvtColor(np.asarray(face), cv2.COLOR_RGB2BGR)


DESIGNS = {"printed": _printed_face, "fullart": _fullart_face}


def photo_art_deck(design: str, src: Path | None = None) -> Deck:
    src = src or data_dir() / "photo-art"
    missing = [name for name, *_ in ART.values() if not (src / name).is_file()]
    if missing:
        raise FileNotFoundError(f"{src} lacks {', '.join(missing)}: run `python bench/photo_art_decks.py fetch`")
    faces = {card: [DESIGNS[design](src, card)] for card in CardType}
    return Deck(f"photo-{design}", CARD_MM, f"bench/photo_art_decks.py {design} ({WHEEL} sample photos)", faces,
                Path("."))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["fetch", "write"])
    parser.add_argument("--dir", type=Path, default=data_dir() / "photo-art")
    args = parser.parse_args()
    if args.what == "fetch":
        print(fetch(args.dir))
    else:
        for design in DESIGNS:
            print(write_deck(photo_art_deck(design, args.dir), args.dir / "decks" / design))


if __name__ == "__main__":
    main()
