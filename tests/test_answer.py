"""The JSON answer: one shape (the TypedDicts of scoring/report.py), built in one place
(``game_to_dict``), and the service's OpenAPI models (service/schemas.py) describing the same."""
import json

import numpy as np
import pytest
from helpers import EXAMPLES

from ecoscore.scoring import CardType, parse_text, score_game
from ecoscore.scoring import report as answer
from ecoscore.vision.decode import Photo
from ecoscore.vision.reads import CellRead, PhotoRead, TableauRead
from ecoscore.vision.report import score_reads


def _photo_read() -> PhotoRead:
    """A hand-made read of one tableau (no models): the first cell doubtful, the last empty."""
    cells = []
    for r in range(4):
        for c in range(5):
            x0, y0 = 100 + 300 * c, 100 + 320 * r
            quad = np.array([[x0, y0], [x0 + 260, y0], [x0 + 260, y0 + 300], [x0, y0 + 300]], np.float64)
            card = None if (r, c) == (3, 4) else list(CardType)[(r * 5 + c) % 11]
            doubts = ["low confidence: test"] if (r, c) == (0, 0) else []
            cells.append(CellRead(r, c, card, 0.61 if doubts else 0.99987, "bear", 0.01, card is not None, quad, doubts))
    tab = TableauRead(cells, ["row 1, col 1: low confidence: test"])
    photo = Photo(image=np.zeros((8, 8, 3), np.uint8), scale=1.0, original_size=(1700, 1400), data=b"")
    return PhotoRead([tab], [], (1700, 1400), {}, photo, "standin")


def _answer(read_after=None) -> answer.GameDoc:
    """A game of one photo read and one grid given as text, with everything a read can carry."""
    game, reads = score_reads([("ann", _photo_read())], others=[(3, 2)])
    reads[0].update(overlay_url="/api/overlays/a.jpg", photo_url="/api/overlays/b.jpg", photo_size=[1700, 1400],
                    corrected=[[0, 0]], kept=[[1, 2]], checked=True, settled=["a card left out beside the grid"],
                    tableau=2, tableaux=2)
    bruno = parse_text((EXAMPLES / "bruno.txt").read_text(), "bruno")
    both = score_game([("ann", game.players[0].tableau), ("bruno", bruno)], others=[(3, 2)])
    return answer.game_to_dict(both, [reads[0], read_after])


PAIRS = [("GameOut", "GameDoc"), ("PlayerOut", "PlayerDoc"), ("CellRead", "CellReadDoc"),
         ("MajorityOut", "MajorityDoc"), ("CardOut", "CardDoc"), ("GroupOut", "GroupDoc"),
         ("Explanation", "ExplanationDoc"), ("NeutralOut", "NeutralDoc"), ("OtherOut", "OtherDoc"),
         ("SoloOut", "SoloDoc")]


@pytest.mark.parametrize("model, doc", PAIRS)
def test_the_services_models_describe_the_answer_key_for_key(model, doc):
    pytest.importorskip("pydantic", reason="the service extra is not installed")
    from ecoscore.service import schemas

    fields = getattr(schemas, model).model_fields
    shape = getattr(answer, doc)
    assert list(fields) == list(shape.__annotations__), "the same keys in the same order"
    assert {k for k, f in fields.items() if f.is_required()} == set(shape.__required_keys__), \
        "a key the answer may leave out is optional in the OpenAPI document, and only such a key"


def test_the_answer_goes_through_the_services_model_unchanged():
    pytest.importorskip("pydantic", reason="the service extra is not installed")
    from ecoscore.service.schemas import GameOut

    doc = _answer()
    served = GameOut.model_validate(doc).model_dump(mode="json", exclude_unset=True)
    assert json.dumps(served) == json.dumps(doc)  # keys, their order and values


def test_a_player_read_from_a_photo_carries_its_read_and_one_given_as_a_grid_none_of_it():
    ann, bruno = _answer()["players"]
    read_keys = list(answer.ReadDoc.__annotations__)
    assert list(ann) == list(answer.ScoreDoc.__annotations__) + read_keys
    assert list(bruno) == list(answer.ScoreDoc.__annotations__)
    assert ann["photo"] == "ann" and ann["doubts"] == ["row 1, col 1: low confidence: test"]
    assert ann["confidence"] == 0.61 and ann["cells"][0][0]["confidence"] == 0.61
    assert ann["cells"][3][4] | {"quad": None} == {"type": None, "confidence": 0.9999, "runner_up": "bear",
                                                    "runner_up_confidence": 0.01, "detected": False, "doubts": [],
                                                    "quad": None, "unknown": False}
    assert ann["cells"][0][1]["quad"] == [[400.0, 100.0], [660.0, 100.0], [660.0, 400.0], [400.0, 400.0]]
    assert ann["grid"][3][4] is None and ann["empty_cells"] == [[3, 4]]


