"""A tableau of cards laid edge to edge, read on its outline (vision/outline_grid.py)."""
from __future__ import annotations

import cv2
import numpy as np
import pytest
from conftest import needs_models

from ecoscore.geometry import Detections
from ecoscore.vision.lattice import COLS, ROWS, CellFit, TableauFit
from ecoscore.vision.outline_grid import card_region, fit_on_outline
from ecoscore.vision.second_look import from_quads

CARD_W, CARD_H = 90, 126  # a card's sides on the flat table, pixels (63 x 88 mm)


def _mosaic_card(rng: np.random.Generator) -> np.ndarray:
    """A card of hard-edged patches with a thin frame: a finder boxes its patches as cards."""
    card = np.zeros((CARD_H, CARD_W, 3), np.uint8)
    points = rng.uniform([0, 0], [CARD_W, CARD_H], (14, 2)).astype(np.float32)
    sub = cv2.Subdiv2D((0, 0, CARD_W, CARD_H))
    for p in points:
        sub.insert((float(min(p[0], CARD_W - 1)), float(min(p[1], CARD_H - 1))))
    facets, _ = sub.getVoronoiFacetList([])
    hue = rng.uniform(0, 180)
    for facet in facets:
        colour = cv2.cvtColor(np.uint8([[[(hue + rng.uniform(-20, 20)) % 180, rng.uniform(120, 255), rng.uniform(90, 255)]]]),
                              cv2.COLOR_HSV2BGR)[0, 0]
        cv2.fillConvexPoly(card, facet.astype(np.int32), tuple(int(v) for v in colour))
        cv2.polylines(card, [facet.astype(np.int32)], True, (30, 30, 30), 1)
    cv2.rectangle(card, (0, 0), (CARD_W - 1, CARD_H - 1), (160, 60, 160), 2)
    return card


def _photo(seed: int, gap: int, turned: bool, rows: int = ROWS, cols: int = COLS) -> tuple[np.ndarray, np.ndarray]:
    """A tableau of mosaic cards (``gap`` pixels apart; 5 x 4 unless ``rows`` and ``cols`` say
    otherwise) on a plain blue cloth seen at a slant, ``turned`` a quarter (its rows running down
    the photo); and each cell's corners in the photo, (rows, cols, 4, 2)."""
    rng = np.random.default_rng(seed)
    margin = 200
    flat_w, flat_h = cols * CARD_W + (cols - 1) * gap, rows * CARD_H + (rows - 1) * gap
    flat = _cloth(flat_h + 2 * margin, flat_w + 2 * margin, rng)
    corners = np.zeros((rows, cols, 4, 2))
    for r in range(rows):
        for c in range(cols):
            x, y = margin + c * (CARD_W + gap), margin + r * (CARD_H + gap)
            flat[y:y + CARD_H, x:x + CARD_W] = _mosaic_card(rng)
            corners[r, c] = [[x, y], [x + CARD_W, y], [x + CARD_W, y + CARD_H], [x, y + CARD_H]]
    if turned:
        flat = cv2.rotate(flat, cv2.ROTATE_90_CLOCKWISE)
        h0 = flat.shape[1]  # the height before turning
        corners = np.stack([h0 - corners[..., 1], corners[..., 0]], -1)
    photo, H = _slanted(flat)
    return photo, cv2.perspectiveTransform(corners.reshape(-1, 1, 2), H).reshape(rows, cols, 4, 2)


