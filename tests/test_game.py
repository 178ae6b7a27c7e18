"""Whole games: the rulebook's final table, solo tiers, deck counts, winners."""
import pytest
from helpers import EXAMPLES, grid

from ecoscore.scoring import CardType as T
from ecoscore.scoring import parse_grid, score_game

RULEBOOK = {  # the Russian and Czech rulebooks' final table, row by row
    "alice": dict(bear=4, bee=6, meadow=0, trout=4, eagle=2, rabbit=0, dragonfly=7, fox=3, deer=12, stream=5, wolf=0,
                  biodiversity=7, total=50),
    "bruno": dict(bear=0, bee=9, meadow=0, trout=2, eagle=6, rabbit=3, dragonfly=8, fox=0, deer=0, stream=8, wolf=0,
                  biodiversity=0, total=36),
    "chiara": dict(bear=0, bee=9, meadow=15, trout=0, eagle=0, rabbit=0, dragonfly=0, fox=6, deer=6, stream=0, wolf=12,
                   biodiversity=-5, total=43),
}


def example_game():
    players = [(name, parse_grid((EXAMPLES / f"{name}.txt").read_text(encoding="utf-8"))) for name in RULEBOOK]
    return score_game(players)


def test_rulebook_final_table_row_by_row():
    result = example_game()
    for p in result.players:
        row = {card.value: p.sheet[card] for card in T} | {"biodiversity": p.biodiversity, "total": p.total}
        assert row == RULEBOOK[p.name], p.name
    assert result.winners == ["alice"]
    assert not result.provisional and not result.deck_issues


def test_totals_tie_share_the_win():
    result = score_game([("a", grid("RB . . . .\n. . . . .\n. . . . .\n. . . . .")),
                         ("b", grid(". . . . RB\n. . . . .\n. . . . .\n. . . . ."))])
    assert result.winners == ["a", "b"]


BOT = grid("MD MD MD MD MD\nMD MD MD MD MD\nMD MD MD MD MD\nMD MD MD MD MD")  # 15 points, no bonus


@pytest.mark.parametrize(
    "player, bot, margin, outcome",
    [
        # alice alone against the bot: her streams now take first (8): 46 + 7 biodiversity = 53
        ("alice", BOT, 38, "win"),
        # chiara: 48 - 5 = 43 against 15
        ("chiara", BOT, 28, "lost"),
        ("alice", grid("RB . . . .\n. . . . .\n. . . . .\n. . . . ."), 52, "remarkable"),
    ],
)
def test_solo_games(player, bot, margin, outcome):
    tableau = parse_grid((EXAMPLES / f"{player}.txt").read_text(encoding="utf-8"))
    result = score_game([(player, tableau)], bot=bot)
    me, b = result.players
    assert b.bot and b.name == "bot" and b.biodiversity is None
    assert (result.solo.margin, result.solo.outcome) == (margin, outcome)
    assert result.winners == (["bot"] if outcome == "lost" else [player])


@pytest.mark.parametrize("margin, outcome", [(29, "lost"), (30, "win"), (49, "win"), (50, "remarkable"), (69, "remarkable"),
                                             (70, "legendary")])
def test_solo_thresholds_exactly(margin, outcome):
    from ecoscore.scoring.game import solo_outcome

    assert solo_outcome(margin) == outcome  # the function score_game calls


def test_bot_competes_in_majorities_but_takes_no_biodiversity():
    player = grid("WF WF . . .\n. . . . .\n. . . . .\n. . . . .")
    bot = grid("WF WF WF . .\nST ST . . .\n. . . . .\n. . . . .")
    me, b = score_game([("me", player)], bot=bot).players
    assert (me.wolf.points, b.wolf.points) == (8, 12)
    assert b.stream.points == 8 and b.biodiversity is None
    assert b.total == 20


def test_too_many_of_a_type_in_one_tableau_is_reported_and_still_scored():
    result = score_game([("a", grid("BE BE BE BE BE\nBE BE BE BE .\n. . . . .\n. . . . ."))])
    assert [str(i) for i in result.deck_issues] == [
        "a has 9 bee cards but a deck holds only 8: a misread card or a second deck"
    ]
    assert result.players[0].total == -5


def test_too_many_across_the_game_is_reported():
    eagles = grid("EG EG EG EG EG\n. . . . .\n. . . . .\n. . . . .")
    result = score_game([("a", eagles), ("b", eagles)])
    assert len(result.deck_issues) == 1 and result.deck_issues[0].player is None
    assert "the game has 10 eagle cards" in str(result.deck_issues[0])


def test_incomplete_tableau_scores_what_is_there_and_says_so():
    p = score_game([("a", grid("BE MD . . .\n. . . . .\n. . . . .\n. . . . ."))]).players[0]
    assert p.incomplete and p.sheet[T.BEE] == 3 and len(p.tableau.empty_cells()) == 18


def test_bad_games_raise():
    t = grid("RB . . . .\n. . . . .\n. . . . .\n. . . . .")
    with pytest.raises(ValueError, match="repeated"):
        score_game([("a", t), ("a", t)])
    with pytest.raises(ValueError, match="exactly one player"):
        score_game([("a", t), ("b", t)], bot=t)
    with pytest.raises(ValueError, match="at least one"):
        score_game([])


def test_a_lone_tableau_given_an_empty_list_of_others_is_still_provisional():
    """``--others ''`` names no other player: the tableau is compared with nobody, and its
    majority points (first place in each) cannot be final (RULES.md, "Majorities")."""
    alone = grid("WF WF . . .\nST ST . . .\n. . . . .\n. . . . .")
    for others in (None, []):
        result = score_game([("a", alone)], others=others)
        p = result.players[0]
        assert result.provisional and p.stream.provisional and p.wolf.provisional
        assert (p.stream.points, p.wolf.points) == (8, 12)
    assert not score_game([("a", alone)], others=[(1, 1)]).provisional


def test_wolves_given_as_other_players_figures_count_towards_the_deck():
    ten = grid("WF WF WF WF WF\nWF WF WF WF WF\n. . . . .\n. . . . .")
    assert score_game([("a", ten)], others=[(0, 2)]).deck_issues == []  # 12 wolves: a whole deck's
    issues = score_game([("a", ten)], others=[(0, 3)]).deck_issues
    assert [str(i) for i in issues] == ["the game has 13 wolf cards but a deck holds only 12: a misread card or a "
                                        "second deck"]
    # A largest stream is at least that many stream cards.
    streams = grid("ST ST ST ST ST\nST ST ST ST ST\nST ST ST ST ST\n. . . . .")
    assert [i.type for i in score_game([("a", streams)], others=[(6, 0)]).deck_issues] == [T.STREAM]


def test_a_solo_game_takes_no_neutral_pile_and_no_other_players():
    # With other players' figures a bot game was scored as solo and said final; with a neutral
    # pile it was refused as "a game of 2" (an attack on a running server).
    alice = parse_grid((EXAMPLES / "alice.txt").read_text(encoding="utf-8"))
    bruno = parse_grid((EXAMPLES / "bruno.txt").read_text(encoding="utf-8"))
    for extra in ({"others": [(3, 2)]}, {"neutral": (2, 1)}):
        with pytest.raises(ValueError, match="^a solo game is one player against the bot"):
            score_game([("ann", alice)], bot=bruno, **extra)