def test_a_rooms_read_stored_by_an_older_version_loses_only_what_the_answer_no_longer_has():
    stored = {"grid": [[None] * 5] * 4, "doubts": ["x"], "confidence": 0.5, "photo_size": [10, 20]}
    bruno = _answer(read_after=stored)["players"][1]
    assert "grid" in bruno and bruno["grid"] != stored["grid"]  # the grid scored, not the one stored
    assert [k for k in bruno if k in answer.ReadDoc.__annotations__] == ["doubts", "confidence", "photo_size"]
    assert bruno["doubts"] == ["x"] and bruno["photo_size"] == [10, 20]


def test_the_score_pad_says_a_total_with_cells_in_doubt_is_not_final():
    """A cut neighbour's tableau, its cells outside the photo scored as empty, was named the
    winner with no word beside the pad: a total with doubtful cells is not final, and a cell
    not read is told apart from an empty one."""
    read = _photo_read()
    outside = read.tableaux[0].cells[4]  # row 1, col 5: partly outside the photo, not read
    outside.type, outside.shown, outside.doubts = None, False, ["cell lies partly outside the photo: not read"]
    game, reads = score_reads([("ann", read)], others=[(3, 2)])
    pad = answer.score_pad(game, reads)
    assert "not final: ann (2 cells in doubt): check the doubts below before trusting the total" in pad
    assert "winner" not in pad  # one player alone wins nothing
    assert "note: ann: 1 cell unknown (outside the photo, or a card of no type of the deck), scored as empty" in pad
    assert "note: ann's tableau is incomplete (1 empty cell)" in pad  # row 4, col 5: truly empty
    plain = answer.score_pad(game)  # a grid given as text has no doubts
    assert "not final" not in plain and "incomplete (2 empty cells)" in plain
    # The JSON answer says so too, as the pad does.
    assert answer.game_to_dict(game, reads)["final"] is False and answer.game_to_dict(game)["final"] is True


def test_a_read_doubted_as_a_whole_makes_the_winner_not_final_and_a_grid_player_never():
    """Cards side by side outside every tableau (a player the majorities may lack) is a doubt of
    the photo, on no cell; a player given as a grid has no read at all."""
    read = _photo_read()
    for cell in read.tableaux[0].cells:
        cell.doubts = []
    read.tableaux[0].doubts.clear()
    read.loose_group = 6  # six cards side by side outside the tableau: the photo's doubt
    game, reads = score_reads([("ann", read)], others=[(3, 2)])
    bruno = parse_text((EXAMPLES / "bruno.txt").read_text(), "bruno")
    both = score_game([("bruno", bruno), ("ann", game.players[0].tableau)], others=[(3, 2)])
    pad = answer.score_pad(both, [None, reads[0]])
    not_final = next(line for line in pad.splitlines() if line.startswith("not final:"))
    assert "ann (doubts about the photo or the grid)" in not_final and "bruno" not in not_final
    assert "leading: bruno (not final)" in pad.splitlines()  # not "winner: bruno" above it
    assert answer.game_to_dict(both, [None, reads[0]])["final"] is False
    assert answer.game_to_dict(both, [None, None])["final"] is True


def _read_of(tableau) -> answer.ReadDoc:
    """A sure read of ``tableau``: every cell named, no doubt."""
    rows = [[{"type": c.value if c else None, "doubts": []} for c in tableau.cells[r * 5:(r + 1) * 5]] for r in range(4)]
    return answer.ReadDoc(cells=rows, doubts=[])  # type: ignore[typeddict-item]


def test_one_tableau_read_for_two_players_is_doubted_and_not_final():
    # The same photo sent for two players was scored as two, majorities shared, and the game
    # said final (an attack). Turned half round (shot from across the table) it is the same.
    alice = parse_text((EXAMPLES / "alice.txt").read_text(), "alice")
    bruno = parse_text((EXAMPLES / "bruno.txt").read_text(), "bruno")
    turned = type(alice)(alice.cells[::-1])
    game = score_game([("ann", alice), ("bob", turned), ("cid", bruno)])
    doc = answer.game_to_dict(game, [_read_of(alice), _read_of(turned), _read_of(bruno)])
    said = [p["doubts"] for p in doc["players"]]
    assert said[0] == ["the same 20 cards in the same places as bob's tableau: one tableau photographed twice? "
                       "Photograph each player's own tableau"]
    assert said[1][0].startswith("the same 20 cards in the same places as ann's tableau") and said[2] == []
    assert doc["final"] is False and "not final: ann (doubts about the photo or the grid), bob" in answer.score_pad(
        game, [_read_of(alice), _read_of(turned), _read_of(bruno)])
    # Two different tableaux read surely: final. Typed grids alike are the player's own word.
    assert answer.game_to_dict(score_game([("ann", alice), ("cid", bruno)]), [_read_of(alice), _read_of(bruno)])["final"]
    assert answer.game_to_dict(score_game([("ann", alice), ("bob", alice)]))["final"]


