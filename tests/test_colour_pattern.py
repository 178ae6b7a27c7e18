"""The matcher's second vote, the colour pattern: what it is blind to, what it sees, and that it
only ever moves belief between a deck's types. No model needed."""
from types import SimpleNamespace

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ecoscore.datasets.deckgen import HELD_OUT_SEEDS, generate_deck
from ecoscore.scoring import CardType
from ecoscore.vision.matcher import TYPES, CardMatcher, References, colour_patterns


def _faces():
    import cv2

    deck = generate_deck(HELD_OUT_SEEDS[70])
    return [cv2.resize(deck.faces[card][0], (64, 64), interpolation=cv2.INTER_AREA) for card in CardType]


def test_a_lamps_colour_cast_and_exposure_leave_the_pattern_as_it_was():
    faces = _faces()
    lit = [np.clip(f.astype(np.float32) * [0.55, 0.8, 0.95] + 10, 0, 255).astype(np.uint8) for f in faces]  # warm, dim, nothing burnt out
    plain, cast = colour_patterns(faces), colour_patterns(lit)
    same = (plain * cast).sum(1)
    assert same.min() > 0.97
    # ... while another type's art correlates less than each face under the lamp does.
    others = plain @ cast.T
    np.fill_diagonal(others, -1)
    assert (others.max(1) < same).all()


def test_crops_patterned_together_are_patterned_as_one_by_one():
    # Stacked for speed: the blur must not reach from one crop into the next.
    faces = _faces()
    together = colour_patterns(faces)
    alone = np.concatenate([colour_patterns([f]) for f in faces])
    np.testing.assert_allclose(together, alone, atol=1e-4)
    assert colour_patterns([]).shape[0] == 0


def _matcher(rng):
    dim, refs = 8, 3 * len(TYPES)
    unit = lambda a: a / np.linalg.norm(a, axis=1, keepdims=True)  # noqa: E731
    embedder = SimpleNamespace(empty=unit(rng.normal(size=(1, dim)))[0].astype(np.float32), not_ours=0.45,
                               imgsz=64, scale=20.0)
    types = np.arange(refs) % len(TYPES)
    references = References("test", unit(rng.normal(size=(refs, dim))).astype(np.float32), types,
                            unit(rng.normal(size=(refs, 12))).astype(np.float32), types)
    return CardMatcher(embedder, references), unit


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_the_pattern_moves_belief_between_types_never_out_of_empty_or_not_ours(seed):
    rng = np.random.default_rng(seed)
    matcher, unit = _matcher(rng)
    vectors = unit(rng.normal(size=(5, 8))).astype(np.float32)
    patterns = unit(rng.normal(size=(5, 12))).astype(np.float32)
    alone, both = matcher.similarities(vectors), matcher.similarities(vectors, patterns)
    n = len(TYPES)
    np.testing.assert_allclose(both[:, n:], alone[:, n:])  # empty and not ours: as the embedding has them
    np.testing.assert_allclose(both[:, :n].max(1), alone[:, :n].max(1), atol=1e-6)  # the best type's belief too
    # The fused ranking is the embedding's plus the pattern's vote.
    corr = np.stack([(patterns @ matcher.references.patterns[matcher.references.types == i].T).max(1)
                     for i in range(n)], 1)
    assert (both[:, :n].argmax(1) == (alone[:, :n] + corr).argmax(1)).all()
