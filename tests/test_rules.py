"""Hand-checked grids for every card type and every edge case of the game's rules (see README, "Rules")."""
from helpers import grid, points

from ecoscore.scoring import CardType as T
from ecoscore.scoring import score_tableau


def test_bee_with_meadows_left_and_below_scores_6():
    assert points(
        """
        .  .  .  .  .
        MD BE .  .  .
        .  MD .  .  .
        .  .  .  .  .
        """,
        T.BEE,
    ) == 6


def test_bee_with_one_meadow_and_a_diagonal_one_scores_3():
    assert points(
        """
        MD .  .  .  .
        .  BE MD .  .
        .  .  .  .  .
        .  .  .  .  .
        """,
        T.BEE,
    ) == 3


def test_bear_counts_adjacent_bees_and_trout_not_diagonal():
    # bear at row 2 col 2: bee left, trout right, bee above = 3 × 2; the diagonal trout adds nothing
    assert points(
        """
        .  BE TR .  .
        BE BR TR .  .
        .  .  .  .  .
        .  .  .  .  .
        """,
        T.BEAR,
    ) == 6


def test_trout_counts_adjacent_streams_and_dragonflies():
    assert points(
        """
        ST .  .  .  .
        TR DF .  .  .
        .  ST .  .  .
        .  .  .  .  .
        """,
        T.TROUT,
    ) == 4  # stream above, dragonfly right; the stream at row 3 col 2 is diagonal


def test_fox_needs_no_adjacent_wolf_and_no_adjacent_bear():
    assert points("FX . . . .\n. WF . . .\n. . . . .\n. . . . .", T.FOX) == 3  # wolf only diagonal
    assert points("FX WF . . .\n. . . . .\n. . . . .\n. . . . .", T.FOX) == 0
    assert points("FX . . . .\nBR . . . .\n. . . . .\n. . . . .", T.FOX) == 0
    # two foxes, one spoiled by a bear
    assert points("FX . . . FX\n. . . . BR\n. . . . .\n. . . . .", T.FOX) == 3


def test_eagle_adjacent_rabbit_rabbit_two_above_diagonal_trout_scores_6():
    assert points(
        """
        .  RB .  .  .
        .  .  TR .  .
        .  EG RB .  .
        .  .  .  .  .
        """,
        T.EAGLE,
    ) == 6


def test_eagle_reaches_manhattan_two_but_not_a_knights_move():
    # rabbits at distance 2 straight and 2 diagonal count; a knight's move (distance 3) does not
    assert points(
        """
        EG .  RB .  .
        .  RB .  .  .
        .  .  RB .  .
        .  RB .  .  .
        """,
        T.EAGLE,
    ) == 4
    assert points("EG . . . .\n. . RB . .\n. . . . .\n. . . . .", T.EAGLE) == 0  # knight's move


def test_dragonfly_with_4_group_above_and_2_group_below_scores_6():
    assert points(
        """
        ST ST ST ST .
        .  DF .  .  .
        .  ST ST .  .
        .  .  .  .  .
        """,
        T.DRAGONFLY,
    ) == 6


def test_dragonfly_touching_one_group_on_two_sides_counts_it_once():
    assert points(
        """
        ST ST ST .  .
        ST DF .  .  .
        .  .  .  .  .
        .  .  .  .  .
        """,
        T.DRAGONFLY,
    ) == 4


def test_deer_three_deer_over_3_rows_and_2_columns_score_10():
    assert points(
        """
        DR .  .  .  .
        .  .  DR .  .
        DR .  .  .  .
        .  .  .  .  .
        """,
        T.DEER,
    ) == 10


def test_deer_in_one_row_score_row_once_and_each_column():
    assert points("DR DR DR DR DR\n. . . . .\n. . . . .\n. . . . .", T.DEER) == 12
    assert points("DR . . . .\nDR . . . .\n. . . . .\n. . . . .", T.DEER) == 6
    assert points(". . . . .\n. . . . .\n. . . . .\n. . . . .", T.DEER) == 0


def test_rabbits_score_one_each_anywhere():
    assert points("RB . . . RB\n. . RB . .\n. . . . .\n. . . . .", T.RABBIT) == 3


def test_meadow_group_sizes():
    assert points("MD . . . .\n. . . . .\n. . . . .\n. . . . .", T.MEADOW) == 0
    assert points("MD MD . . .\n. . . . .\n. . . . .\n. . . . .", T.MEADOW) == 3
    assert points("MD MD MD . .\n. . . . .\n. . . . .\n. . . . .", T.MEADOW) == 6
    assert points("MD MD MD MD .\n. . . . .\n. . . . .\n. . . . .", T.MEADOW) == 10
    assert points("MD MD MD MD MD\n. . . . .\n. . . . .\n. . . . .", T.MEADOW) == 15


def test_meadow_group_of_7_scores_15_and_groups_score_separately():
    assert points("MD MD MD MD MD\nMD MD . . .\n. . . . .\n. . . . .", T.MEADOW) == 15
    # a group of 3 and a group of 2, split by a bee; diagonal meadows do not join
    assert points("MD MD MD BE MD\n. . . . MD\n. . . MD .\n. . . . .", T.MEADOW) == 6 + 3 + 0


def test_biodiversity_table():
    # only rabbits and foxes score: 9 gaps -> -5
    p = score_tableau(grid("RB FX . . .\n. . . . .\n. . . . .\n. . . . ."))
    assert len(p.gaps) == 9 and p.biodiversity == -5
    assert p.total == 1 + 3 - 5


def test_every_point_is_explained_by_card_or_group():
    p = score_tableau(grid("MD BE MD ST DF\nRB EG TR ST TR\nFX DR BR WF DR\nMD MD MD WF ST"))
    explained = {}
    for c in p.cards:
        explained[c.type] = explained.get(c.type, 0) + c.points
    for g in p.groups:
        explained[g.type] = explained.get(g.type, 0) + g.points
    for card in T:
        assert explained.get(card, 0) == p.sheet[card], card
    bee = next(c for c in p.cards if c.type is T.BEE)
    assert bee.points == 6 and sorted(bee.because_of) == [0, 2]


def test_a_single_card_is_one_card_in_the_explanations():
    # "an adjacent stream group of 1 cards", "largest stream group: 1 cards" (a newcomer's run).
    p = score_tableau(grid("ST DF . . .\n. . . . .\n. . . . .\n. . . . ."))
    (dragonfly,) = [c for c in p.cards if c.type is T.DRAGONFLY]
    assert dragonfly.reason == "an adjacent stream group of 1 card (row 1, col 1)"
    (stream,) = [g for g in p.groups if g.type is T.STREAM]
    assert stream.reason.startswith("largest stream group: 1 card") and "1 cards" not in stream.reason, stream.reason
    two = score_tableau(grid("ST ST DF . .\n. . . . .\n. . . . .\n. . . . ."))
    assert next(c for c in two.cards if c.type is T.DRAGONFLY).reason.startswith("an adjacent stream group of 2 cards")
