"""Straighten one lattice cell into the classifier's square input: now in ``ecoscore.geometry``
(the bottom layer), re-exported here for code that imports it from its old place."""
from ecoscore.geometry import CROP_SIZE, warp_quad

__all__ = ["CROP_SIZE", "warp_quad"]
