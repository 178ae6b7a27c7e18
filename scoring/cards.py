"""The 11 card types of Ecosystem: deck counts, short codes and names in four languages."""
from __future__ import annotations

import enum
import unicodedata
from collections.abc import Mapping

# What a reader may name a cell besides a type (the API's words): a card of none of the deck's
# types (a deck matcher's answer), and how a doubt says that answer to a player ("bee 79%, or a
# foreign card 18%").
NOT_OURS = "not ours"
FOREIGN_CARD = "a foreign card"


class CardType(str, enum.Enum):
    """A card type. The value is the canonical English name used in files and JSON."""

    RABBIT = "rabbit"
    TROUT = "trout"
    FOX = "fox"
    BEAR = "bear"
    DRAGONFLY = "dragonfly"
    BEE = "bee"
    EAGLE = "eagle"
    WOLF = "wolf"
    DEER = "deer"
    STREAM = "stream"
    MEADOW = "meadow"

    def __str__(self) -> str:
        return self.value

    @property
    def code(self) -> str:
        return CODES[self]

    @property
    def deck_count(self) -> int:
        return DECK_COUNTS[self]


def over_deck(counts: Mapping[CardType, int]) -> list[tuple[CardType, int]]:
    """The one deck check: (type, count) of each type with more cards than one deck holds."""
    return [(card, n) for card, n in counts.items() if card is not None and n > DECK_COUNTS[card]]


#: Cards of each type in one 130-card deck (the game's rules: see README, "Rules").
DECK_COUNTS: dict[CardType, int] = {
    CardType.RABBIT: 8,
    CardType.TROUT: 10,
    CardType.FOX: 12,
    CardType.BEAR: 12,
    CardType.DRAGONFLY: 8,
    CardType.BEE: 8,
    CardType.EAGLE: 8,
    CardType.WOLF: 12,
    CardType.DEER: 12,
    CardType.STREAM: 20,
    CardType.MEADOW: 20,
}

#: Two-letter codes, handy for typing a grid by hand.
CODES: dict[CardType, str] = {
    CardType.RABBIT: "RB",
    CardType.TROUT: "TR",
    CardType.FOX: "FX",
    CardType.BEAR: "BR",
    CardType.DRAGONFLY: "DF",
    CardType.BEE: "BE",
    CardType.EAGLE: "EG",
    CardType.WOLF: "WF",
    CardType.DEER: "DR",
    CardType.STREAM: "ST",
    CardType.MEADOW: "MD",
}

#: The order of the rows of the paper score pad (and of the rulebooks' final table).
SCORE_PAD_ORDER: tuple[CardType, ...] = (
    CardType.BEAR,
    CardType.BEE,
    CardType.MEADOW,
    CardType.TROUT,
    CardType.EAGLE,
    CardType.RABBIT,
    CardType.DRAGONFLY,
    CardType.FOX,
    CardType.DEER,
    CardType.STREAM,
    CardType.WOLF,
)

_NAMES: dict[CardType, tuple[str, ...]] = {
    # English, Czech, Russian, Italian (singular and the common plural).
    CardType.RABBIT: ("rabbit", "rabbits", "zajíc", "zajíci", "кролик", "кролики", "coniglio", "conigli"),
    CardType.TROUT: ("trout", "trouts", "pstruh", "pstruzi", "форель", "trota", "trote"),
    CardType.FOX: ("fox", "foxes", "liška", "lišky", "лиса", "лисы", "volpe", "volpi"),
    CardType.BEAR: ("bear", "bears", "medvěd", "medvědi", "медведь", "медведи", "orso", "orsi"),
    CardType.DRAGONFLY: (
        "dragonfly", "dragonflies", "vážka", "vážky", "стрекоза", "стрекозы", "libellula", "libellule",
    ),
    CardType.BEE: ("bee", "bees", "včela", "včely", "пчела", "пчёлы", "ape", "api"),
    CardType.EAGLE: ("eagle", "eagles", "orel", "orli", "орёл", "орлы", "aquila", "aquile"),
    CardType.WOLF: ("wolf", "wolves", "vlk", "vlci", "волк", "волки", "lupo", "lupi"),
    CardType.DEER: ("deer", "jelen", "jeleni", "олень", "олени", "cervo", "cervi"),
    CardType.STREAM: ("stream", "streams", "potok", "potoky", "ручей", "ручьи", "ruscello", "ruscelli"),
    CardType.MEADOW: ("meadow", "meadows", "louka", "louky", "луг", "луга", "prato", "prati"),
}


def _fold(token: str) -> str:
    """Case-fold and strip diacritics, so 'Zajic', 'ZAJÍC' and 'орел' all match."""
    decomposed = unicodedata.normalize("NFKD", token.strip().casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _build_lookup() -> dict[str, CardType]:
    lookup: dict[str, CardType] = {}
    for card in CardType:
        for alias in (*_NAMES[card], CODES[card]):
            key = _fold(alias)
            if lookup.get(key, card) is not card:  # pragma: no cover - guarded by a test
                raise RuntimeError(f"alias {alias!r} names two card types")
            lookup[key] = card
    return lookup


_LOOKUP = _build_lookup()


def aliases(card: CardType) -> tuple[str, ...]:
    """Every name accepted for ``card`` (its code included)."""
    return (*_NAMES[card], CODES[card])


def parse_card(token: str) -> CardType:
    """Return the card type a name, alias or code stands for; raise ``KeyError`` if none."""
    try:
        return _LOOKUP[_fold(token)]
    except KeyError:
        raise KeyError(token) from None
