"""The overlay drawn on a read, without the models: a hand-made read of one tableau."""
import cv2
import numpy as np

from ecoscore.scoring import CardType, Tableau, score_tableau
from ecoscore.vision.decode import Photo
from ecoscore.vision.overlay import DOUBT, MAX_SIDE, OK, cell_points, draw_overlay, overlay_jpeg
from ecoscore.vision.reads import CellRead, PhotoRead, TableauRead


def _read(size=(2000, 1500), doubtful=(0, 0)):
    w, h = size
    image = np.full((h // 2, w // 2, 3), 90, np.uint8)  # decoded at half size
    cells = []
    for r in range(4):
        for c in range(5):
            x0, y0 = 200 + 300 * c, 150 + 320 * r
            quad = np.float64([[x0, y0], [x0 + 260, y0], [x0 + 260, y0 + 300], [x0, y0 + 300]])
            card = list(CardType)[(r * 5 + c) % 11]
            doubts = ["low confidence: test"] if (r, c) == doubtful else []
            cells.append(CellRead(r, c, card, 0.99, "bear", 0.01, True, quad, doubts))
    tab = TableauRead(cells, [f"row {doubtful[0] + 1}, col {doubtful[1] + 1}: low confidence: test"])
    photo = Photo(image=image, scale=0.5, original_size=size, data=b"")
    return PhotoRead([tab], [], size, {}, photo, "standin"), tab


def test_overlay_is_the_photo_scaled_with_each_cell_drawn_in_its_colour():
    read, tab = _read()
    player = score_tableau(Tableau([c.type for c in tab.cells]))
    img = draw_overlay(read, [player])
    assert img.shape == (750, 1000, 3)  # the decoded photo, under MAX_SIDE, not the original
    assert max(img.shape[:2]) <= MAX_SIDE
    k = img.shape[1] / read.size[0]
    def edge_pixel(cell):  # the middle of a cell's top edge, in overlay pixels
        q = cell.quad * k
        return img[int(round(q[0, 1])), int(round((q[0, 0] + q[1, 0]) / 2))]
    def near(pixel, colour):  # lines are anti-aliased
        return np.abs(pixel.astype(int) - colour).max() <= 30
    assert near(edge_pixel(tab.cells[0]), DOUBT) and not near(edge_pixel(tab.cells[0]), OK)  # the doubtful cell
    assert near(edge_pixel(tab.cells[7]), OK)
    assert np.array_equal(read.photo.image[5:50, 5:50], img[5:50, 5:50])  # outside the grid: the photo as it was


def test_cell_points_label_cards_and_groups_once():
    read, tab = _read()
    player = score_tableau(Tableau([c.type for c in tab.cells]))
    labels = cell_points(player)
    assert set(labels) <= set(range(20))
    assert all(v.lstrip("Σ").lstrip("-").isdigit() for v in labels.values())


def test_overlay_jpeg_decodes_and_a_big_photo_is_shrunk():
    read, tab = _read(size=(6000, 4000))
    data = overlay_jpeg(read, [None])
    img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    assert img is not None and max(img.shape[:2]) == MAX_SIDE
