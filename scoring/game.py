"""Score a whole game: majorities across players, the neutral pile, the solo bot,
biodiversity, deck-count checks, totals and winners."""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from .cards import DECK_COUNTS, SCORE_PAD_ORDER, CardType, over_deck
from .majority import STREAM_AWARDS, WOLF_AWARDS, awards
from .rules import CardPoints, GroupPoints, score_cards
from .tableau import Tableau

BOT_NAME = "bot"
SOLO_TIERS = ((70, "legendary"), (50, "remarkable"), (30, "win"))


def solo_outcome(margin: int) -> str:
    """A solo game's result for the player's lead over the bot (the game's rules: see README, "Rules", solo)."""
    return next((tier for floor, tier in SOLO_TIERS if margin >= floor), "lost")


def biodiversity_points(gaps: int) -> int:
    """Points for the number of types that scored nothing (the game's rules: see README, "Rules")."""
    if gaps >= 6:
        return -5
    return {5: 0, 4: 3, 3: 7}.get(gaps, 12)


@dataclass(slots=True)
class Majority:
    """One player's standing in the stream or wolf majority."""

    value: int  # largest stream group, or number of wolves
    place: int | None  # None: no card of the type, cannot place
    points: int
    provisional: bool


@dataclass(slots=True)
class DeckIssue:
    """More cards of a type than one deck holds: a misreading or a second deck."""

    type: CardType
    count: int
    deck_count: int
    player: str | None  # None: summed over the whole game

    def __str__(self) -> str:
        where = f"{self.player} has" if self.player else "the game has"
        return (
            f"{where} {self.count} {self.type.value} cards but a deck holds only "
            f"{self.deck_count}: a misread card or a second deck"
        )


@dataclass(slots=True)
class PlayerScore:
    name: str
    tableau: Tableau
    sheet: dict[CardType, int]  # points per type, stream and wolf included
    biodiversity: int | None  # None for the solo bot, which takes no bonus or penalty
    gaps: list[CardType]
    total: int
    stream: Majority
    wolf: Majority
    cards: list[CardPoints]
    groups: list[GroupPoints]
    bot: bool = False
    deck_issues: list[DeckIssue] = field(default_factory=list)

    @property
    def incomplete(self) -> bool:
        return not self.tableau.is_complete


@dataclass(slots=True)
class SoloResult:
    margin: int  # player total minus bot total
    outcome: str  # "legendary", "remarkable", "win" or "lost"


@dataclass(slots=True)
class GameScore:
    players: list[PlayerScore]  # in input order, the bot last
    winners: list[str]
    provisional: bool  # majorities computed without the rest of the game
    deck_issues: list[DeckIssue]
    neutral: tuple[int, int] | None = None
    others: list[tuple[int, int]] = field(default_factory=list)
    solo: SoloResult | None = None


def _check_deck(counts: Counter[CardType], player: str | None) -> list[DeckIssue]:
    return [DeckIssue(card, n, DECK_COUNTS[card], player) for card, n in over_deck(counts)]


