"""A box in line with a grid, just outside its 5 × 4, is said "left out" only where it holds a
card (vision/naming.py's ``_no_card_left_out``): a striped cloth under a steep tableau's last row
was boxed four times, and a newcomer's batch sent the player looking for four cards that were
not there."""
from pathlib import Path

import numpy as np
from conftest import needs_models
from PIL import Image

from ecoscore.geometry import Detections
from ecoscore.vision.lattice import TableauFit

REPO = Path(__file__).resolve().parents[1]
W, H = 160, 224  # a card's box, px


def a_card_and_the_cloth() -> tuple[np.ndarray, Detections]:
    """A photo of a stand-in card on the left and the bare cloth (magenta and blue stripes, as the
    newcomer's photo had it) on the right, and a card-sized box on each."""
    image = np.zeros((400, 600, 3), np.uint8)
    stripes = (np.arange(600) // 6) % 2 == 0
    image[:, stripes] = (150, 40, 200)  # BGR: magenta
    image[:, ~stripes] = (190, 80, 60)  # blue
    face = sorted((REPO / "datasets" / "decks" / "standin" / "fox").iterdir())[0]
    card = np.asarray(Image.open(face).convert("RGB").resize((W, H)))[..., ::-1]
    image[88:88 + H, 70:70 + W] = card
    centres = np.array([[70 + W / 2, 88 + H / 2], [420, 200]], float)
    return image, Detections(centres, np.tile([H, W], (2, 1)).astype(float), np.full(2, np.pi / 2), np.full(2, 0.8))


@needs_models
def test_a_box_beside_the_grid_on_the_cloth_is_no_card_left_out_and_a_card_is():
    from ecoscore.vision.models import CardClassifier
    from ecoscore.vision.naming import MIN_CONFIDENCE, table_beside

    image, det = a_card_and_the_cloth()
    fit = TableauFit(cells={}, residual=0.0, ambiguous_window=False, off_grid=[0, 1])
    assert table_beside(image, det, [fit], CardClassifier(), MIN_CONFIDENCE) == {1}
    assert fit.off_grid == [0]


@needs_models
def test_a_decks_matcher_takes_a_box_for_the_table_only_where_it_looks_like_the_table(monkeypatch):
    # A matcher names some real cards empty (vision/empty_cells.py): a box it names empty is the
    # table only where it looks like the table seen round the grid; where none is seen, a card.
    import cv2

    from ecoscore.scoring import CardType
    from ecoscore.vision import empty_cells
    from ecoscore.vision.matcher import CardEmbedder, CardMatcher, References
    from ecoscore.vision.naming import MIN_CONFIDENCE, table_beside

    embedder = CardEmbedder()
    faces = {card: [cv2.imread(str(sorted((REPO / "datasets" / "decks" / "standin" / card.value).iterdir())[0]))]
             for card in CardType}
    matcher = CardMatcher(embedder, References.embed("standin", embedder, faces))
    image, det = a_card_and_the_cloth()
    cloth = [np.array([[x, 30], [x + W, 30], [x + W, 30 + H], [x, 30 + H]], float) for x in (250, 330, 420)]
    for seen, said in (([], [0, 1]), (cloth, [0])):
        monkeypatch.setattr(empty_cells, "table_cells", lambda fit, image, centres: seen)
        fit = TableauFit(cells={}, residual=0.0, ambiguous_window=False, off_grid=[0, 1])
        assert table_beside(image, det, [fit], matcher, MIN_CONFIDENCE) == set(range(2)) - set(said)
        assert fit.off_grid == said


def test_an_edge_the_finder_found_no_card_on_is_said_as_the_read_leaves_it():
    # "a whole edge row or column is empty" was said beside four cards the read names along it
    # (the finder found none there: a dark, blurred column; a newcomer's batch).
    from ecoscore.scoring import COLS, ROWS, CardType
    from ecoscore.vision.naming import EDGE_EMPTY, EDGE_UNFOUND, tableau_doubts
    from ecoscore.vision.reads import CellRead

    def doubts(empty: set[tuple[int, int]]) -> list[str]:
        cells = [CellRead(r, c, None if (r, c) in empty else CardType.FOX, 0.99, "bear", 0.01, c < COLS - 1,
                          np.zeros((4, 2))) for r in range(ROWS) for c in range(COLS)]
        return tableau_doubts(cells, TableauFit(cells={}, residual=0.0, ambiguous_window=True))

    assert EDGE_UNFOUND in doubts(set()) and EDGE_EMPTY not in doubts(set())
    last_column = {(r, COLS - 1) for r in range(ROWS)}
    assert EDGE_EMPTY in doubts(last_column) and EDGE_UNFOUND not in doubts(last_column)
