"""Why a photo is refused: the reader's refusals, and the words of those a player meets most.

A refusal is an exception the service answers with a 4xx and the command line with exit 2; its
message says what was found and how to take the photo again (``photo_doubts``' advice after it).
"""
from __future__ import annotations

ONE_CARD = "no tableau found: the photo shows one card, and a tableau is its 20 cards (5 × 4)"


class NoTableauError(ValueError):
    """The photo holds no tableau the reader can find."""


class NoGridError(NoTableauError):
    """No grid fits the cards found (or no card was found): the one refusal a less sure look at
    the photo may undo (``UNSURE_CONF``). A grid whose cells are no cards of the deck (the wrong
    deck, an unenrolled one) is not looked at again: more boxes would not make them the deck's."""


class NotThisDeckError(NoTableauError):
    """Grids of cards were found, and none held a card of the deck read with (most often the
    player's own deck, not yet taught): its cards are to be named, not photographed again."""


def cannot_name(cards: int) -> str:
    """Why a photo whose grids held no card of the deck is refused when the photo itself is too
    blurred or too dark to name cards in (its advice follows)."""
    # Not said as the photo's fault alone: a sharp enough photo of another deck's cards is refused
    # so too, now and then, and "take it again" was all it said (a walk: 1 of 36 such photos).
    return (f"no tableau read: a grid of {cards} cards was found, but none of them reads as a card of the deck: this photo "
            "may be too blurred or too dark to name them (take it again), or they are another deck's cards (choose their deck)")


def not_this_deck(cards: int, enrolled: str | None = None) -> str:
    """Why a photo whose only grids held no card of the deck is refused. Most often the player's
    own deck, not yet enrolled, read against the stand-in (or another deck); the rarer case is a
    grid of no cards at all (a play mat's printed slots, a cloth's checks boxed as cards). The two
    cannot be told apart surely from the cells alone (a plain deck's cards have as little detail
    as a textured cloth's squares), so the answer names both. Read against a deck the player
    ``enrolled``, "enrol it" would mislead: its references may show the cards unlike the photo
    does (a lamp, another edition), and more references cut from such a photo are what may help.
    (A deck told apart by its lettering alone is beyond the matcher: from scans or from photos,
    its photos are refused with this answer; the model card says so.)"""
    no_cards = "if no cards lie there (a play mat's printed slots, a pattern on the table), photograph the tableau itself"
    if enrolled is not None:
        return (f"no tableau read: a grid of {cards} cards was found, but none reads as a card of the deck {enrolled}: "
                "if they are its cards, this photo shows them unlike its references (another light, another edition): "
                f"enrol more of them from a photo like this one (deck add {enrolled} --photo P.jpg --grid G.txt), "
                f"or choose the right deck; {no_cards}")
    return (f"no tableau read: a grid of {cards} cards was found, but they do not read as cards of this deck: "
            f"if it is your own deck, enrol it and choose it (Deck on the page, --deck on the command line); {no_cards}")
