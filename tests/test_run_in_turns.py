"""A batch of crops runs in turns of at most MAX_BATCH, each padded to a multiple of 8, and comes
back a row per crop in its order (the memory of a batch size met stays with the network)."""
import numpy as np

from ecoscore.vision.runtime import MAX_BATCH, run_in_turns


class Recording:
    """A network that answers each image's mean value and records the batch sizes it ran."""

    def __init__(self):
        self.sizes: list[int] = []

    def __call__(self, blob: np.ndarray) -> np.ndarray:
        self.sizes.append(len(blob))
        return blob.reshape(len(blob), -1).mean(1, keepdims=True)


def test_a_big_batch_runs_in_turns_and_keeps_its_order():
    crops = [np.full((8, 8, 3), k, np.uint8) for k in range(2 * MAX_BATCH + 6)]
    network = Recording()
    out = run_in_turns(network, crops)
    assert network.sizes == [MAX_BATCH, MAX_BATCH, 8]
    assert np.allclose(out[:, 0] * 255, np.arange(len(crops)))


def test_a_small_batch_is_padded_to_eight_once():
    network = Recording()
    assert run_in_turns(network, [np.zeros((8, 8, 3), np.uint8)] * 3).shape == (3, 1)
    assert network.sizes == [8]
