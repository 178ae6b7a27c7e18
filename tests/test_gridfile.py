import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ecoscore.scoring import CardType, GridError, Tableau, format_text, parse_grid, parse_text, to_json
from ecoscore.scoring.gridfile import tableau_header

tableaux = st.lists(st.one_of(st.none(), st.sampled_from(list(CardType))), min_size=20, max_size=20).map(Tableau)


@given(tableaux)
def test_text_round_trips_exactly(t):
    text = format_text(t)
    assert parse_text(text) == t
    assert format_text(parse_text(text)) == text


@given(tableaux)
def test_json_round_trips_exactly(t):
    assert parse_grid(json.dumps({"grid": to_json(t)})) == t
    assert parse_grid(json.dumps(to_json(t))) == t


def test_a_cell_the_photo_did_not_show_is_written_as_a_question_and_never_scored_as_empty():
    t = Tableau([CardType.BEAR] * 20)
    text = format_text(t, unknown=frozenset({(3, 4)}))
    assert text.splitlines()[3].split() == ["bear"] * 4 + ["?"]
    with pytest.raises(GridError, match=r"row 4, cell 5: '\?' marks a cell the photo did not show"):
        parse_text(text)
    with pytest.raises(GridError, match=r"row 4, cell 5: '\?' marks"):  # as `ecoscore read` writes it: comments above
        parse_text("# read from p.jpg\n# doubt: row 4, col 5: ...\n" + text)
    assert parse_text(text.replace("?", ".")) == Tableau([CardType.BEAR] * 19 + [None])  # once filled in


def test_comments_blank_lines_empty_cells_and_mixed_languages():
    t = parse_text(
        """# a comment line
        louka  MD  prato  луг  meadow   # trailing comment

        . - . - .
        BE BE BE BE BE
        orel aquila орёл EG eagle
        """
    )
    assert t.rows()[0] == [CardType.MEADOW] * 5
    assert t.rows()[1] == [None] * 5
    assert t.rows()[3] == [CardType.EAGLE] * 5


def test_sideways_reading_of_5_rows_of_4_is_transposed():
    t = parse_text("RB . . .\n. . . .\n. . . .\n. . . .\n. . . FX")
    assert t.at(0, 0) is CardType.RABBIT and t.at(3, 4) is CardType.FOX


def test_unknown_token_error_says_which_and_where():
    with pytest.raises(GridError, match=r"row 2, cell 3: unknown card 'unicorn'"):
        parse_text("RB RB RB RB RB\nRB RB unicorn RB RB\n. . . . .\n. . . . .", "p.txt")


@pytest.mark.parametrize(
    "text, message",
    [
        ("RB RB RB RB RB\n. . . . .\n. . . . .", "got 3 rows, holding 5, 5, 5 cards"),
        ("RB RB RB RB RB", "got 1 row, holding 5 cards"),
        ("RB", "got 1 card"),  # not "got 1 row, holding 1 cards"
        ("RB RB RB RB\n. . . . .\n. . . . .\n. . . . .", "got 4 rows, holding 4, 5, 5, 5 cards"),
        ("", "got 0 rows"),
        ("{not json", "invalid JSON"),
        ('{"grid": 5}', "expected a list of rows"),
        ('[["RB", 3, null, null, null]]', "row 1, cell 2: expected a card name or null"),
    ],
)
def test_shape_and_format_errors(text, message):
    with pytest.raises(GridError, match=message):
        parse_grid(text)


def test_a_read_of_several_tableaux_fed_whole_says_to_split_it():
    """`ecoscore read` of a photo of three tableaux writes three grids, each under '# tableau K of
    3'; `ecoscore grid` on that file said only 'got 12 rows of 5 cells' (a newcomer's find)."""
    grid = format_text(Tableau([CardType.BEAR] * 20))
    text = "".join(f"{tableau_header(k, 3)}\n# read from p.jpg: confidence 99%\n{grid}" for k in (1, 2, 3))
    with pytest.raises(GridError, match=r"holds 3 tableaux \(12 rows\).*a file of its own"):
        parse_text(text, "me.txt")
    assert parse_text(f"{tableau_header(2, 3)}\n{grid}") == Tableau([CardType.BEAR] * 20)  # one of them, split off
    for said in ("# ekosystém {k} z 3", "# экосистема {k} из 3", "# ecosistema {k} di 3"):  # `read --lang cs|ru|it`
        text = "".join(f"{said.format(k=k)}\n{grid}" for k in (1, 2, 3))
        with pytest.raises(GridError, match=r"holds 3 tableaux \(12 rows\)"):
            parse_text(text, "me.txt")
