"""Stream and wolf majorities across a game: ties, absent types, the neutral pile, others."""
import pytest
from helpers import game, grid

from ecoscore.scoring import score_game, score_tableau
from ecoscore.scoring.majority import awards, ordinal

WOLVES = {n: " ".join(["WF"] * n + ["."] * (5 - n)) + "\n. . . . .\n. . . . .\n. . . . ." for n in range(6)}
STREAM = {n: " ".join(["ST"] * n + ["."] * (5 - n)) + "\n. . . . .\n. . . . .\n. . . . ." for n in range(6)}


def wolf_points(result):
    return [p.wolf.points for p in result.players]


def stream_points(result):
    return [p.stream.points for p in result.players]


def test_wolves_most_second_third():
    assert wolf_points(game(WOLVES[3], WOLVES[1], WOLVES[2])) == [12, 4, 8]


def test_wolves_tied_for_most_share_12_and_next_gets_4():
    assert wolf_points(game(WOLVES[3], WOLVES[3], WOLVES[1])) == [12, 12, 4]


def test_wolves_tied_for_second_share_8_and_nobody_third():
    assert wolf_points(game(WOLVES[4], WOLVES[2], WOLVES[2], WOLVES[1])) == [12, 8, 8, 0]


def test_player_with_no_wolves_cannot_place():
    r = game(WOLVES[2], WOLVES[0], WOLVES[1])
    assert wolf_points(r) == [12, 0, 8]
    assert r.players[1].wolf.place is None


def test_stream_tied_for_largest_share_8_and_nobody_gets_5():
    assert stream_points(game(STREAM[3], STREAM[3], STREAM[2])) == [8, 8, 0]


def test_stream_compares_largest_group_not_total():
    split = "ST ST . ST ST\n. . . . .\nST ST . ST .\n. . . . ."  # 6 streams, largest group 2
    assert stream_points(game(split, STREAM[3])) == [5, 8]


def test_neutral_pile_competes_and_can_push_a_player_to_second():
    r = game(WOLVES[2], WOLVES[1], neutral=(4, 3))
    assert wolf_points(r) == [8, 4]  # the pile's 3 wolves take first
    assert stream_points(r) == [0, 0]
    r = game(STREAM[3], STREAM[5], neutral=(4, 0))
    assert stream_points(r) == [0, 8]  # the pile's 4 streams form one group and take second



def test_the_neutral_pile_only_in_a_game_of_two():
    # It changed a game of three (25/30/48 -> 16/16/41) and a solo game against the bot: the
    # pile is the third hand of a two-player game, nothing else (an attack on a running server).
    with pytest.raises(ValueError, match="game of two players, not of 3"):
        game(WOLVES[2], WOLVES[1], STREAM[3], neutral=(4, 3))
    with pytest.raises(ValueError, match="game of two players, not of 3"):
        score_game([("a", grid(WOLVES[2])), ("b", grid(WOLVES[1]))], neutral=(4, 3), others=[(1, 1)])
    # (refused as "a game of two players, not of 2": a solo game says what it is, an attack's find)
    with pytest.raises(ValueError, match="a solo game is one player against the bot: no neutral pile"):
        score_game([("a", grid(WOLVES[2]))], neutral=(4, 3), bot=grid(WOLVES[1]))
    alone = score_game([("a", grid(WOLVES[2]))], neutral=(0, 3))  # one player of two, scoring alone
    assert alone.players[0].wolf.points == 8


def test_alone_a_tableau_takes_first_place_provisionally():
    p = score_tableau(grid(WOLVES[1]))
    assert p.wolf.points == 12 and p.wolf.provisional


def test_others_numbers_compete_like_players():
    p = score_tableau(grid(WOLVES[2]), others=[(0, 3), (4, 1)])
    assert p.wolf.points == 8 and not p.wolf.provisional
    result = score_game([("a", grid(STREAM[2]))], others=[(3, 0), (4, 0)])
    assert not result.provisional
    assert result.players[0].stream.points == 0  # third of three: only two places score
    tied = score_game([("a", grid(STREAM[2]))], others=[(2, 0), (3, 0)])
    assert tied.players[0].stream.points == 5  # tied with a number for second


@pytest.mark.parametrize(
    "values, prizes, expected",
    [
        ([5, 5, 3], (12, 8, 4), [12, 12, 4]),
        ([0, 0], (8, 5), [0, 0]),
        ([1, 2, 3, 4], (12, 8, 4), [0, 4, 8, 12]),
        ([2, 2, 2, 2], (8, 5), [8, 8, 8, 8]),
    ],
)
def test_awards_competition_ranking(values, prizes, expected):
    assert [pts for _, pts in awards(values, prizes)] == expected


def test_places_are_written_eleventh_to_thirteenth_in_every_hundred():
    # "111st place" against 110 others' figures (a rules check)
    said = {n: ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 111, 112, 113, 121, 211)}
    assert said == {1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 11: "11th", 12: "12th", 13: "13th", 21: "21st",
                    22: "22nd", 23: "23rd", 101: "101st", 111: "111th", 112: "112th", 113: "113th", 121: "121st",
                    211: "211th"}
