"""Straighten one lattice cell into the classifier's square input (``warp_quad``, now in
``ecoscore.geometry``, the bottom layer, re-exported here for code that imports it from here),
and the colour normalisation a classifier trained on normalised crops reads them with."""
from __future__ import annotations

import numpy as np

from ecoscore.geometry import CROP_SIZE, warp_quad

__all__ = ["CROP_SIZE", "colour_normalised", "warp_quad"]

SPREAD = 48.0  # each channel's standard deviation after normalisation (grey levels)
MAX_GAIN = 2.5  # a near-flat channel (an empty cell's cloth, a blank card) is raised at most so much


def colour_normalised(crop: np.ndarray) -> np.ndarray:
    """Each colour channel of ``crop`` moved to mean 128 and spread ``SPREAD``: a lamp's cast and
    the exposure are a per-channel gain and offset, which this takes out, so a classifier trained
    on such crops names the card from its pattern, not its light (as the matcher's colour
    pattern does). Same shape, uint8."""
    pixels = crop.reshape(-1, crop.shape[-1]).astype(np.float32)
    mean, std = pixels.mean(0), pixels.std(0)
    gain = SPREAD / np.maximum(std, SPREAD / MAX_GAIN)
    out = (crop.astype(np.float32) - mean) * gain + 128.0
    return np.clip(np.rint(out), 0, 255).astype(np.uint8)