def score_game(
    players: Sequence[tuple[str, Tableau]],
    *,
    neutral: tuple[int, int] | None = None,
    bot: Tableau | None = None,
    others: Sequence[tuple[int, int]] | None = None,
) -> GameScore:
    """Score the players of one game.

    ``neutral`` is the 2-player neutral pile as (stream cards, wolf cards); ``bot`` the solo
    bot's tableau; ``others`` the (largest stream, wolves) of players not given here. With a
    single player and neither a bot nor others (a neutral pile alone leaves the game's other
    player out), majorities are provisional (the game's rules: see README, "Rules").
    """
    if not players:
        raise ValueError("a game needs at least one player")
    names = [name for name, _ in players]
    if bot is not None:
        names.append(BOT_NAME)
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ValueError(f"player names must differ; repeated: {', '.join(duplicates)}")
    if bot is not None and len(players) != 1:
        raise ValueError("the solo bot plays against exactly one player")
    # A solo game is its player and the bot: no neutral pile, no other players' figures (with
    # them it was scored as solo and said final; the pile was refused as "a game of 2": an attack).
    if bot is not None and (neutral is not None or others):
        raise ValueError("a solo game is one player against the bot: no neutral pile and no other players' figures")
    if neutral is not None and (bot is not None or len(players) + len(others or ()) > 2):
        raise ValueError(f"the neutral pile is for a game of two players, not of "
                         f"{len(players) + len(others or ()) + (bot is not None)}")
    if neutral is not None and min(neutral) < 0:
        raise ValueError("the neutral pile's stream and wolf counts cannot be negative")
    if others is not None and any(min(o) < 0 for o in others):
        raise ValueError("other players' stream and wolf figures cannot be negative")

    entries = [(name, tableau, False) for name, tableau in players]
    if bot is not None:
        entries.append((BOT_NAME, bot, True))
    base = [score_cards(tableau) for _, tableau, _ in entries]
    counts = [tableau.counts() for _, tableau, _ in entries]
    # An empty ``others`` (``--others ''``) compares the tableau with nobody, as None does: still provisional.
    provisional = len(players) == 1 and bot is None and not others

    # Everyone who competes for the majorities: players, then the neutral pile, then others.
    rivals = [(p.largest_stream, p.wolves) for p in base]
    if neutral is not None:
        rivals.append(neutral)  # all the pile's streams form one group
    rivals.extend(others or ())
    stream_awards = awards([s for s, _ in rivals], STREAM_AWARDS)
    wolf_awards = awards([w for _, w in rivals], WOLF_AWARDS)

    scores = []
    for k, ((name, tableau, is_bot), points, held) in enumerate(zip(entries, base, counts)):
        sheet = dict(points.by_type)
        stream = Majority(points.largest_stream, *stream_awards[k], provisional)
        wolf = Majority(points.wolves, *wolf_awards[k], provisional)
        sheet[CardType.STREAM] = stream.points
        sheet[CardType.WOLF] = wolf.points
        for group in points.groups:
            standing = stream if group.type is CardType.STREAM else wolf if group.type is CardType.WOLF else None
            if standing is not None:
                group.points, group.place, group.provisional = standing.points, standing.place, provisional
        gaps = [card for card in SCORE_PAD_ORDER if sheet[card] == 0]
        bio = None if is_bot else biodiversity_points(len(gaps))
        scores.append(
            PlayerScore(
                name=name,
                tableau=tableau,
                sheet=sheet,
                biodiversity=bio,
                gaps=gaps,
                total=sum(sheet.values()) + (bio or 0),
                stream=stream,
                wolf=wolf,
                cards=points.cards,
                groups=points.groups,
                bot=is_bot,
                deck_issues=_check_deck(held, name),
            )
        )

    game_counts: Counter[CardType] = Counter()
    for held in counts:
        game_counts.update(held)
    if neutral is not None:
        game_counts[CardType.STREAM] += neutral[0]
        game_counts[CardType.WOLF] += neutral[1]
    for largest_stream, wolves in others or ():  # at least that many streams, exactly that many wolves
        game_counts[CardType.STREAM] += largest_stream
        game_counts[CardType.WOLF] += wolves
    game_issues = _check_deck(game_counts, None) if len(entries) > 1 or neutral or others else []

    solo = None
    humans = [s for s in scores if not s.bot]
    if bot is not None:
        margin = humans[0].total - scores[-1].total
        outcome = solo_outcome(margin)
        solo = SoloResult(margin, outcome)
        winners = [humans[0].name] if outcome != "lost" else [BOT_NAME]
    else:
        best = max(s.total for s in humans)
        winners = [s.name for s in humans if s.total == best]

    return GameScore(
        players=scores,
        winners=winners,
        provisional=provisional,
        deck_issues=[issue for s in scores for issue in s.deck_issues] + game_issues,
        neutral=(neutral[0], neutral[1]) if neutral is not None else None,
        others=list(others or ()),
        solo=solo,
    )


def score_tableau(
    tableau: Tableau, name: str = "player", *, others: Sequence[tuple[int, int]] | None = None
) -> PlayerScore:
    """Score one tableau on its own (majorities provisional unless ``others`` is given)."""
    return score_game([(name, tableau)], others=others).players[0]