def test_one_tableau_for_two_players_is_doubted_though_one_copy_was_corrected():
    # A game night's walk: three tableaux in one photo, two players took the same one, one of them
    # corrected a card of it; nothing was said, the game final, one player's wolves counted twice.
    alice = parse_text((EXAMPLES / "alice.txt").read_text(), "alice")
    bruno = parse_text((EXAMPLES / "bruno.txt").read_text(), "bruno")

    def changed(tableau, places):
        cells = list(tableau.cells)
        for i in places:
            cells[i] = next(t for t in CardType if t is not cells[i])
        return type(tableau)(tuple(cells))

    corrected = changed(alice, [17])
    game = score_game([("ann", alice), ("bob", corrected), ("cid", bruno)])
    doc = answer.game_to_dict(game, [_read_of(alice), _read_of(corrected), _read_of(bruno)])
    said = [p["doubts"] for p in doc["players"]]
    assert said[0] == ["all but 1 of its 20 cards in the same places as bob's tableau: one tableau photographed twice? "
                       "Photograph each player's own tableau"]
    assert said[1][0].startswith("all but 1 of its 20 cards in the same places as ann's") and said[2] == []
    assert doc["final"] is False
    turned = type(alice)(changed(alice, [3, 9]).cells[::-1])  # two cards apart, shot from across the table
    assert answer.game_to_dict(score_game([("ann", alice), ("bob", turned)]), [_read_of(alice), _read_of(turned)])["final"] is False
    # Three apart is no copy: two tableaux may share much by chance, not all but three of 20 cards
    # in place, but nor is it said where it may be a real player's.
    apart = changed(alice, [0, 7, 15])
    assert answer.game_to_dict(score_game([("ann", alice), ("bob", apart)]), [_read_of(alice), _read_of(apart)])["final"]


def test_one_tableau_mirrored_or_flipped_for_another_player_is_doubted_too():
    # A mirrored copy of one photo (or the same JPEG with an EXIF orientation that mirrors it)
    # passed as another player's was final, its majorities shared (an attack).
    alice = parse_text((EXAMPLES / "alice.txt").read_text(), "alice")
    rows = [alice.cells[r * 5:(r + 1) * 5] for r in range(4)]
    mirrored = type(alice)(tuple(c for row in rows for c in row[::-1]))
    flipped = type(alice)(tuple(c for row in rows[::-1] for c in row))
    for copy in (mirrored, flipped):
        game = score_game([("ann", alice), ("bob", copy)])
        doc = answer.game_to_dict(game, [_read_of(alice), _read_of(copy)])
        assert doc["final"] is False
        assert all(p["doubts"][0].startswith("the same 20 cards in the same places as") for p in doc["players"])


def test_more_cards_of_a_type_than_a_deck_holds_keeps_a_game_from_final_read_or_typed():
    # Typed grids were final so (the players' own word), while a room of the same typed grids
    # said not final: one game, two answers (an attack). A game no deck can hold is no game as given.
    alice = parse_text((EXAMPLES / "alice.txt").read_text(), "alice")
    crowd = [(f"p{k}", type(alice)(alice.cells[k:] + alice.cells[:k])) for k in range(1, 7)]  # 6 alike in kind
    game = score_game(crowd)
    assert game.deck_issues
    assert answer.game_to_dict(game)["final"] is False
    assert "not final: more cards of a type than a deck holds (below)" in answer.score_pad(game)
    doc = answer.game_to_dict(game, [_read_of(t) for _, t in crowd])
    assert doc["final"] is False and all(p["doubts"] == [] for p in doc["players"])
    fits = score_game(crowd[:2])
    assert not fits.deck_issues and answer.game_to_dict(fits)["final"] is True


@pytest.mark.parametrize(("me", "bot"), [("alice", "bruno"), ("bruno", "alice")])  # 14 ahead; 7 behind
def test_the_score_pad_says_a_solo_margin_as_ahead_or_behind_the_bot(me, bot):
    """"solo: beat the bot by 14: lost" read as a contradiction (a newcomer's run): the pad says
    how far ahead of or behind the bot the player is, and why a lead short of 30 is lost."""
    player = parse_text((EXAMPLES / f"{me}.txt").read_text(), me)
    robot = parse_text((EXAMPLES / f"{bot}.txt").read_text(), "bot")
    game = score_game([(me, player)], bot=robot)
    margin = game.solo.margin
    line = next(x for x in answer.score_pad(game).splitlines() if x.startswith("solo: "))
    assert "beat" not in line
    if margin > 0:
        assert line.startswith(f"solo: {margin} point{'s' if margin != 1 else ''} ahead of the bot: ")
    else:
        assert line.startswith(f"solo: {-margin} point{'s' if margin != -1 else ''} behind the bot: lost (a win needs 30")
    if game.solo.outcome == "lost":
        assert line.endswith("lost (a win needs 30 or more ahead)")
