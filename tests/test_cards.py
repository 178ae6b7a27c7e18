import pytest

from ecoscore.scoring import DECK_COUNTS, CardType, parse_card
from ecoscore.scoring.cards import CODES, aliases


def test_deck_has_130_cards_of_11_types():
    assert len(CardType) == 11
    assert sum(DECK_COUNTS.values()) == 130


@pytest.mark.parametrize(
    "token, card",
    [
        ("rabbit", CardType.RABBIT), ("RABBIT", CardType.RABBIT), ("zajíc", CardType.RABBIT), ("Zajic", CardType.RABBIT),
        ("кролик", CardType.RABBIT), ("coniglio", CardType.RABBIT),
        ("pstruh", CardType.TROUT), ("форель", CardType.TROUT), ("trota", CardType.TROUT),
        ("liška", CardType.FOX), ("ЛИСА", CardType.FOX), ("volpe", CardType.FOX),
        ("medvěd", CardType.BEAR), ("медведь", CardType.BEAR), ("orso", CardType.BEAR),
        ("vážka", CardType.DRAGONFLY), ("стрекоза", CardType.DRAGONFLY), ("libellula", CardType.DRAGONFLY),
        ("včela", CardType.BEE), ("пчела", CardType.BEE), ("ape", CardType.BEE),
        ("orel", CardType.EAGLE), ("орёл", CardType.EAGLE), ("орел", CardType.EAGLE), ("aquila", CardType.EAGLE),
        ("vlk", CardType.WOLF), ("волк", CardType.WOLF), ("lupo", CardType.WOLF),
        ("jelen", CardType.DEER), ("олень", CardType.DEER), ("cervo", CardType.DEER),
        ("potok", CardType.STREAM), ("ручей", CardType.STREAM), ("ruscello", CardType.STREAM),
        ("louka", CardType.MEADOW), ("луг", CardType.MEADOW), ("prato", CardType.MEADOW),
        ("md", CardType.MEADOW), ("St", CardType.STREAM), ("  wolf ", CardType.WOLF),
    ],
)
def test_names_aliases_and_codes(token, card):
    assert parse_card(token) is card


def test_every_code_and_alias_names_exactly_its_type():
    for card in CardType:
        assert parse_card(CODES[card]) is card
        for alias in aliases(card):
            assert parse_card(alias) is card


def test_unknown_name_raises_key_error():
    with pytest.raises(KeyError):
        parse_card("unicorn")
