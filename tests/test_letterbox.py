"""The finder's input canvas: as little grey padding as a few fixed shapes allow."""
import numpy as np
import pytest

from ecoscore.vision.models import canvas, letterbox


@pytest.mark.parametrize("h, w, expected", [
    (3000, 4000, (384, 512)),  # a 4:3 phone photo: 3/4 of the square's pixels
    (4000, 3000, (512, 384)),  # held upright
    (2250, 4000, (288, 512)),  # 16:9
    (4000, 4000, (512, 512)),
    (1000, 1300, (512, 512)),  # wider than 4:3 would need: the next canvas up
    (100, 1000, (288, 512)),   # a sliver: never narrower than 16:9
])
def test_canvas_is_the_smallest_fixed_shape_that_holds_the_photo(h, w, expected):
    assert canvas(h, w, 512, rect=True) == expected
    assert canvas(h, w, 512, rect=False) == (512, 512)


def test_letterbox_centres_the_photo_on_its_canvas():
    image = np.full((3000, 4000, 3), 200, np.uint8)
    boxed, k, (left, top) = letterbox(image, 512, rect=True)
    assert boxed.shape == (384, 512, 3)
    assert k == pytest.approx(512 / 4000)
    assert (left, top) == (0, 0)  # 4000 × 3000 at 0.128 is exactly 512 × 384
    upright, _, (left, top) = letterbox(np.full((4000, 2800, 3), 200, np.uint8), 512, rect=True)
    assert upright.shape == (512, 384, 3) and top == 0 and left == round((384 - 358) / 2 - 0.1)
    assert (upright[:, :left] == 114).all() and (upright[:, left:left + 358] == 200).all()


@pytest.mark.slow
def test_warm_up_compiles_the_finder_for_every_canvas():
    from conftest import MODELS

    from ecoscore.vision.models import CardFinder

    if not (MODELS / "finder.onnx").is_file():
        pytest.skip("the shipped models are not in models/")
    finder = CardFinder()
    finder.warm_up()
    first_look = {(3, 512, 512), (3, 384, 512), (3, 512, 384), (3, 288, 512), (3, 512, 288)}
    assert finder.network.shapes_met == finder.network.compiled_shapes == first_look
    finder.warm_up((640,))  # a closer look's canvases: run on the one model compiled open
    assert {(3, 640, 640), (3, 480, 640), (3, 640, 480), (3, 384, 640), (3, 640, 384)} < finder.network.shapes_met
    assert finder.network.compiled_shapes == first_look
