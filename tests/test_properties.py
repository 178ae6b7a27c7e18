"""Property tests: symmetries, majorities, sheet totals, deck counts."""
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from ecoscore.scoring import DECK_COUNTS, SCORE_PAD_ORDER, CardType, Tableau, score_game, score_tableau
from ecoscore.scoring.majority import STREAM_AWARDS, WOLF_AWARDS, awards

cells = st.lists(st.one_of(st.none(), st.sampled_from(list(CardType))), min_size=20, max_size=20)
tableaux = cells.map(Tableau)


def totals(t: Tableau):
    p = score_tableau(t)
    return p.sheet, p.biodiversity, p.total


@given(tableaux)
def test_score_invariant_under_rotation_mirror_and_transpose(t):
    expected = totals(t)
    assert totals(t.rotated_180()) == expected
    assert totals(t.mirrored()) == expected
    assert totals(Tableau.from_rows(t.transposed())) == expected  # a sideways (5 × 4) reading


@given(tableaux)
def test_transpose_reading_round_trips(t):
    assert Tableau.from_rows(t.transposed()) == t


@given(tableaux)
def test_total_is_the_sum_of_the_sheet(t):
    p = score_tableau(t)
    assert p.total == sum(p.sheet[c] for c in SCORE_PAD_ORDER) + p.biodiversity
    assert set(p.sheet) == set(CardType)
    assert len(p.gaps) == sum(1 for v in p.sheet.values() if v == 0)


@given(st.lists(st.integers(0, 20), min_size=1, max_size=8))
def test_majorities_never_give_more_places_than_exist(values):
    for prizes in (STREAM_AWARDS, WOLF_AWARDS):
        result = awards(values, prizes)
        scoring = [pts for _, pts in result if pts]
        qualifying = [v for v in values if v > 0]
        # every prize handed out belongs to a place that exists, and ties share it
        assert all(pts in prizes for pts in scoring)
        distinct_places = {place for place, pts in result if pts}
        assert len(distinct_places) <= min(len(prizes), len(qualifying))
        if qualifying:
            top = max(qualifying)
            assert all(pts == prizes[0] for (place, pts), v in zip(result, values) if v == top)
        assert all(pts == 0 for (_, pts), v in zip(result, values) if v == 0)


@settings(max_examples=50)
@given(st.lists(tableaux, min_size=1, max_size=4))
def test_deck_count_validation_matches_counts(ts):
    result = score_game([(f"p{k}", t) for k, t in enumerate(ts)])
    game_counts = Counter()
    for k, t in enumerate(ts):
        game_counts.update(t.counts())
        flagged = {i.type for i in result.deck_issues if i.player == f"p{k}"}
        assert flagged == {c for c, n in t.counts().items() if n > DECK_COUNTS[c]}
    game_flags = {i.type for i in result.deck_issues if i.player is None}
    expected = {c for c, n in game_counts.items() if n > DECK_COUNTS[c]} if len(ts) > 1 else set()
    assert game_flags == expected
