"""Which cells are read at their other quarter turns (``naming.name_cells``), as a namer sets it."""
import numpy as np


class _Namer:
    """Fake namer: the belief in type 0 of each crop is its top-left pixel / 255, the rest on type
    1; a crop turned a quarter reads the same. Counts the crops it is shown."""

    def __init__(self, **levels):
        self.__dict__.update(levels)
        self.shown = 0

    def __call__(self, crops):
        self.shown += len(crops)
        p = np.array([[c[0, 0, 0] / 255, 1 - c[0, 0, 0] / 255] for c in crops], np.float32)
        return p.reshape(len(crops), 2)


def test_a_namer_sets_which_cells_are_read_at_their_other_turns():
    from ecoscore.vision.naming import SURE_AT_ONCE, name_cells

    beliefs = [255, 253, 240, 200, 100]  # 1.0, 0.992, 0.94, 0.78, 0.39 (the last: type 1 at 0.61)
    crops = [np.full((8, 8, 3), b, np.uint8) for b in beliefs]
    plain = _Namer()
    name_cells(plain, crops)
    assert SURE_AT_ONCE > 253 / 255 and plain.shown == 5 + 3 * 4  # every cell not sure at 0.999
    matcher_like = _Namer(sure_at_once=0.99)
    named = name_cells(matcher_like, crops)
    assert matcher_like.shown == 5 + 3 * 3  # 0.992 is sure at once for it
    assert [n.chosen for n in named] == [0, 0, 0, 0, 1]
    assert np.allclose([n.confidence for n in named], [1.0, 253 / 255, 240 / 255, 200 / 255, 155 / 255], atol=1e-6)