def _cloth(h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    """A plain blue cloth with a little noise."""
    return cv2.add(np.full((h, w, 3), (120, 70, 20), np.uint8), rng.integers(0, 12, (h, w, 3), dtype=np.uint8))


def _slanted(flat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``flat`` seen at a slant, the far side narrower, as a phone held at about 50 degrees sees
    it; and the homography that made it."""
    h, w = flat.shape[:2]
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    dst = np.float32([[0.12 * w, 0.05 * h], [0.9 * w, 0], [w, 0.85 * h], [0, h * 0.8]])
    H = cv2.getPerspectiveTransform(src, dst)
    return cv2.warpPerspective(flat, H, (w, h), borderMode=cv2.BORDER_REPLICATE), H


def _fit_off(cells: np.ndarray, cards_across: float = 0.5) -> TableauFit:
    """A 5 x 4 lattice as a finder misled by the patches leaves it: ``cards_across`` a card off
    along the rows and half a card down, stepping as the cards do from the first (beyond them
    where they are fewer)."""
    across, down = cells[0, 1] - cells[0, 0], cells[1, 0] - cells[0, 0]
    shift = cards_across * across[0] + 0.5 * down[0]
    return TableauFit({(r, c): CellFit(cells[0, 0] + c * across + r * down + shift, None, True)
                       for r in range(ROWS) for c in range(COLS)}, residual=0.1, ambiguous_window=False)


def _quads(fit: TableauFit) -> np.ndarray:
    return np.array([cell.quad for cell in fit.cells.values()])


def _centres(fit: TableauFit) -> np.ndarray:
    return np.array([[fit.cells[(r, c)].quad.mean(0) for c in range(COLS)] for r in range(ROWS)])


def _turned(photo: np.ndarray, cells: np.ndarray, degrees: float) -> tuple[np.ndarray, np.ndarray]:
    """The photo turned by ``degrees`` on a canvas that holds it all, and its cells with it."""
    h, w = photo.shape[:2]
    M = cv2.getRotationMatrix2D((w / 2, h / 2), degrees, 1.0)
    corners = cv2.transform(np.float32([[[0, 0], [w, 0], [w, h], [0, h]]]), M)[0]
    lo, hi = corners.min(0), corners.max(0)
    M[:, 2] -= lo
    size = tuple(int(v) for v in np.ceil(hi - lo))
    turned = cv2.warpAffine(photo, M, size, borderMode=cv2.BORDER_REPLICATE)
    return turned, cv2.transform(cells.reshape(1, -1, 2), M)[0].reshape(cells.shape)


def _assert_on_its_cells(fits: list[TableauFit], cells: np.ndarray) -> None:
    """One fit, each truth cell with a cell of it on its centre, and rows of five kept rows of
    five (read from either end: a tableau has no up and down of its own)."""
    assert len(fits) == 1
    got, truth = _centres(fits[0]), cells.mean(2)
    pitch = np.linalg.norm(cells[0, 1, 0] - cells[0, 0, 0])
    flat_got, flat_truth = got.reshape(-1, 2), truth.reshape(-1, 2)
    nearest = np.linalg.norm(flat_truth[:, None] - flat_got[None], axis=2).min(1)
    assert nearest.max() < 0.15 * pitch, nearest.max() / pitch
    rows = [{int(np.argmin(np.linalg.norm(flat_truth - got[r, c], axis=1))) // COLS for c in range(COLS)} for r in range(ROWS)]
    assert all(len(row) == 1 for row in rows), rows


@pytest.mark.parametrize("turned", [False, True])
def test_a_tableau_laid_edge_to_edge_is_cut_from_its_outline_into_its_own_5_by_4(turned):
    photo, cells = _photo(3, gap=0, turned=turned)
    _, fits = fit_on_outline(photo, _fit_off(cells), offset=0)
    _assert_on_its_cells(fits, cells)


def test_a_lattice_far_off_its_tableau_is_cut_from_the_whole_outline():
    """A lattice three cards off along the rows: the tableau reaches beyond the region first
    judged round it, which is widened until it holds the whole patch."""
    photo, cells = _photo(8, gap=0, turned=False)
    fit = _fit_off(cells, cards_across=3.0)
    _, fits = fit_on_outline(photo, fit, offset=0)
    _assert_on_its_cells(fits, cells)


def test_a_tableau_whose_corner_grazes_the_photos_edge_keeps_its_outline():
    """Turned on the table, its corner a few pixels past the photo's edge: the outline is all but
    whole, and cut in 5 x 4 (a tableau the frame cuts through a column has none: below)."""
    photo, cells = _turned(*_photo(9, gap=0, turned=False), degrees=25)
    right = int(cells[..., 0].max()) - 3
    photo = photo[:, :right].copy()
    _, fits = fit_on_outline(photo, _fit_off(cells), offset=0)
    _assert_on_its_cells(fits, cells)


def test_a_group_of_boxes_no_lattice_holds_is_cut_from_its_outline():
    """The finder's boxes round the art's patches, which no lattice fitted: the group's patch of
    cards cut in 5 x 4 all the same (``TableauRefitter.fit_outlines``)."""
    photo, cells = _photo(10, gap=0, turned=True)
    rng = np.random.default_rng(10)
    patches = []
    for quad in cells.reshape(-1, 4, 2)[rng.choice(ROWS * COLS, 9, replace=False)]:
        centre, half = quad.mean(0), 0.3 * (quad - quad.mean(0))  # a patch a third of a card
        patches.append(centre + half + rng.normal(0, 4, 2))
    _, fits = fit_on_outline(photo, np.array(patches), offset=0)
    _assert_on_its_cells(fits, cells)


def test_cards_laid_apart_are_left_to_the_finder():
    """With the table showing between the cards, the outline is not filled with cards: no grid
    from it (the finder sees such cards' edges; an outline would lay cells across the gaps)."""
    photo, cells = _photo(4, gap=40, turned=False)
    assert card_region(photo, _quads(_fit_off(cells))) is None


@pytest.mark.parametrize("rows, cols", [(4, 4), (5, 5)])
def test_cards_laid_edge_to_edge_in_another_layout_are_not_cut_as_5_by_4(rows, cols):
    """A mid-game 4 x 4 block, or 5 x 5 cards laid edge to edge (an attack's layout): the lines
    between the cards are not a 5 x 4's, so no grid is cut from the outline (cut as 5 x 4, every
    cell would straddle two cards)."""
    photo, cells = _photo(5, gap=0, turned=False, rows=rows, cols=cols)
    assert card_region(photo, _quads(_fit_off(cells))) is not None  # the outline is found ...
    assert fit_on_outline(photo, _fit_off(cells), offset=0)[1] == []  # ... and not cut


def test_a_tableau_the_frame_cuts_has_no_outline_of_its_own():
    """Cut by the photo's edge through its fourth column, the visible cards make a quadrilateral
    filled with cards: cut in 5 x 4 it would be read wrong, so there is no outline."""
    photo, cells = _photo(6, gap=0, turned=False)
    cut = int(cells[0, 3].mean(0)[0])
    assert card_region(photo[:, :cut].copy(), _quads(_fit_off(cells))) is None


def test_a_grid_on_bare_cloth_has_no_outline():
    """A lattice lying where no card is (the table is all the region holds): no patch of cards
    under it, and none is made of the table itself."""
    photo, cells = _photo(7, gap=0, turned=False)
    away = cells + np.array([0.0, photo.shape[0] * 3.0])  # the same grid far below the cards ...
    cloth = np.vstack([photo, np.tile(photo[:50], (80, 1, 1))])  # ... on cloth
    cloth[photo.shape[0]:] = photo[5, 5]
    assert card_region(cloth, _quads(_fit_off(away))) is None


TABLEAU = [(r, c) for r in range(ROWS) for c in range(COLS)]  # a 5 x 4's (row, col)


def _scene(seed: int, positions, margin: int = 700):
    """Mosaic cards at (row, col) positions edge to edge, far from the photo's edge, at a slant."""
    rng = np.random.default_rng(seed)
    rows, cols = max(r for r, _ in positions) + 1, max(c for _, c in positions) + 1
    flat = _cloth(rows * CARD_H + 2 * margin, cols * CARD_W + 2 * margin, rng)
    corners = {}
    for r, c in positions:
        x, y = margin + c * CARD_W, margin + r * CARD_H
        flat[y:y + CARD_H, x:x + CARD_W] = _mosaic_card(rng)
        corners[r, c] = np.array([[x, y], [x + CARD_W, y], [x + CARD_W, y + CARD_H], [x, y + CARD_H]], float)
    photo, H = _slanted(flat)
    return photo, {k: cv2.perspectiveTransform(v.reshape(-1, 1, 2), H).reshape(4, 2) for k, v in corners.items()}


def _lattice_on_a(corners, shift=(0.5, 0.5)) -> TableauFit:
    a, across, down = corners[0, 0], corners[0, 1] - corners[0, 0], corners[1, 0] - corners[0, 0]
    sh = shift[0] * across[0] + shift[1] * down[0]
    return TableauFit({(r, c): CellFit(a + c * across + r * down + sh, None, True) for r, c in TABLEAU},
                      residual=0.1, ambiguous_window=False)


def _patches(corners, positions, rng, n):
    keys = [positions[i] for i in rng.choice(len(positions), n, replace=False)]
    return np.array([corners[k].mean(0) + 0.3 * (corners[k] - corners[k].mean(0)) + rng.normal(0, 4, 2) for k in keys])


@pytest.mark.parametrize("seed", [1, 2])
def test_a_neighbours_tableau_laid_touching_is_not_taken_into_the_widened_outline(seed):
    """A's lattice half a card off; B, 5 x 4 the other way, laid touching A's right side: B ends
    within the widened reach, and A + B must not be cut as one 5 x 4."""
    pos = TABLEAU + [(r, c) for r in range(5) for c in range(5, 9)]
    photo, corners = _scene(seed, pos)
    assert fit_on_outline(photo, _lattice_on_a(corners), offset=0)[1] == []


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_two_tableaux_laid_touching_as_one_loose_group_are_not_cut_as_one(seed):
    """Both tableaux busy-art, both loose: one group over both; their 8 x 5 outline cut in 5 x 4
    would make each cell two cards."""
    pos = TABLEAU + [(r, c) for r in range(4, 8) for c in range(COLS)]
    photo, corners = _scene(seed, pos)
    boxes = _patches(corners, pos, np.random.default_rng(seed), 15)
    assert fit_on_outline(photo, boxes, offset=0)[1] == []


@pytest.mark.parametrize("seed", range(6))
def test_a_plain_mat_under_loose_boxes_is_no_tableau(seed):
    """A plain placemat with boxes on it: a quadrilateral of not-table, no lines of cards."""
    rng = np.random.default_rng(seed)
    img = _cloth(1400, 1600, rng)
    x0, y0, w, h = 500, 400, 490, 544
    img[y0:y0 + h, x0:x0 + w] = (40, 40, 40) if seed % 2 else (200, 210, 220)
    centres = rng.uniform([x0 + 60, y0 + 60], [x0 + w - 60, y0 + h - 60], (6, 2))
    boxes = np.array([[[x - 40, y - 55], [x + 40, y - 55], [x + 40, y + 55], [x - 40, y + 55]] for x, y in centres])
    assert fit_on_outline(img, boxes, offset=0)[1] == []


def test_a_corner_cut_deeper_than_a_graze_has_no_outline():
    """The grazing corner's test, its corner cut off well into the corner card: no outline."""
    photo, cells = _turned(*_photo(9, gap=0, turned=False), degrees=25)
    pitch = np.linalg.norm(cells[0, 0, 1] - cells[0, 0, 0])
    right = int(cells[..., 0].max() - 0.45 * pitch)
    assert card_region(photo[:, :right].copy(), _quads(_fit_off(cells))) is None


def test_a_loose_groups_fit_indexes_its_cards_after_the_photos():
    """As ``TableauRefitter.fit_outlines`` calls it: the group's boxes are the photo's first cards, the
    fit's detections index the cards it returns from ``len(det)`` on."""
    photo, cells = _photo(10, gap=0, turned=True)
    rng = np.random.default_rng(10)
    det = from_quads(np.array([q.mean(0) + 0.3 * (q - q.mean(0))
                               for q in cells.reshape(-1, 4, 2)[rng.choice(ROWS * COLS, 9, replace=False)]]),
                     np.full(9, 0.5))
    found, fits = fit_on_outline(photo, det.quads, len(det))
    assert len(fits) == 1
    both = Detections.concat([det, found])
    for cell in fits[0].cells.values():
        if cell.detection is not None:
            assert len(det) <= cell.detection < len(both)
            assert np.allclose(both.quads[cell.detection].mean(0), cell.quad.mean(0), atol=3)


@needs_models
def test_a_mosaic_decks_tableau_edge_to_edge_is_read_on_its_outline(tmp_path):
    """A photo of a deck of mosaic art (bench/other_decks.py), three tableaux, one laid edge to
    edge: the finder boxed its patches, the lattice half a card off, every cell in doubt. Read on
    its outline, it reads whole and exact (a tuning photo of 2026-12-03)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    from other_decks import mosaic_deck  # the bench's decks of other styles, in one place

    from ecoscore.datasets.deck import load_deck
    from ecoscore.datasets.deckgen import write_deck
    from ecoscore.datasets.scene import SceneParams, render_scene
    from ecoscore.vision.evaluate import match_read
    from ecoscore.vision.matcher import CardEmbedder, CardMatcher, References
    from ecoscore.vision.pipeline import Reader

    deck = load_deck(write_deck(mosaic_deck(5), tmp_path / "mosaic-5"))
    scene = render_scene(deck, (9150, 8), SceneParams(long_side=1600))
    embedder = CardEmbedder()
    matcher = CardMatcher(embedder, References.embed(deck.name, embedder, {c: [f[0]] for c, f in deck.faces.items()}))
    truth = scene.truth["tableaux"][1]

    def exact(reader: Reader) -> bool:
        for tab in reader.read(scene.jpeg).tableaux:
            mapping = match_read(tab, truth)
            if mapping is not None:
                types = {(c["row"], c["col"]): c["type"] for c in truth["cells"]}
                return all((cell.type.value if cell.type else None) == types[mapping[i]] for i, cell in enumerate(tab.cells))
        return False

    finder = Reader().finder
    assert exact(Reader(finder, matcher))
    assert not exact(Reader(finder, matcher, outline_look=False))  # what the outline buys
