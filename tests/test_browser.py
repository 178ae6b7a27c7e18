"""The phone page driven in real headless Chromium (Debian's), against a live server.

Each of issue #16's broken items has a test here that fails on the page before it: the QR code
(decoded from a screenshot), labels that follow corrections and the room's scores, doubts kept
after a room correction, an error never shown above an older result, the upload race, a name
before the file chooser, an unreadable photo, solo wording, keyboard access."""
import base64
import dataclasses
import io
import json
import re
import shutil
import socket
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

import cv2
import numpy as np
import pytest
import uvicorn
from conftest import needs_models
from helpers import EXAMPLES, cell_doubts, spoil
from PIL import Image

from ecoscore.scoring import CardType, Tableau, score_tableau
from ecoscore.service.app import Settings, create_app

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [needs_models, pytest.mark.browser, pytest.mark.slow, pytest.mark.skipif(not CHROMIUM, reason="chromium is not installed")]
# Chromium on this machine: no sandbox as root, and no background calls to Google's hosts.
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]
PHONE = {"width": 390, "height": 844}
STATIC = Path(create_app.__code__.co_filename).resolve().parent / "static"  # the page's files
SHOTS = Path(__file__).resolve().parent.parent / "data" / "screenshots"


class SlowFirstRead:
    """The real reader; its first read waits until told (a big photo still on its way)."""

    def __init__(self, reader):
        self.reader, self.calls, self.started, self.release = reader, 0, threading.Event(), threading.Event()
        self.finder, self.classifier = reader.finder, reader.classifier

    def read(self, data, *args):
        self.calls += 1
        if self.calls == 1:
            self.started.set()
            self.release.wait(20)
        return self.reader.read(data, *args)


def start_server(tmp_path, reader):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    app = create_app(Settings(db_url=f"sqlite:///{tmp_path / 'db.sqlite3'}"), reader=reader)
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    while not srv.started:
        time.sleep(0.05)
    return srv, thread, f"http://127.0.0.1:{port}"


@pytest.fixture()
def server(tmp_path, reader):
    srv, thread, url = start_server(tmp_path, reader)
    yield url
    srv.should_exit = True
    thread.join(10)


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture()
def new_page(browser):
    contexts = []

    def make(viewport=PHONE, mobile=True, locale="en-US", **kw):
        # bypass_csp: the tests' own wait_for_function predicates are eval'd in the page; the page
        # itself keeps to the policy (test_the_page_keeps_to_the_content_security_policy).
        ctx = browser.new_context(viewport=viewport, is_mobile=mobile, has_touch=mobile, locale=locale,
                                  bypass_csp=kw.pop("bypass_csp", True), **kw)
        contexts.append(ctx)
        page = ctx.new_page()
        page.errors = []
        page.on("pageerror", lambda e: page.errors.append(str(e)))
        page.on("console", lambda m: page.errors.append(m.text) if "Content Security Policy" in m.text else None)
        return page

    yield make
    for ctx in contexts:
        ctx.close()


@pytest.fixture()
def page(new_page):
    return new_page()


def shot(page, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def write(tmp_path, name, data: bytes) -> str:
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


def answer(page, text: str) -> None:
    """A name asked on the page (its own dialog, not window.prompt) given, and Enter pressed."""
    from playwright.sync_api import expect

    page.wait_for_selector("#ask[open]")
    page.fill("#ask-value", text)
    page.press("#ask-value", "Enter")
    expect(page.locator("#ask")).not_to_have_attribute("open", "")


def as_sentences(text: str, name: str | None = None) -> str:
    """An error as the page shows it: each "; "-joined clause a sentence of its own, the name of
    the photo it refuses (``name``) kept as given before the first (app.js ``clauses``)."""
    if "; " not in text:
        return text

    def sentence(c: str, k: int) -> str:
        named = k == 0 and name is not None and c.startswith(f"{name}: ")
        head = f"{name}: " + c[len(name) + 2:][:1].upper() + c[len(name) + 3:] if named else c[:1].upper() + c[1:]
        return head + ("" if re.search(r"[.!?]\Z", c) else ".")

    return " ".join(sentence(c, k) for k, c in enumerate(text.split("; ")))


def put_grid(server, room_id, name, grid_text, token=None):
    body = json.dumps({"grid": grid_text}).encode()
    # a seat's grid replaced: over its tableau as it stands ("*": whatever its version)
    headers = {"Content-Type": "application/json"} | ({"X-Player-Token": token, "If-Match": "*"} if token else {})
    request = urllib.request.Request(f"{server}/api/rooms/{room_id}/players/{urllib.parse.quote(name)}/grid", body,
                                     method="PUT", headers=headers)
    with urllib.request.urlopen(request) as response:
        return json.loads(response.read())


def get_room(server, room_id):
    with urllib.request.urlopen(f"{server}/api/rooms/{room_id}") as response:
        return json.loads(response.read())


def room_player_when(server, room_id, name, ready, seconds=10.0):
    """A room's player as the service has them, once ``ready`` says so (a write still on its way)."""
    for _ in range(int(seconds * 10)):
        player = next(p for p in get_room(server, room_id)["game"]["players"] if p["name"] == name)
        if ready(player):
            return player
        time.sleep(0.1)
    raise AssertionError(f"{name} as the service has them: {player}")


def new_room(page, server, mode="game"):
    page.goto(server)
    page.select_option("#mode", mode)
    page.click("#new-room")
    page.wait_for_url("**/r/*")
    return page.url.rsplit("/", 1)[1]


def qr_shown(page, seconds=10.0) -> str:
    """The text of the QR code as the page shows it, read from a screenshot of it.

    An image loaded is not yet an image painted: on a loaded machine one CI run's first
    screenshot held no readable code (the same code read from its SVG decodes). So look again
    until it reads or the time is up, and keep the last screenshot to see why if it never does.
    """
    deadline = time.monotonic() + seconds
    while True:
        png = page.locator("#qr").screenshot()
        text, _, _ = cv2.QRCodeDetector().detectAndDecode(cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR))
        if text or time.monotonic() > deadline:
            if not text:
                SHOTS.mkdir(parents=True, exist_ok=True)
                (SHOTS / "qr-unreadable.png").write_bytes(png)
            return text
        page.wait_for_timeout(200)


def add_to_room(page, name, path):
    """A player's photo added to the room open on ``page``, as they add it: name, then file."""
    page.fill("#player-name", name)
    with page.expect_file_chooser() as chooser:
        page.click("#add-photo")
    chooser.value.set_files(path)


def upload_solo(page, server, path):
    page.goto(server)
    page.set_input_files("#file", path)
    # 60 s: a server's first read compiles the finder for its canvases; on a loaded 2-core machine
    # that alone passed 30 s once (the same test passes in 12 s when the machine is quiet).
    page.wait_for_selector("#result:not([hidden]), #retake:not([hidden])", timeout=60000)


def wait_until_held(page, held, seconds=5.0, count=1):
    """Until a route held by the test has caught ``count`` requests (a correction's score asked for)."""
    for _ in range(int(seconds * 10)):
        if len(held) >= count:
            return
        page.wait_for_timeout(100)
    raise AssertionError("the request was not made: the test would prove nothing")


def labels(page, root="#solo-tableau"):
    """{(row, col): label text} of the marks drawn on the photo: each in full, as drawn where the
    photo is shown large enough to draw it readably (else its name alone, or its first letters, or
    nothing is drawn: app.js ``photoLabels``; ``drawn_labels``)."""
    return {(int(r), int(c)): text for r, c, text in page.eval_on_selector_all(
        f"{root} .marks g.cell", "gs => gs.map(g => [g.dataset.row, g.dataset.col, g.dataset.label])")}


def drawn_labels(page, root="#solo-tableau"):
    """[(label drawn, its font's height in CSS px)] of the marks drawn on the photo."""
    return [(text, size) for text, size in page.eval_on_selector_all(f"{root} .marks g.cell text", """ts => ts.map(t => {
        const svg = t.ownerSVGElement, scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
        return [t.textContent, +t.getAttribute('font-size') * scale]; })""")]


def pad_values(page, table, column=1):
    """{row label: value} of one player's column of a score pad."""
    return dict(page.eval_on_selector_all(f"{table} tbody tr", f"trs => trs.map(tr => [tr.cells[0].textContent, tr.cells[{column}].textContent])"))


# ---------------------------------------------------------------- broken items

def test_upload_see_score_correct_on_the_photo_undo_revert(server, page, photo_set, reader, tmp_path):
    from playwright.sync_api import expect

    scene = photo_set[0]
    read = reader.read(scene.jpeg).tableaux[0]
    page.goto(server)
    page.set_input_files("#file", write(tmp_path, "tableau.jpg", scene.jpeg))
    page.wait_for_selector("#result:not([hidden])", timeout=30000)
    first = score_tableau(read.tableau).total
    assert int(page.text_content("#total")) == first
    assert page.eval_on_selector("#solo-tableau .photo-img", "img => img.complete && img.naturalWidth > 0")
    # the labels on the photo: "deer 8", card names and points, never codes
    marks = labels(page)
    assert len(marks) == 20 and all(t.split(" ")[0] in {c.value for c in CardType} | {"empty"} for t in marks.values())
    # tap the first card on the photo: the picker shows the cell's crop and its runner-up first
    cell = read.cells[0]
    page.click("#solo-tableau .marks g[data-row='0'][data-col='0']")
    page.wait_for_selector("#picker[open]")
    assert page.eval_on_selector("#crop", "c => !c.hidden && c.width > 20 && c.getContext('2d').getImageData(0, 0, c.width, c.height).data.some(v => v > 0)")
    # (offered so where it is a real second choice, 5 % or more, or the card is in doubt: a walk saw
    # "meadow (second choice)" outlined at 0.01 % on every card)
    runner = cell.runner_up if cell.runner_up != "empty" else ""
    if (cell.runner_up_confidence >= 0.05 or cell.doubts) and runner != (cell.type.value if cell.type else ""):
        assert page.get_attribute("#choices button >> nth=0", "data-type") == runner
    elif cell.runner_up_confidence < 0.05 and not cell.doubts:
        assert page.locator("#choices button.runner").count() == 0
    new_type = CardType.FOX if read.tableau.cells[0] is CardType.WOLF else CardType.WOLF
    expected = score_tableau(Tableau([new_type, *read.tableau.cells[1:]])).total
    page.click(f"#choices button[data-type='{new_type.value}']")
    page.wait_for_function(f"document.querySelector('#total').textContent === '{expected}'", timeout=10000)
    assert page.text_content("#status") == "Score updated with your correction."
    # the photo's labels follow: the corrected card's label is the new type's, the pad agrees
    assert labels(page)[(0, 0)].startswith(new_type.value)
    assert pad_values(page, "#pad")["total"] == str(expected)
    # A reload (a phone dropping the page while the camera is open) keeps the read as corrected,
    # the photo under it, and Undo's steps.
    page.reload()
    expect(page.locator("#total")).to_have_text(str(expected), timeout=30000)
    assert labels(page)[(0, 0)].startswith(new_type.value) and pad_values(page, "#pad")["total"] == str(expected)
    assert page.eval_on_selector("#solo-tableau .photo-img", "img => img.complete && img.naturalWidth > 0")
    assert page.is_enabled("#solo-tableau .undo") and page.is_enabled("#solo-tableau .revert")
    page.click("#solo-tableau .undo")
    page.wait_for_function(f"document.querySelector('#total').textContent === '{first}'", timeout=10000)
    assert labels(page) == marks
    page.click("#solo-tableau .marks g[data-row='0'][data-col='0']")
    page.click(f"#choices button[data-type='{new_type.value}']")
    page.wait_for_function(f"document.querySelector('#total').textContent === '{expected}'", timeout=10000)
    page.click("#solo-tableau .undo")
    page.wait_for_function(f"document.querySelector('#total').textContent === '{first}'", timeout=10000)
    # not "Score updated with your correction" (a walk); beside Undo, and the page's line no longer
    # says the correction's word
    assert page.text_content("#solo-tableau .tool-status") == "Correction undone for the card at row 1, column 1." \
        and page.text_content("#status") == ""
    page.click("#solo-tableau .marks g[data-row='0'][data-col='1']")
    page.click("#choices button[data-type='']")
    page.wait_for_function("document.querySelector('#status').textContent === 'Score updated with your correction.'"
                           " && document.querySelector(\"#solo-tableau .marks g[data-row='0'][data-col='1']\").dataset.label === 'empty'")
    assert page.text_content("#solo-tableau .tool-status") == ""  # Undo's word is done with
    page.click("#solo-tableau .revert")
    page.wait_for_function("document.querySelector('#solo-tableau .tool-status').textContent === 'Back to the grid as it was read.'",
                           timeout=10000)
    assert page.text_content("#total") == str(first)
    assert labels(page) == marks
    assert not page.errors


def test_a_card_set_back_to_the_card_read_is_no_correction(server, page, photo_set, reader, tmp_path):
    # A walk (Russian and Czech): a card changed, then "meadow (as read)" picked, stayed blue
    # under "with your corrections (blue)", the grid as read.
    scene = photo_set[0]
    read = reader.read(scene.jpeg).tableaux[0]
    upload_solo(page, server, write(tmp_path, "tableau.jpg", scene.jpeg))
    first = page.text_content("#total")
    as_read = read.tableau.cells[0]
    new_type = CardType.FOX if as_read is CardType.WOLF else CardType.WOLF
    page.click("#solo-tableau .marks g[data-row='0'][data-col='0']")
    page.click(f"#choices button[data-type='{new_type.value}']")
    page.wait_for_function("document.querySelectorAll('#solo-tableau .grid button.corrected').length === 1", timeout=10000)
    assert page.text_content("#solo-tableau .grid-title") == "The cards as read, with your corrections (blue)"
    page.click("#solo-tableau .marks g[data-row='0'][data-col='0']")
    back = page.locator(f"#choices button[data-type='{as_read.value if as_read else ''}']")
    assert "(as read)" in back.text_content()
    back.click()
    page.wait_for_function(f"document.querySelector('#total').textContent === '{first}'", timeout=10000)
    assert page.locator("#solo-tableau .grid button.corrected").count() == 0
    assert page.text_content("#solo-tableau .grid-title") == "The cards as read"
    page.click("#solo-tableau .undo")  # back to the correction, blue again
    page.wait_for_function("document.querySelectorAll('#solo-tableau .grid button.corrected').length === 1", timeout=10000)
    assert not page.errors


def test_in_a_room_a_doubtful_card_set_back_to_the_card_read_is_kept_as_read(server, page, photo_set, reader, tmp_path):
    # (a review: the room's cells come back with a corrected cell's doubts dropped, so a card set
    # back was neither corrected nor kept there, and its doubt came back)
    room_id = new_room(page, server)
    add_to_room(page, "Ann", write(tmp_path, "ann.jpg", spoil(photo_set[1].jpeg, reader, 3)))
    page.wait_for_selector("#mine .tableau .marks g", timeout=30000)
    r, c = page.eval_on_selector("#mine .grid button.doubt", "b => [+b.dataset.row, +b.dataset.col]")
    as_read = page.evaluate(f"room.views.get('Ann').view.read.grid[{r}][{c}]") or ""
    other = "fox" if as_read != "fox" else "wolf"
    page.click(f"#mine .grid button[data-row='{r}'][data-col='{c}']")
    page.click("#mine .change")
    page.click(f"#choices button[data-type='{other}']")
    room_player_when(server, room_id, "Ann", lambda p: p["corrected"] == [[r, c]])
    page.click("#mine .change")
    page.click(f"#choices button[data-type='{as_read}']")
    ann = room_player_when(server, room_id, "Ann", lambda p: p["corrected"] == [] and p["kept"] == [[r, c]])
    assert not ann["cells"][r][c]["doubts"]
    page.wait_for_function(f"!document.querySelector(\"#mine .grid button[data-row='{r}'][data-col='{c}']\").classList.contains('doubt')")
    assert page.locator("#mine .grid button.corrected").count() == 0
    assert not page.errors


def first_cell_received_as(page, fields: dict) -> None:
    """The first cell of every read the page receives given ``fields`` (its upload is an XHR)."""
    page.add_init_script("""
      const text = Object.getOwnPropertyDescriptor(XMLHttpRequest.prototype, "responseText");
      Object.defineProperty(XMLHttpRequest.prototype, "responseText", { get() {
        const raw = text.get.call(this);
        try {
          const doc = JSON.parse(raw);
          if (doc.players && doc.players[0].cells) {
            Object.assign(doc.players[0].cells[0][0], %s);
            return JSON.stringify(doc);
          }
        } catch (e) { /* not a read */ }
        return raw;
      } });
    """ % json.dumps(fields))


def test_the_picker_never_offers_not_ours_as_a_card(server, page, photo_set, tmp_path):
    # A deck's matcher gives "not ours" as a cell's runner-up: the picker put it first,
    # untranslated ("card.not ours"), and choosing it was refused by the server (a walk-through).
    # The read's first cell is given that runner-up as the page receives it (its upload is an XHR).
    first_cell_received_as(page, {"runner_up": "not ours"})
    upload_solo(page, server, write(tmp_path, "tableau.jpg", photo_set[0].jpeg))
    page.click("#solo-tableau .marks g[data-row='0'][data-col='0']")
    page.wait_for_selector("#picker[open]")
    offered = page.eval_on_selector_all("#choices button", "bs => bs.map(b => [b.dataset.type, b.textContent])")
    assert len(offered) == len(CardType) + 1  # the 11 types and empty, nothing else
    assert {t for t, _ in offered} == {c.value for c in CardType} | {""}
    assert not any("card." in text or "not ours" in text for _, text in offered)


def test_the_phones_back_closes_the_card_picker_and_stays_on_the_page(server, page, photo_set, reader, tmp_path):
    # A player opened a card's picker and pressed the phone's Back to close it: the page was left,
    # the read with it (a walk; forward brought it back). Back now closes the picker, the card as
    # it was; one more Back leaves, as it would have with no picker opened; Review keeps going
    # through its cards with no Back needed between them.
    from playwright.sync_api import expect

    upload_solo(page, server, write(tmp_path, "p.jpg", spoil(photo_set[2].jpeg, reader, 3)))
    page.evaluate("history.pushState({ mark: 1 }, '', location.href)")  # the page's last entry, another before it
    depth = page.evaluate("history.length")
    before = labels(page)[(0, 0)]
    page.click("#solo-tableau .marks g[data-row='0'][data-col='0']")
    page.wait_for_selector("#picker[open]")
    page.go_back()
    expect(page.locator("#picker")).not_to_be_visible()
    assert page.url.startswith(server) and labels(page)[(0, 0)] == before and page.is_visible("#total")
    n = page.locator("#solo-tableau .grid button.doubt").count()
    page.click("#solo-tableau .review")
    for _ in range(n):
        page.wait_for_selector("#picker[open]")
        page.click("#keep")
    page.wait_for_function("document.querySelector('#status').textContent === 'All doubtful cards checked.'")
    page.wait_for_function("!history.state || !history.state.ecoscoreDialog")  # its entry taken back
    assert page.evaluate("history.length") <= depth + 1
    page.click("#solo-tableau .marks g[data-row='0'][data-col='0']")
    page.wait_for_selector("#picker[open]")
    page.click("#picker-cancel")
    page.wait_for_function("history.state && history.state.mark === 1")
    page.go_back()  # no dialog open: Back goes where it always went (the entry before)
    page.wait_for_function("history.state === null")
    assert not page.errors


def test_a_reload_while_a_correction_is_scored_keeps_the_correction(server, new_page, photo_set, reader, tmp_path):
    """A reload before a correction's score came back lost the correction without a word (the
    grid and the score shown agreed, as before it): it is kept, and scored again. Kept too where
    the correction's request fails while the page is leaving (a browser may fail a page's requests
    as it goes): the page took the correction back and saved that, and the reload showed the grid
    before it (a full run, once: 50 where the correction made 48). Made to happen every time here:
    the reload's page is held until the correction's request has failed in the page still there."""
    from playwright.sync_api import expect

    page = new_page(service_workers="block")  # (a service worker would fetch the reload's page unseen by page.route)
    scene = photo_set[0]
    read = reader.read(scene.jpeg).tableaux[0]
    upload_solo(page, server, write(tmp_path, "tableau.jpg", scene.jpeg))
    new_type = CardType.FOX if read.tableau.cells[0] is CardType.WOLF else CardType.WOLF
    expected = score_tableau(Tableau([new_type, *read.tableau.cells[1:]])).total
    assert expected != score_tableau(read.tableau).total  # else the total could not tell
    held, reloads = [], []

    def the_page(url):
        return urlsplit(url).path == "/"

    page.route("**/api/grid?*", lambda route: held.append(route))
    page.click("#solo-tableau .marks g[data-row='0'][data-col='0']")
    page.click(f"#choices button[data-type='{new_type.value}']")
    wait_until_held(page, held)
    page.route(the_page, lambda route: reloads.append(route))
    page.evaluate("setTimeout(() => location.reload())")  # the page is leaving ("beforeunload"), not gone yet
    wait_until_held(page, reloads)
    with page.expect_event("requestfailed"):
        held[0].abort()  # the correction's request fails, in the page still there
    page.wait_for_timeout(500)  # (its failure handled there: the page is not to be asked, on its way out)
    page.unroute("**/api/grid?*")
    reloads[0].continue_()
    page.unroute(the_page)
    expect(page.locator("#total")).to_have_text(str(expected), timeout=30000)
    assert labels(page)[(0, 0)].startswith(new_type.value)
    assert pad_values(page, "#pad")["total"] == str(expected)
    page.click("#solo-tableau .undo")  # the correction is an Undo step like any other
    expect(page.locator("#total")).to_have_text(str(score_tableau(read.tableau).total), timeout=10000)


def test_undos_word_is_said_beside_it_in_view_on_a_phone(server, new_page, photo_set, tmp_path):
    # Undo's "Last change undone." was said on the page's status line, at its top: off the screen
    # of a phone scrolled down to the tableau (a walk at 360 × 740). Said beside Undo, in view.
    from playwright.sync_api import expect
    page = new_page(viewport={"width": 360, "height": 740})
    upload_solo(page, server, write(tmp_path, "p.jpg", photo_set[1].jpeg))
    page.click("#solo-tableau .marks g[data-row='0'][data-col='0']")
    page.click("#choices button[data-type='']")
    expect(page.locator("#status")).to_have_text("Score updated with your correction.", timeout=10000)
    undo = page.locator("#solo-tableau .undo")
    undo.evaluate("b => b.scrollIntoView({ block: 'start' })")  # the player at the tableau
    in_view = "e => { const r = e.getBoundingClientRect(); return r.height > 0 && r.top >= 0 && r.bottom <= innerHeight; }"
    assert not page.locator("#status").evaluate(in_view)  # (the page's top is off the screen: else this proves nothing)
    undo.click()
    said = page.get_by_text("Correction undone for the card at row 1, column 1.")
    expect(said).to_have_count(1, timeout=10000)  # said once, not on two lines
    assert said.evaluate(in_view)
    assert abs(said.bounding_box()["y"] - undo.bounding_box()["y"]) < 150  # beside Undo, not anywhere in view
    assert not page.errors


def test_room_qr_decodes_labels_are_the_rooms_and_doubts_survive_a_correction(server, page, photo_set, reader, tmp_path):
    spoiled = spoil(photo_set[1].jpeg, reader, 3)
    room_id = new_room(page, server)
    page.wait_for_function("document.querySelector('#qr').complete && document.querySelector('#qr').naturalWidth > 0", timeout=10000)
    text = qr_shown(page)
    assert text == page.get_attribute("#room-link", "href") and text.endswith(f"/r/{room_id}")  # the public link
    page.wait_for_function(f"document.title === 'Game room {room_id} — ecoscore'")  # the tab named by its room (an audit)
    page.fill("#player-name", "Ann")
    with page.expect_file_chooser() as chooser:
        page.click("#add-photo")
    chooser.value.set_files(write(tmp_path, "ann.jpg", spoiled))
    page.wait_for_selector("#mine .tableau .marks g", timeout=30000)
    for name in ("bruno", "chiara"):
        put_grid(server, room_id, name, (EXAMPLES / f"{name}.txt").read_text())
    page.wait_for_function("document.querySelector('#room-pad').textContent.includes('chiara')", timeout=10000)
    shot(page, "room-phone-en")
    # the photo's labels are the room's points (majorities against bruno and chiara), not Ann's alone
    pad = pad_values(page, "#room-pad")
    for row, col in labels(page, "#mine"):
        text = labels(page, "#mine")[(row, col)]
        name, _, pts = text.partition(" ")
        if name in ("stream", "wolf") and pts:
            assert pts == pad[name], (text, pad)
    doubtful = page.eval_on_selector_all("#mine .grid button.doubt", "bs => bs.map(b => [+b.dataset.row, +b.dataset.col])")
    assert len(doubtful) >= 2
    # Ann's total, with cards in doubt, is marked on the room's pad and said under it; the
    # others', typed in, are plain
    assert pad["total"].endswith("?")
    # ... and above her photo as on the pad, never as a final number of points
    assert page.text_content("#mine .tableau-title").startswith(f"Ann: {pad['total']} — ")
    assert page.eval_on_selector_all("#room-pad td.unsure", "tds => tds.length") == 1
    winners = page.text_content("#room-winners")
    assert f"Ann: {len(doubtful)} cards are in doubt, so the total is not final." in winners
    # While a card is in doubt, who leads is said, not who won; a sentence of its own ("Winner: Bruno Ann: 3 ...")
    assert re.match(r"Leading(?: together)?: [^.(]+ \(not final\)\. ", winners), winners
    assert not pad_values(page, "#room-pad", 2)["total"].endswith("?")
    doubt_lines = page.locator("#mine .doubts li").count()
    # correct one doubtful cell: the others keep their highlight and their lines
    r, c = doubtful[0]
    page.click(f"#mine .marks g[data-row='{r}'][data-col='{c}']")
    page.click("#choices button[data-type='meadow']")
    # said beside the tableau, where the player is (at the page's top it was out of view: a Russian walk)
    page.wait_for_function("document.querySelector('#mine .tool-status').textContent.includes('Correction saved')", timeout=10000)
    page.wait_for_function(f"document.querySelectorAll('#mine .grid button.doubt').length === {len(doubtful) - 1}", timeout=10000)
    # and her total as the pad has it now, to a screen reader (only "Correction saved." was said: an audit)
    page.wait_for_function("document.querySelector('#said').textContent.startsWith('Ann: ')", timeout=10000)
    assert page.text_content("#said") == f"Ann: {pad_values(page, '#room-pad')['total']}"
    # in the room's page, not in the start page's section it hides (a live region there is never heard: a review)
    assert page.evaluate("!document.querySelector('#said').closest('[hidden]')")
    assert 0 < page.locator("#mine .doubts li").count() < doubt_lines
    assert f"Ann: {len(doubtful) - 1} card" in page.text_content("#room-winners")
    page.reload()  # and so after a reload: the service keeps them
    page.wait_for_function(f"document.querySelectorAll('#mine .grid button.doubt').length === {len(doubtful) - 1}", timeout=10000)
    # the other doubtful cards kept as read: the room (every phone's pad) stops counting their doubts
    for r, c in doubtful[1:]:
        page.click(f"#mine .marks g[data-row='{r}'][data-col='{c}']")
        page.click("#keep")
    page.wait_for_function("document.querySelectorAll('#mine .grid button.doubt').length === 0", timeout=10000)
    page.wait_for_function("document.querySelector('#mine .tool-status').textContent === 'Card kept as read: saved for the room.'",
                           timeout=10000)
    ann = room_player_when(server, room_id, "Ann", lambda p: p.get("kept") == sorted(doubtful[1:]))
    assert not any(cell["doubts"] for row in ann["cells"] for cell in row)
    page.reload()
    page.wait_for_selector("#mine .tableau .marks g", timeout=30000)
    assert page.locator("#mine .grid button.doubt").count() == 0
    assert "cards are in doubt" not in page.text_content("#room-winners")
    assert page.eval_on_selector_all("#room-pad td.unsure", "tds => tds.length") == 0
    # Back to what was read, after that reload: every doubt is back, on the page as on the service
    page.click("#mine .revert")
    page.wait_for_function(f"document.querySelectorAll('#mine .grid button.doubt').length === {len(doubtful)}", timeout=10000)
    page.wait_for_function("document.querySelector('#mine .tool-status').textContent === 'Back to the grid as it was read.'")
    room_player_when(server, room_id, "Ann", lambda p: p["kept"] == [] and p["corrected"] == [])
    # Two cards kept at once (two quick taps): both reach the service (one was lost to the other's answer)
    page.evaluate(f"(() => {{ const v = room.views.get('Ann').view; v.keep({doubtful[0][0]}, {doubtful[0][1]}); "
                  f"v.keep({doubtful[1][0]}, {doubtful[1][1]}); }})()")
    room_player_when(server, room_id, "Ann", lambda p: p["kept"] == sorted(doubtful[:2]))
    page.wait_for_function(f"document.querySelectorAll('#mine .grid button.doubt').length === {len(doubtful) - 2}", timeout=10000)
    # A card read with no doubt kept as read: nothing to tell the room, so no write
    sure = next((r, c) for r in range(4) for c in range(5) if [r, c] not in doubtful)
    page.wait_for_function("!writing('Ann')", timeout=10000)  # the two keeps' writes all answered (a loaded machine)
    writes = []
    page.on("request", lambda request: request.method == "PUT" and writes.append(request.url))
    page.click(f"#mine .marks g[data-row='{sure[0]}'][data-col='{sure[1]}']")
    page.click("#keep")
    page.wait_for_timeout(500)
    assert writes == []
    assert not page.errors


def test_a_refused_photo_loses_nothing_and_says_the_score_shown_is_the_previous_photos(server, page, photo_set, tmp_path):
    # A walk: a corrected score, then a photo of the wall; the refusal wiped the corrected read
    # out, reload or not. Now the read comes back under the refusal, which says whose it is.
    upload_solo(page, server, write(tmp_path, "good.jpg", photo_set[2].jpeg))
    page.click("#solo-tableau .marks g[data-row='0'][data-col='0']")
    page.click("#choices button[data-type='']")
    page.wait_for_function("document.querySelector('#status').textContent.includes('updated')", timeout=20000)
    corrected = page.text_content("#total")
    assert page.text_content("#pad thead th:nth-child(2)") == "This photo"  # not the file's name
    # the card changed marked on the grid as on the photo, the grid said corrected (an Italian walk)
    assert page.text_content("#solo-tableau .grid-title") == "The cards as read, with your corrections (blue)"
    assert page.locator("#solo-tableau .grid button.corrected").count() == 1
    assert page.get_attribute("#solo-tableau .grid button[data-row='0'][data-col='0']", "class").split().count("corrected") == 1
    blank = cv2.imencode(".jpg", np.full((900, 1200, 3), 90, np.uint8))[1].tobytes()
    page.set_input_files("#file", write(tmp_path, "blank.jpg", blank))
    page.wait_for_function("document.querySelector('#status').classList.contains('error')", timeout=20000)
    status = page.text_content("#status")
    # The refusal as sentences, without the photo's name before it (on a phone "IMG_2026…" or
    # "image", where the pad says "This photo": a walk).
    assert status.startswith("No tableau found: ") and "blank" not in status, status
    assert status.endswith("in even light. The score below is from the previous photo.")
    assert page.is_visible("#result") and page.text_content("#total") == corrected
    # ... marked on the result itself, dimmed (a clause at the paragraph's end was all: a walk, in Czech)
    assert page.is_visible("#older") and page.text_content("#older") == "From the previous photo:"  # (a label: the
    # refusal's sentence said again under it read as a slip, an Italian walk)
    assert page.text_content("#pad thead th:nth-child(2)") == "Previous photo"  # (it said "This photo")
    assert page.evaluate("getComputedStyle(document.querySelector('#result .summary')).opacity") == "0.9"  # legible (audits: 0.55 was 2.5:1, 0.8 4.3:1)
    # ... in the language switched to, and after a reload (the page keeps the last read through one).
    page.select_option("#lang", "cs")
    page.wait_for_function("document.documentElement.lang === 'cs'")
    assert "Skóre níže je z předchozí fotky." in page.text_content("#status")
    assert page.is_visible("#result") and page.text_content("#total") == corrected
    assert page.text_content("#older") == "Z předchozí fotky:"
    assert page.text_content("#pad thead th:nth-child(2)") == "Předchozí fotka"
    page.select_option("#lang", "it")  # whole at 390 px ("Questa f…": an Italian walk)
    assert page.evaluate("(th => th.scrollWidth <= th.clientWidth)(document.querySelector('#pad thead th:nth-child(2)'))")
    page.select_option("#lang", "cs")
    page.reload()
    page.wait_for_function("document.querySelector('#total').textContent.length > 0")
    assert page.is_visible("#result") and page.text_content("#total") == corrected
    assert not page.errors


def test_a_late_correction_after_a_refused_photo_lands_on_the_read_shown_and_keeps_the_refusal_said(server, page, photo_set, tmp_path):
    # A correction scored while the next photo goes up, and answered after that photo was
    # refused: the older read came back under the refusal, or "Cannot read properties of null"
    # replaced it (a walk).
    upload_solo(page, server, write(tmp_path, "good.jpg", photo_set[2].jpeg))
    held = []
    page.route("**/api/grid?*", lambda route: held.append(route))
    page.click("#solo-tableau .marks g[data-row='0'][data-col='0']")
    page.click("#choices button[data-type='']")
    page.wait_for_function("true")  # let the correction go out
    assert held
    blank = cv2.imencode(".jpg", np.full((900, 1200, 3), 90, np.uint8))[1].tobytes()
    page.set_input_files("#file", write(tmp_path, "blank.jpg", blank))
    page.wait_for_function("document.querySelector('#status').classList.contains('error')", timeout=20000)
    refusal = page.text_content("#status")
    for route in held:
        route.continue_()
    page.wait_for_timeout(1500)  # the correction's answer arrives
    # The refusal keeps its word; the read shown under it is the older photo's, corrected.
    assert page.text_content("#status") == refusal and "no tableau found" in refusal.lower()
    assert refusal.endswith(". The score below is from the previous photo.")  # each clause a sentence
    assert page.is_visible("#result")
    assert page.evaluate("solo.view.grid[0][0]") is None
    page.reload()
    page.wait_for_function("document.querySelector('#total').textContent.length > 0")
    assert page.is_visible("#result") and page.evaluate("solo.view.grid[0][0]") is None
    assert not page.errors


def test_a_reload_while_a_photo_is_on_its_way_says_it_was_not_read(server, page, photo_set, tmp_path):
    # The browser drops an upload on a reload; the page came back with the read before and not
    # a word, as if it were the new photo's (a phone walk).
    from playwright.sync_api import expect

    upload_solo(page, server, write(tmp_path, "first.jpg", photo_set[2].jpeg))
    total = page.text_content("#total")
    held = []
    page.route("**/api/photo*", lambda route: held.append(route))
    page.set_input_files("#file", write(tmp_path, "second.jpg", photo_set[3].jpeg))
    page.wait_for_function("solo.pending > 0")
    page.wait_for_timeout(300)
    page.reload()
    expect(page.locator("#status")).to_have_text("The page reloaded while a photo was on its way: that photo was not "
                                                 "read. Send it again. The score below is from the previous photo.",
                                                 timeout=30000)
    expect(page.locator("#total")).to_have_text(total)
    page.select_option("#lang", "it")
    expect(page.locator("#status")).to_contain_text("la foto non è stata letta")
    page.unroute("**/api/photo*")
    page.reload()  # said once: the next load is a plain one
    page.wait_for_function("document.querySelector('#take').textContent.length > 0")
    expect(page.locator("#total")).to_have_text(total)
    assert page.text_content("#status") == ""
    assert not page.errors


def test_a_reload_while_a_rooms_photo_is_on_its_way_says_it_was_not_added(server, page, photo_set, tmp_path):
    # A retake in a room, reloaded at 13 %: the page came back with the old tableau and not a word,
    # as if the new photo had counted (a Russian walk).
    from playwright.sync_api import expect

    room_id = new_room(page, server)
    add_to_room(page, "Ann", write(tmp_path, "ann.jpg", photo_set[2].jpeg))
    expect(page.locator("#room-status")).to_contain_text("Added Ann's tableau", timeout=30000)
    total = pad_values(page, "#room-pad")["total"]
    held = []
    page.route(f"**/api/rooms/{room_id}/photo*", lambda route: held.append(route))
    page.fill("#player-name", "Ann")
    with page.expect_file_chooser() as chooser:
        page.click("#add-photo")
        page.click("#confirm-yes")  # replace Ann's tableau
    chooser.value.set_files(write(tmp_path, "retake.jpg", photo_set[3].jpeg))
    page.wait_for_function("roomSending > 0")
    page.wait_for_timeout(300)
    page.reload()
    expect(page.locator("#room-status")).to_have_text("The page reloaded while Ann's photo was on its way: it was not added. "
                                                      "Add it again. The room keeps Ann's earlier tableau.", timeout=30000)
    expect(page.locator("#player-name")).to_have_value("Ann")  # to add it again under (it was typed again: a walk)
    page.wait_for_function("document.querySelector('#room-pad').textContent.includes('Ann')", timeout=10000)
    assert pad_values(page, "#room-pad")["total"] == total
    page.select_option("#lang", "ru")
    expect(page.locator("#room-status")).to_contain_text("Ann: Страница перезагрузилась во время отправки фото")
    page.unroute(f"**/api/rooms/{room_id}/photo*")
    page.reload()  # said once: the next load is a plain one
    page.wait_for_function("document.querySelector('#room-pad').textContent.includes('Ann')", timeout=10000)
    assert page.text_content("#room-status") == ""
    # a photo answered (refused here) leaves nothing to say after a reload
    blank = cv2.imencode(".jpg", np.full((900, 1200, 3), 90, np.uint8))[1].tobytes()
    page.fill("#player-name", "Bea")
    with page.expect_file_chooser() as chooser:
        page.click("#add-photo")
    chooser.value.set_files(write(tmp_path, "blank.jpg", blank))
    page.wait_for_function("document.querySelector('#room-status').classList.contains('error')", timeout=30000)
    page.reload()
    page.wait_for_function("document.querySelector('#room-pad').textContent.includes('Ann')", timeout=10000)
    assert page.text_content("#room-status") == ""
    assert not page.errors


def test_a_photo_lost_to_the_network_is_said_until_the_network_is_back(server, page, photo_set, tmp_path):
    # "The server cannot be reached: the photo was not sent ... The score below is from the
    # previous photo." stayed after the network came back and the banner went (a walk, in Russian).
    from playwright.sync_api import expect

    upload_solo(page, server, write(tmp_path, "first.jpg", photo_set[2].jpeg))
    page.route("**/api/photo*", lambda route: route.abort("internetdisconnected"))
    page.set_input_files("#file", write(tmp_path, "second.jpg", photo_set[3].jpeg))
    expect(page.locator("#status")).to_contain_text("the photo was not sent", timeout=30000)
    expect(page.locator("#status")).to_contain_text("The score below is from the previous photo.")
    expect(page.locator("#offline")).to_be_visible()
    page.unroute("**/api/photo*")
    page.evaluate("dispatchEvent(new Event('online'))")  # the phone's network back: the page asks /health
    expect(page.locator("#offline")).to_be_hidden(timeout=10000)
    expect(page.locator("#status")).to_have_text("")
    assert page.is_visible("#result")  # the score before stays


def test_a_retake_is_never_replaced_by_the_older_photo(tmp_path, reader, page, photo_set):
    slow = SlowFirstRead(reader)
    srv, thread, server = start_server(tmp_path, slow)
    try:
        older, newer = photo_set[3], photo_set[4]
        newer_total = score_tableau(reader.read(newer.jpeg).tableaux[0].tableau).total
        older_total = score_tableau(reader.read(older.jpeg).tableaux[0].tableau).total
        assert newer_total != older_total
        page.goto(server)
        page.set_input_files("#file", write(tmp_path, "older.jpg", older.jpeg))
        assert slow.started.wait(20)  # the older photo is at the service, still being read
        page.set_input_files("#file", write(tmp_path, "newer.jpg", newer.jpeg))
        page.wait_for_function(f"document.querySelector('#total').textContent === '{newer_total}'", timeout=30000)
        slow.release.set()
        page.wait_for_timeout(3000)  # the older answer arrives (or would) by now
        assert page.text_content("#total") == str(newer_total)
    finally:
        slow.release.set()
        srv.should_exit = True
        thread.join(10)


def test_a_name_before_the_photo_and_the_same_file_again_replaces_after_a_yes(server, page, photo_set, tmp_path):
    from playwright.sync_api import expect

    new_room(page, server)
    page.click("#add-photo")  # no name: said at once, before any file is chosen
    # (expected, not read at once: tapped before the catalogue arrived on a loaded machine, it is
    # said as the catalogue comes)
    expect(page.locator("#room-status")).to_have_text("Type your name first.")
    assert page.evaluate("document.activeElement.id") == "player-name"
    # the field marked, and tied to what is said of it (an audit), until a name is typed
    assert page.get_attribute("#player-name", "aria-invalid") == "true"
    assert page.get_attribute("#player-name", "aria-describedby") == "room-status"
    path = write(tmp_path, "mine.jpg", photo_set[1].jpeg)
    page.fill("#player-name", "Ann")
    assert page.get_attribute("#player-name", "aria-invalid") is None
    with page.expect_file_chooser() as chooser:
        page.click("#add-photo")
    chooser.value.set_files(path)
    page.wait_for_function("document.querySelector('#room-status').textContent === \"Added Ann's tableau.\"", timeout=30000)
    page.evaluate("document.querySelector('#room-status').textContent = ''")
    # her seat's name in the box: the button says it replaces (it still said "Add my tableau": an Italian walk)
    expect(page.locator("#add-photo")).to_have_text("Replace my tableau (photo)")
    page.fill("#player-name", "Bob")
    expect(page.locator("#add-photo")).to_have_text("Add my tableau (photo)")
    page.fill("#player-name", "Ann")
    page.click("#add-photo")  # Ann again: asked before her tableau is replaced
    page.wait_for_selector("#confirm[open]")
    assert "Replace Ann's tableau" in page.text_content("#confirm-text")
    # asked before a photo is chosen: "with this photo" named none, and "Keep it" said not which (an Italian walk)
    expect(page.locator("#confirm-text")).to_have_text("Replace Ann's tableau with a new photo?")
    expect(page.locator("#confirm-no")).to_have_text("No, keep the one before")
    # the question is the dialog's name: a screen reader heard "Keep it, button" alone (a walk)
    expect(page.locator("#confirm")).to_have_accessible_name(re.compile(r"^Replace Ann's tableau"))
    expect(page.locator("#room-pad")).to_have_accessible_name("Score pad")
    with page.expect_file_chooser() as chooser:
        page.click("#confirm-yes")
    chooser.value.set_files(path)  # the very same file
    page.wait_for_function("document.querySelector('#room-status').textContent === \"Replaced Ann's tableau with the new photo.\"",
                           timeout=30000)  # (it said "Added" over the tableau it replaced: a walk)
    # After a reload the box names her seat, and her name typed otherwise ("ann") is still hers:
    # it was refused, after the whole upload, as too like Ann (a walk).
    page.reload()
    expect(page.locator("#player-name")).to_have_value("Ann")
    expect(page.locator("#add-photo")).to_have_text("Replace my tableau (photo)")
    page.select_option("#lang", "it")
    expect(page.locator("#add-photo")).to_have_text("Sostituisci il mio ecosistema (foto)")
    page.select_option("#lang", "en")
    page.fill("#player-name", "ann")
    expect(page.locator("#add-photo")).to_have_text("Replace my tableau (photo)")  # hers, typed otherwise
    page.click("#add-photo")
    page.wait_for_selector("#confirm[open]")
    assert "Replace Ann's tableau" in page.text_content("#confirm-text")
    # asked before a photo is chosen: "with this photo" named none, and "Keep it" said not which (an Italian walk)
    expect(page.locator("#confirm-text")).to_have_text("Replace Ann's tableau with a new photo?")
    expect(page.locator("#confirm-no")).to_have_text("No, keep the one before")
    with page.expect_file_chooser() as chooser:
        page.click("#confirm-yes")
    chooser.value.set_files(path)
    page.wait_for_function("document.querySelector('#room-status').textContent === \"Replaced Ann's tableau with the new photo.\"",
                           timeout=30000)
    assert page.evaluate("fetch(location.pathname.replace('/r/', '/api/rooms/')).then(r => r.json())")["players"] == ["Ann"]
    page.click("#add-photo")  # declined: said so (the last word, "Replaced...", stayed: a walk, in Russian)
    page.wait_for_selector("#confirm[open]")
    page.click("#confirm-no")
    expect(page.locator("#room-status")).to_have_text("The room keeps Ann's earlier tableau.")
    # Another phone's "ann" beside Ann is refused before its file is chosen (it was after the whole upload: a walk)
    page.evaluate("localStorage.clear()")
    page.reload()
    page.fill("#player-name", "ann")
    page.click("#add-photo")
    expect(page.locator("#room-status")).to_have_text("“ann” is too like “Ann”, already in this room: choose another name.")


def test_a_room_poll_lost_to_the_network_keeps_what_the_room_said(server, page, photo_set, tmp_path):
    # A short drop while the room was polled said "the photo was not sent" (no photo was), over
    # the room's own words, and stayed when the network came back (a walk).
    from playwright.sync_api import expect

    new_room(page, server)
    add_to_room(page, "Ann", write(tmp_path, "mine.jpg", photo_set[1].jpeg))
    page.wait_for_function("document.querySelector('#room-status').textContent === \"Added Ann's tableau.\"", timeout=30000)
    page.context.set_offline(True)
    expect(page.locator("#offline")).to_be_visible(timeout=10000)  # a poll failed
    page.context.set_offline(False)
    expect(page.locator("#offline")).to_be_hidden(timeout=10000)
    assert page.text_content("#room-status") == "Added Ann's tableau."


def test_a_double_tap_on_new_room_starts_one_room(server, page):
    posted = []
    page.on("request", lambda r: posted.append(r.url) if r.method == "POST" and r.url.split("?")[0].endswith("/api/rooms") else None)
    page.goto(server)
    page.wait_for_function("document.documentElement.lang === 'en' && !!document.querySelector('#new-room')")
    page.dblclick("#new-room")
    page.wait_for_url("**/r/*")
    assert len(posted) == 1, posted


def test_an_unreadable_photo_asks_for_a_retake(server, page, photo_set, reader, tmp_path):
    upload_solo(page, server, write(tmp_path, "spoiled.jpg", spoil(photo_set[5].jpeg, reader, 12)))
    assert page.is_visible("#retake") and not page.is_visible("#total")
    assert "Couldn't read this photo" in page.text_content("#retake")
    assert "Retake it" in page.text_content("#retake")
    assert page.evaluate("document.documentElement.scrollHeight") < 1200
    page.click("#show-anyway")
    assert page.is_visible("#total")


def test_solo_says_who_won_and_no_provisional_majorities(server, page):
    room_id = new_room(page, server, "solo")
    me = (EXAMPLES / "alice.txt").read_text()
    bot = (EXAMPLES / "chiara.txt").read_text()  # alice 50-ish against the bot: ahead, but not by 30
    owner = page.evaluate(f"localStorage.getItem('ecoscore-owner:{room_id}')")
    req = urllib.request.Request(f"{server}/api/rooms/{room_id}/bot", json.dumps({"grid": bot}).encode(), method="PUT",
                                 headers={"Content-Type": "application/json", "X-Room-Token": owner, "If-Match": '"0"'})
    urllib.request.urlopen(req).close()
    doc = put_grid(server, room_id, "me", me)
    page.evaluate("([k, v]) => localStorage.setItem(k, v)", [f"ecoscore:{room_id}:me", doc["token"]])  # this phone's seat: "you"
    game = doc["room"]["game"]
    assert game["solo"]["outcome"] == "lost" and 0 < game["solo"]["margin"] < 30
    page.wait_for_function("document.querySelector('#room-pad').textContent.includes('me')", timeout=10000)
    text = page.text_content("#room-winners")
    assert text == f"You beat the bot by {game['solo']['margin']} points, but a win needs 30 or more."  # (no unit: a walk)
    assert "Winner" not in text and "provisional" not in page.text_content("#room-view")


def test_a_change_on_another_phone_that_moves_your_total_is_said(server, page):
    # Jana's 36 became 33 when Оля corrected a card on her phone (the largest stream went to
    # her), with no word on Jana's phone (a game night's walk).
    from playwright.sync_api import expect

    room_id = new_room(page, server)
    alice, bruno = (EXAMPLES / "alice.txt").read_text(), (EXAMPLES / "bruno.txt").read_text()
    jana = put_grid(server, room_id, "Jana", alice)
    page.evaluate("([k, v]) => localStorage.setItem(k, v)", [f"ecoscore:{room_id}:Jana", jana["token"]])
    ola = put_grid(server, room_id, "Оля", bruno)
    page.wait_for_function("document.querySelector('#room-pad').textContent.includes('Оля')", timeout=10000)
    totals = lambda: {p["name"]: p["total"] for p in get_room(server, room_id)["game"]["players"]}  # noqa: E731
    # (Оля's arrival may have moved Jana's total, and been said, if a poll saw Jana alone first)
    page.evaluate("setStatus(document.querySelector('#room-status'), '')")
    before = totals()
    # Jana's own change (on another of her phones) takes the largest stream from Оля: hers, not said
    assert "stream  dragonfly stream" in alice  # (her streams of 3 and 1 joined: 5)
    put_grid(server, room_id, "Jana", alice.replace("stream  dragonfly stream", "stream  stream    stream"), jana["token"])
    assert totals()["Оля"] != before["Оля"]  # (what this step is about)
    page.wait_for_function(f"room.version === {get_room(server, room_id)['version']}", timeout=10000)
    page.wait_for_timeout(300)
    assert page.text_content("#room-status") == ""
    before = totals()
    # Оля's stream grown past Jana's: Jana's total falls on Оля's change, and is said
    assert "RB MD BE ST DF" in bruno
    put_grid(server, room_id, "Оля", bruno.replace("RB MD BE ST DF", "RB MD BE ST ST"), ola["token"])
    after = totals()
    assert after["Jana"] != before["Jana"]  # (what the test is about)
    expect(page.locator("#room-status")).to_have_text(
        f"The stream and wolf majorities moved (Оля): Jana {before['Jana']} → {after['Jana']}.", timeout=10000)
    page.select_option("#lang", "cs")  # said again in the language chosen
    expect(page.locator("#room-status")).to_have_text(
        f"Body za potoky a vlky se změnily (Оля): Jana {before['Jana']} → {after['Jana']}.")
    # Оля's Undo: its news replaces the first, not added after it (both stood: a walk)
    put_grid(server, room_id, "Оля", bruno, ola["token"])
    assert totals()["Jana"] == before["Jana"]
    expect(page.locator("#room-status")).to_have_text(
        f"Body za potoky a vlky se změnily (Оля): Jana {after['Jana']} → {before['Jana']}.", timeout=10000)
    assert not page.errors


def test_the_creators_neutral_pile_that_moves_your_total_is_said_on_your_phone(server, new_page):
    # Luca's 45 became 38 on his phone when the room's creator gave the neutral pile on hers, with
    # no word (a walk): a change of the creator's is said as a player's change is.
    from playwright.sync_api import expect

    owner = new_page()
    room_id = new_room(owner, server, "two-player")
    jana = put_grid(server, room_id, "Jana", (EXAMPLES / "alice.txt").read_text())
    owner.evaluate("([k, v]) => localStorage.setItem(k, v)", [f"ecoscore:{room_id}:Jana", jana["token"]])
    luca = put_grid(server, room_id, "Luca", (EXAMPLES / "bruno.txt").read_text())
    guest = new_page()
    guest.goto(server)
    guest.evaluate("([k, v]) => localStorage.setItem(k, v)", [f"ecoscore:{room_id}:Luca", luca["token"]])  # his seat
    guest.goto(f"{server}/r/{room_id}")
    guest.wait_for_function("document.querySelector('#room-pad').textContent.includes('Jana')", timeout=10000)
    totals = lambda: {p["name"]: p["total"] for p in get_room(server, room_id)["game"]["players"]}  # noqa: E731
    before = totals()
    owner.wait_for_function("document.querySelector('#room-pad').textContent.includes('Luca')", timeout=10000)
    owner.fill("#neutral-streams", "9")
    owner.fill("#neutral-wolves", "5")
    owner.click("#save-neutral")
    expect(owner.locator("#neutral-streams")).to_have_value("9")
    for _ in range(50):  # (the write on its way)
        if get_room(server, room_id)["neutral_given"]:
            break
        time.sleep(0.1)
    after = totals()
    moved = [name for name in ("Jana", "Luca") if after[name] != before[name]]
    assert moved, (before, after)  # (what the test is about: a pile of 9 streams and 5 wolves takes majorities)
    said = guest.locator("#room-status")
    expect(said).to_contain_text("The room's creator changed the neutral pile: ", timeout=10000)
    for name in moved:
        expect(said).to_contain_text(f"{name} {before[name]} → {after[name]}")
    # the creator's own phone: its Save said so, not this
    assert "changed the neutral pile" not in owner.text_content("#room-status")
    guest.select_option("#lang", "it")
    expect(said).to_contain_text("Chi ha creato la stanza ha cambiato le carte del giocatore neutrale: ")
    assert not guest.errors and not owner.errors


# A bot's grid that scores as alice's does against it (53 each): checked by the scorer below.
TIED_BOT = """trout     trout     eagle     eagle     dragonfly
bear      meadow    meadow    wolf      stream
meadow    meadow    bee       stream    eagle
deer      deer      trout     stream    rabbit
"""


def test_a_solo_room_before_the_bots_grid_names_no_winner(server, page):
    # "Winner: Giulia. Majorities are provisional until more players join": no one joins a solo
    # game, and the bot's grid was still to come (a walk, in Italian).
    room_id = new_room(page, server, "solo")
    put_grid(server, room_id, "me", (EXAMPLES / "alice.txt").read_text())
    page.wait_for_function("document.querySelector('#room-pad').textContent.includes('me')", timeout=10000)
    # (it said "below" of a box above: a walk, in Russian)
    assert page.text_content("#room-winners") == "Enter the bot's grid to see whether you beat it."


def test_solo_says_a_tie_with_the_bot_is_a_tie(server, page):
    # A walk: 52 against 52 said "you beat the bot by 0".
    room_id = new_room(page, server, "solo")
    owner = page.evaluate(f"localStorage.getItem('ecoscore-owner:{room_id}')")
    req = urllib.request.Request(f"{server}/api/rooms/{room_id}/bot", json.dumps({"grid": TIED_BOT}).encode(), method="PUT",
                                 headers={"Content-Type": "application/json", "X-Room-Token": owner, "If-Match": '"0"'})
    urllib.request.urlopen(req).close()
    doc = put_grid(server, room_id, "me", (EXAMPLES / "alice.txt").read_text())
    page.evaluate("([k, v]) => localStorage.setItem(k, v)", [f"ecoscore:{room_id}:me", doc["token"]])  # this phone's seat: "you"
    # The seat's token given to the page after its poll may have shown the room already, under the
    # name ("me and the bot tied", now and then in a fresh clone's CI): the room opened again with it.
    page.reload()
    game = doc["room"]["game"]
    assert game["solo"]["margin"] == 0 and game["players"][0]["total"] == game["players"][1]["total"]
    page.wait_for_function("document.querySelector('#room-pad').textContent.includes('me')", timeout=10000)
    from playwright.sync_api import expect
    expect(page.locator("#room-winners")).to_have_text("You and the bot tied: a win needs 30 or more points more than the bot.")
    assert page.eval_on_selector_all("#room-pad thead th", "ths => ths.map(th => th.textContent)")[1:] == ["me", "bot"]
    page.select_option("#lang", "cs")
    page.wait_for_function("document.querySelector('#room-winners').textContent.startsWith('Remíza')", timeout=10000)


def test_italian_says_the_deck_count_the_turn_the_neutral_pile_and_the_replace_question_as_italians_do(server, page):
    # "fotografa solo il tuo per esserne certo" (masculine only), "La partita ha 11 carte coniglio ma
    # un mazzo ne ha solo 8", "(35% nel caso peggiore, girando la carta)", "(Giocatore neutrale):
    # partecipa alle maggioranze", "con questa foto?" before any photo (an Italian walk).
    page.goto(server)
    page.select_option("#lang", "it")
    page.wait_for_function("document.documentElement.lang === 'it'")
    def said(message: str) -> str:
        return page.evaluate("m => I18N.message(m)", message)

    assert said("this photo holds 4 tableaux: the one with the most cards was taken as yours (photograph yours alone to be sure)").endswith(
        "(fotografa solo il tuo per andare sul sicuro)")
    assert said("the game has 11 rabbit cards but a deck holds only 8: a misread card or a second deck") == (
        "in partita ci sono 11 carte «coniglio», ma un mazzo ne ha solo 8: una carta letta male, o un secondo mazzo?")
    assert said("row 2, col 3: low confidence: empty 35–69%, or wolf 9%") == "riga 2, colonna 3: lettura incerta: vuota 35–69%, oppure lupo 9%"
    assert page.evaluate("I18N.t('ui.neutral_needed')") == (
        "Inserisci qui sopra ruscelli e lupi del giocatore neutrale: contano per le maggioranze.")
    assert page.evaluate("I18N.t('ui.confirm_replace', { name: 'Chiara' })") == "Sostituire l'ecosistema di Chiara con una nuova foto?"
    assert page.evaluate("[I18N.t('ui.yes_replace'), I18N.t('ui.keep_previous')]") == ["Sostituisci", "No, tieni quello di prima"]
    assert not page.errors


def test_players_tied_are_said_as_a_tie_and_listed_as_the_language_lists_them(server, new_page):
    # "In testa: Giulia, Chiara (non definitivo)." and "Vincono: Giulia, Chiara.": two names joined
    # by a comma, a tie not said as one (an Italian walk).
    from playwright.sync_api import expect

    page = new_page(viewport=WALK, locale="it-IT")
    room_id = new_room(page, server)
    for name, grid in (("Giulia", "alice"), ("Chiara", "alice"), ("Marco", "chiara")):
        put_grid(server, room_id, name, (EXAMPLES / f"{grid}.txt").read_text())
    game = get_room(server, room_id)["game"]
    assert sorted(game["winners"]) == ["Chiara", "Giulia"], game["winners"]
    names = " e ".join(game["winners"])
    said = ("Vincono a pari merito " + names + ".") if game["final"] else ("In testa a pari merito: " + names + " (non definitivo).")
    expect(page.locator("#room-winners")).to_have_text(re.compile("^" + re.escape(said)), timeout=10000)
    assert ", ".join(game["winners"]) not in page.text_content("#room-winners")
    shot(page, "room-tie-it")
    page.select_option("#lang", "en")
    expect(page.locator("#room-winners")).to_contain_text(" and ".join(game["winners"]), timeout=10000)
    assert not page.errors


def test_keyboard_reaches_take_a_photo_and_choose_a_file(server, page):
    page.goto(server)
    page.wait_for_load_state("networkidle")  # the page settled: what follows is the keyboard alone
    reached = []
    for _ in range(6):
        page.keyboard.press("Tab")
        reached.append(page.evaluate("document.activeElement.id"))
    assert "take" in reached and "choose" in reached
    with page.expect_file_chooser():
        page.press("#choose", "Enter")  # focus and key in one step: nothing can take the focus between


def test_keyboard_focus_stays_on_the_grid_through_a_choice_and_a_correction(server, page, photo_set, tmp_path):
    # Enter on a grid cell drew the grid again and the focus fell to the top of the page; so did a
    # card chosen in the picker; "Change this card" came after all 20 cells (a walk, keyboard only).
    upload_solo(page, server, write(tmp_path, "p.jpg", photo_set[1].jpeg))
    focus = "(() => { const a = document.activeElement; return [a.className, a.dataset.row ?? null, a.dataset.col ?? null]; })()"
    page.focus("#solo-tableau .grid button[data-row='1'][data-col='2']")
    page.keyboard.press("Enter")  # the cell chosen: on to "Change this card"
    assert page.evaluate(focus)[0] == "button change", page.evaluate(focus)
    page.keyboard.press("Enter")  # the picker
    page.wait_for_selector("#picker[open]")
    # The arrows move between the cards offered (it took up to 12 Tabs: a walk).
    page.focus("#choices button >> nth=0")
    page.keyboard.press("ArrowDown")
    assert page.evaluate("document.activeElement === document.querySelectorAll('#choices button')[1]")
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowUp")  # round to the last
    assert page.evaluate("[...document.querySelectorAll('#choices button')].pop() === document.activeElement")
    read = page.get_attribute("#solo-tableau .grid button[data-row='1'][data-col='2']", "data-type")
    page.focus(f"#choices button[data-type='{'bear' if read == 'meadow' else 'meadow'}']")
    page.keyboard.press("Enter")  # another card chosen, by keyboard
    page.wait_for_function("!document.querySelector('#picker').open")
    page.wait_for_function("document.activeElement && document.activeElement.dataset.row === '1'", timeout=10000)
    assert page.evaluate(focus)[1:] == ["1", "2"]  # back on the cell just corrected
    # The grid is walked with the arrows and is one stop of the Tab key (it took 20 to leave it).
    for key, cell in [("ArrowRight", ["1", "3"]), ("ArrowDown", ["2", "3"]), ("End", ["2", "4"]),
                      ("ArrowRight", ["2", "4"]), ("Home", ["2", "0"]), ("ArrowUp", ["1", "0"]), ("ArrowUp", ["0", "0"]),
                      ("ArrowUp", ["0", "0"])]:
        page.keyboard.press(key)
        assert page.evaluate(focus)[1:] == cell, (key, page.evaluate(focus))
    assert page.eval_on_selector_all("#solo-tableau .grid button[tabindex='0']", "bs => bs.map(b => b.dataset.row + b.dataset.col)") == ["00"]
    assert page.get_attribute("#solo-tableau .grid", "aria-label") == ("The tableau's cards: the arrow keys move between "
                                                                      "them, Enter chooses one")
    # A card of a group is said to be in it, not to score 0 (its points are on the group's first card).
    members = page.evaluate("""() => { const g = solo.view.player.explanation.groups.find((g) => g.cells.length > 1);
        return g.cells.slice(0, 2).map(([r, c]) => document.querySelector(
            `#solo-tableau .grid button[data-row="${r}"][data-col="${c}"]`).getAttribute('aria-label')); }""")
    # (its first card, which shows them, says they are its group's: it said them as its own)
    assert re.search(r", \S+ points? for its group$", members[0].split(";")[0]) and ", in a group worth " in members[1], members
    assert ", 0 points" not in members[1], members
    # A card alone is no group to be part of: its own points ("in a group worth 0 points": a walk).
    alone = page.evaluate("""() => solo.view.player.explanation.groups.filter((g) => g.cells.length === 1).map((g) => {
        const [r, c] = g.cells[0];
        return [g.points, document.querySelector(`#solo-tableau .grid button[data-row="${r}"][data-col="${c}"]`)
            .getAttribute('aria-label')]; })""")
    assert alone and all(" in a group " not in label and f", {points} points; row " in label for points, label in alone), alone
    page.keyboard.press("Shift+ArrowRight")  # (a selection's key, not a move)
    assert page.evaluate(focus)[1:] == ["0", "0"]
    page.keyboard.press("Tab")
    assert page.evaluate(focus)[1] is None  # out of the grid at once
    page.keyboard.press("Shift+Tab")
    assert page.evaluate(focus)[1:] == ["0", "0"]  # back where it left
    # Undo's last step disables it: the focus goes on to the grid, not to the top of the page.
    page.focus("#solo-tableau .undo")
    page.keyboard.press("Enter")
    page.wait_for_function("document.querySelector('#solo-tableau .undo').disabled")
    assert page.evaluate(focus)[1:] == ["0", "0"], page.evaluate(focus)
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")  # chosen as before: on to "Change this card"
    assert page.evaluate(focus)[0] == "button change"
    assert page.get_attribute("#solo-tableau .grid button[data-row='1'][data-col='0']", "aria-pressed") == "true"


def test_choose_a_file_works_before_the_language_has_loaded(server, page):
    """On a slow network the buttons show before the message catalogue arrives: a tap then must
    open the file chooser (the buttons were wired only after the catalogue had loaded)."""
    held = []  # the catalogue's requests, answered only after the tap
    page.route("**/static/i18n/*.json", lambda route: held.append(route))
    page.goto(server, wait_until="domcontentloaded")
    page.wait_for_selector("#choose")
    page.wait_for_function("document.readyState === 'complete'")
    try:
        assert held, "the catalogue was not requested yet: the test would prove nothing"
        with page.expect_file_chooser(timeout=5000):
            page.click("#choose")
    finally:
        for route in held:
            route.continue_()


def test_a_language_chosen_before_the_catalogue_has_loaded_is_kept(server, page):
    """The language menu listened only once the first catalogue had arrived: a choice made
    before was lost and the menu set back (a browser test failed so, now and then, in CI)."""
    held = []  # the first catalogue's requests, answered only after the choice
    page.route("**/static/i18n/*.json", lambda route: held.append(route) if not held else route.continue_())
    page.goto(server, wait_until="domcontentloaded")
    page.wait_for_function("document.readyState === 'complete'")
    wait_until_held(page, held)
    page.select_option("#lang", "cs")
    for route in held:
        route.continue_()
    page.wait_for_function("document.documentElement.lang === 'cs'", timeout=10000)
    assert page.input_value("#lang") == "cs"


def test_new_room_works_before_the_language_has_loaded(server, page):
    """The same for "New room": wired after the catalogue, a tap on a slow load did nothing (a
    CI run on a loaded machine timed out waiting for the room's page)."""
    held = []
    page.route("**/static/i18n/*.json", lambda route: held.append(route))
    page.goto(server, wait_until="domcontentloaded")
    page.wait_for_function("document.readyState === 'complete'")
    assert held, "the catalogue was not requested yet: the test would prove nothing"
    page.click("#new-room")
    page.wait_for_url("**/r/*", timeout=10000)  # the held requests went with the page left


def test_the_page_keeps_to_the_content_security_policy(server, new_page, photo_set, tmp_path):
    from playwright.sync_api import expect

    page = new_page(bypass_csp=False)
    page.goto(server)
    page.set_input_files("#file", write(tmp_path, "p.jpg", photo_set[0].jpeg))
    expect(page.locator("#solo-tableau .marks g")).to_have_count(20, timeout=30000)
    page.click("#solo-tableau .marks g >> nth=0")
    expect(page.locator("#picker")).to_be_visible()
    page.click("#choices button >> nth=0")
    expect(page.locator("#status")).to_have_text("Score updated with your correction.", timeout=10000)
    page.select_option("#lang", "it")
    expect(page.locator("#take")).to_have_text("Scatta una foto")
    assert not page.errors, page.errors


# ---------------------------------------------------------------- the player's language

@pytest.mark.parametrize("locale, lang, card, total_word", [
    ("cs-CZ", "cs", "medvěd", "Celkem"), ("ru-RU", "ru", "медведь", "Итого"), ("it-IT", "it", "orso", "Totale"),
])
def test_page_in_the_browsers_language_and_switchable(server, new_page, photo_set, reader, tmp_path, locale, lang, card, total_word):
    page = new_page(locale=locale)
    spoiled = spoil(photo_set[0].jpeg, reader, 2)
    upload_solo(page, server, write(tmp_path, "p.jpg", spoiled))
    assert page.evaluate("document.documentElement.lang") == lang
    assert page.input_value("#lang") == lang
    assert total_word in page.text_content(".total")
    assert card in page.text_content("#pad")
    doubts = page.eval_on_selector_all("#solo-tableau .doubts li", "lis => lis.map(li => li.textContent)")
    assert doubts and not any(d.lower().startswith("row ") for d in doubts), doubts  # the reader's doubts, translated
    assert all(d[0].isupper() and d.endswith(".") for d in doubts), doubts  # each a sentence
    assert all(t.split(" ")[0] != "bear" for t in labels(page).values())
    shot(page, f"solo-phone-{lang}")
    page.select_option("#lang", "en")  # switch: no new request needed, the doubts follow
    page.wait_for_function("document.documentElement.lang === 'en'")
    assert "Total" in page.text_content(".total") and "bear" in page.text_content("#pad")
    assert page.text_content("#solo-tableau .doubts li >> nth=0").startswith("Row ")
    page.reload()  # the choice is remembered
    assert page.evaluate("document.documentElement.lang") == "en"



@pytest.mark.parametrize("locale, lang", [("cs-CZ", "cs"), ("ru-RU", "ru"), ("it-IT", "it")])
def test_a_refusal_with_retake_advice_is_shown_in_the_players_language(server, new_page, tmp_path, locale, lang):
    # The page asks the API in English and translates what it shows: a refusal that holds a "; "
    # of its own, with retake advice joined after it, matched no one template and was shown in
    # English. The answer is fixed here, so the page's own translation is what is tested
    # (the service's: tests/test_i18n.py).
    from ecoscore.service import translation
    from ecoscore.service.routes.photos import for_the_page
    from ecoscore.vision.refusals import not_this_deck

    # As the service sends it: the photo's name first, as given (never capitalised), spaces and all.
    refusal = (f"my blurred-enrol: {for_the_page(not_this_deck(18, 'kitchen'))}; the photo is too dark (its brightest "
               "cards at 40 of 255): add light, or keep shadows off the cards")
    page = new_page(locale=locale)
    page.route("**/api/photo*", lambda route: route.fulfill(
        status=422, content_type="application/json", body=json.dumps({"detail": refusal})))
    page.goto(server)
    # The answer is fixed, so it comes back at once: wait for the catalogue first (a real read
    # takes longer than loading it; a message shown before it came stays in English).
    page.wait_for_function(f"document.documentElement.lang === '{lang}'")
    photo = cv2.imencode(".jpg", np.full((600, 800, 3), 120, np.uint8))[1].tobytes()
    page.set_input_files("#file", write(tmp_path, "p.jpg", photo))
    page.wait_for_function("document.querySelector('#status').classList.contains('error')", timeout=20000)
    shown = page.text_content("#status")
    # without the photo's name before it (on a phone "IMG_2026…": a walk)
    assert as_sentences(translation.translate(refusal[len("my blurred-enrol: "):], lang)) in shown
    assert "no tableau read" not in shown and "add light" not in shown
    assert "my blurred-enrol" not in shown and shown[0].isupper()
    assert shown.count(". ") >= 2 and "; " not in shown  # a sentence a clause, not one run-on
    assert not page.errors



@pytest.mark.parametrize("lang", ["cs", "ru", "it"])
def test_a_status_already_shown_is_said_again_in_the_language_switched_to(server, page, tmp_path, lang):
    # A refusal shown in English stayed English after the player chose their language, and so
    # did "Correction saved" and every other status: only what was drawn anew was translated.
    from ecoscore.service import translation

    refusal = "no tableau found: 3 cards detected, but no 5 × 4 grid of at least 5 aligned cards"
    page.route("**/api/photo*", lambda route: route.fulfill(
        status=422, content_type="application/json", body=json.dumps({"detail": refusal})))
    page.goto(server)
    page.wait_for_function("document.documentElement.lang === 'en'")
    photo = cv2.imencode(".jpg", np.full((600, 800, 3), 120, np.uint8))[1].tobytes()
    page.set_input_files("#file", write(tmp_path, "p.jpg", photo))
    page.wait_for_function("document.querySelector('#status').classList.contains('error')", timeout=20000)
    sentence = lambda text: text[:1].upper() + text[1:] + "."  # noqa: E731 (an error is shown as a sentence)
    assert page.text_content("#status") == shown(sentence(refusal))
    page.select_option("#lang", lang)
    page.wait_for_function(f"document.documentElement.lang === '{lang}'")
    assert page.text_content("#status") == sentence(translation.translate(refusal, lang)) != sentence(refusal)
    assert "error" in page.get_attribute("#status", "class")
    assert not page.errors


def catalogue_messages() -> list[str]:
    """Every English api.* message form with sample parameters (by the service's kinds), a
    refusal with retake advice joined after it, and every doubt the reader words about a cell
    (a deck's "not ours" runner-up among them): what the page and the service both translate."""
    from ecoscore.service import i18n, translation

    plain = next(v for k, v in i18n.catalogue("en").items() if k.startswith("api.") and isinstance(v, str) and "{" not in v)
    sample = {**dict.fromkeys(translation._NUMBER, "3"), **dict.fromkeys(translation._PERCENT, "40 %"),
              **dict.fromkeys(translation._CARD, "bear"), **dict.fromkeys(translation._CARDS, "wolf, eagle"),
              **dict.fromkeys(translation._MESSAGE, plain),
              **dict.fromkeys(translation._CELLS, "row 1 col 2, row 3 col 4"), **dict.fromkeys(translation._DECIMAL, "0.12"),
              **dict.fromkeys(translation._CELL_NAMES, "row 1, col 2; row 3, col 4"), **dict.fromkeys(translation._ORDINAL, "2nd"),
              "lay_one": "as written, where the cards found put it",
              "lay_other": "turned 180°, 2 rows and 1 column off where the cards found put it"}
    texts = []
    for key, value in i18n.catalogue("en").items():
        for form in (value.values() if isinstance(value, dict) else [value]) if key.startswith("api.") else ():
            names = set(re.findall(r"\{(\w+)\}", form))
            texts.append(form.format(**{name: sample.get(name, "kitchen") for name in names}))
    advice = "the photo is too dark (its brightest cards at 40 of 255): add light, or keep shadows off the cards"
    grid_text = i18n.catalogue("en")["api.unknown_card"].format(where="bot, row 2, cell 3", token="x")
    return texts + [f"{text}; {advice}" for text in texts if text.startswith("no tableau")] + [grid_text] + cell_doubts()


@pytest.mark.parametrize("lang", ["cs", "ru", "it"])
def test_the_page_translates_every_message_as_the_service_does(server, page, lang):
    # Two matchers of the same catalogue, one in Python (the API's ?lang=) and one in the page's
    # script (which asks in English): they must agree on every message, or players see one
    # thing on the page and another in the API.
    from ecoscore.service import translation

    texts = catalogue_messages()
    page.goto(server)
    page.select_option("#lang", lang)
    page.wait_for_function(f"document.documentElement.lang === '{lang}'")
    shown = page.evaluate("(texts) => texts.map((t) => I18N.message(t))", texts)
    differ = [(text, own, translation.translate(text, lang)) for text, own in zip(texts, shown) if own != translation.translate(text, lang)]
    assert not differ, differ[:3]
    assert sum(own != text for text, own in zip(texts, shown)) == len(texts)  # and each is translated
    assert any(", or a foreign card " in text for text in texts) and not any("foreign card" in own for own in shown)


# ---------------------------------------------------------------- weak signal

def rotated_12mp(photo: bytes) -> bytes:
    """A 4000 px phone photo stored sideways with EXIF orientation 6, as phones do."""
    im = Image.open(io.BytesIO(photo)).convert("RGB")
    im = im.resize((4000, round(4000 * im.height / im.width)) if im.width >= im.height else (round(4000 * im.width / im.height), 4000))
    sideways = im.transpose(Image.Transpose.ROTATE_90)  # shown upright after a 90° clockwise turn
    exif = Image.Exif()
    exif[0x0112] = 6
    out = io.BytesIO()
    sideways.save(out, "JPEG", quality=92, exif=exif.tobytes())
    return out.getvalue()


def test_a_big_photo_is_shrunk_upright_before_it_is_sent(server, page, photo_set, reader, tmp_path):
    big = rotated_12mp(photo_set[2].jpeg)
    truth = score_tableau(reader.read(big).tableaux[0].tableau).total
    sent = []
    page.on("request", lambda r: urlsplit(r.url).path == "/api/photo" and sent.append(len(r.post_data_buffer or b"")))
    upload_solo(page, server, write(tmp_path, "big.jpg", big))
    assert sent and sent[0] < len(big) / 3, (sent, len(big))
    assert int(page.text_content("#total")) == truth
    w, h = page.evaluate("(() => { const v = document.querySelector('#solo-tableau .marks').viewBox.baseVal; return [v.width, v.height]; })()")
    upright = Image.open(io.BytesIO(photo_set[2].jpeg)).size
    assert max(w, h) == 2048 and (w > h) == (upright[0] > upright[1])


def test_upload_progress_and_cancel_on_a_slow_line(server, page, photo_set, tmp_path):
    upload_solo(page, server, write(tmp_path, "first.jpg", photo_set[1].jpeg))  # a score on the screen first
    total = page.text_content("#total")
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions", {"offline": False, "latency": 100, "downloadThroughput": 125000,
                                                   "uploadThroughput": 12500})  # 0.1 Mbit/s
    page.set_input_files("#file", write(tmp_path, "p.jpg", photo_set[0].jpeg))
    page.wait_for_selector("#upload:not([hidden])", timeout=10000)
    page.wait_for_function("document.querySelector('#status').textContent.startsWith('Sending the photo')", timeout=10000)
    page.wait_for_function("document.querySelector('#progress').value > 0", timeout=20000)
    page.click("#cancel")
    page.wait_for_function("document.querySelector('#status').textContent === 'Cancelled.'", timeout=5000)
    assert not page.is_visible("#upload")
    # the score on the screen before comes back (a player's walk-through: it was gone)
    assert page.is_visible("#result") and page.text_content("#total") == total


def test_upload_progress_is_said_once_and_its_result_once(server, page, photo_set, tmp_path):
    # The status is a live region: it said every percent of an upload (a walk), then each quarter,
    # "preparing" and "reading" too: six times for one photo (a walk, in Russian). Said once as it
    # starts, its result once; how far it has come beside the bar, said unasked to no one.
    page.goto(server)
    page.wait_for_function("I18N.t('ui.sending') !== 'ui.sending'")  # (said again once the words come)
    page.evaluate("""() => { window.said = []; window.shown = [];
        const watch = (sel, into) => { const el = document.querySelector(sel);
            if (el) new MutationObserver(() => into.push(el.textContent)).observe(el, { childList: true, characterData: true, subtree: true }); };
        watch('#status', window.said); watch('#upload .upload-text', window.shown); }""")
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions", {"offline": False, "latency": 20, "downloadThroughput": 1_000_000,
                                                   "uploadThroughput": 150_000})
    page.set_input_files("#file", write(tmp_path, "p.jpg", photo_set[0].jpeg))
    page.wait_for_selector("#result:not([hidden]), #retake:not([hidden])", timeout=60000)
    assert [text for text in page.evaluate("window.said") if text] == ["Sending the photo to be read…"]
    shown = page.evaluate("window.shown")
    percents = [int(m.group(1)) for text in shown if (m := re.match(r"(\d+) % of \d+ kB\Z", text))]
    assert len(percents) >= 2 and percents == sorted(percents), shown  # it did go on showing how far it is
    assert shown[-1] == "Reading the photo…", shown
    # A refusal: the upload said, then the refusal, once each.
    page.evaluate("window.said.length = 0")
    blank = cv2.imencode(".jpg", np.full((900, 1200, 3), 90, np.uint8))[1].tobytes()
    page.set_input_files("#file", write(tmp_path, "blank.jpg", blank))
    page.wait_for_function("document.querySelector('#status').classList.contains('error')", timeout=20000)
    said = page.evaluate("window.said")
    assert said == ["Sending the photo to be read…", page.text_content("#status")], said
    assert not page.errors


def test_installable_and_the_shell_opens_offline(tmp_path, reader, new_page):
    srv, thread, server = start_server(tmp_path, reader)
    page = new_page()
    try:
        page.goto(server)
        manifest = page.evaluate("fetch('/manifest.webmanifest').then(r => r.json())")
        assert manifest["start_url"] == "/" and manifest["display"] == "standalone"
        for icon in manifest["icons"]:
            assert page.evaluate(f"fetch('{icon['src']}').then(r => r.ok)")
        page.evaluate("navigator.serviceWorker.ready.then(() => true)")
        page.reload()  # now controlled by the worker
        page.wait_for_function("navigator.serviceWorker.controller !== null", timeout=10000)
        assert page.is_hidden("#offline")
    finally:
        srv.should_exit = True  # the server goes away
        thread.join(10)
    page.reload()
    assert page.is_visible("#take") and page.text_content("#take") == "Take a photo"
    page.wait_for_selector("#offline:not([hidden])", timeout=10000)
    assert "server cannot be reached" in page.text_content("#offline")
    shot(page, "offline-phone-en")


# ---------------------------------------------------------------- layout, explanations, rooms, contrast

@pytest.mark.parametrize("name, viewport, mobile", [
    ("phone", PHONE, True), ("landscape", {"width": 844, "height": 390}, True), ("laptop", {"width": 1366, "height": 768}, False),
])
def test_total_and_pad_above_the_fold(server, new_page, photo_set, tmp_path, name, viewport, mobile):
    page = new_page(viewport=viewport, mobile=mobile)
    upload_solo(page, server, write(tmp_path, "p.jpg", photo_set[1].jpeg))
    total = page.locator("#pad tr.total").bounding_box()
    assert page.locator("#total").bounding_box()["y"] >= 0
    assert total["y"] + total["height"] <= viewport["height"], total
    shot(page, f"solo-{name}-en")


def test_the_deck_menu_follows_a_language_switch(server, page):
    # It said "standin (built in)" after switching to Czech, until the page was reloaded; and
    # "standin" itself, the deck's key, means nothing to a player: it is the sample deck.
    page.goto(server)
    page.wait_for_function("document.querySelector('#deck option') !== null")
    assert page.text_content("#deck option") == "sample deck (built in)"
    assert page.input_value("#deck") == "standin"  # what the API is sent is still the key
    page.select_option("#lang", "cs")
    page.wait_for_function("document.querySelector('#deck option').textContent === 'ukázkový balíček (vestavěný)'")
    assert not page.errors


@pytest.mark.parametrize("locale", ["en-US", "cs-CZ", "ru-RU", "it-IT"])
def test_the_page_never_scrolls_sideways_on_the_narrowest_phone(server, new_page, locale):
    # 280 px: a folded phone's cover screen. The game-mode and deck menus are as wide as their
    # longest option, and in Czech and Russian they ran past the screen's edge.
    page = new_page(viewport={"width": 280, "height": 653}, locale=locale)
    page.goto(server)
    page.wait_for_function("document.querySelector('#deck option') !== null")
    assert page.evaluate("document.documentElement.scrollWidth") <= 280


@pytest.mark.parametrize("locale", ["en-US", "cs-CZ", "ru-RU", "it-IT"])
@pytest.mark.parametrize("width", [320, 360])
def test_card_names_are_never_broken_inside_a_word_and_the_deck_menu_is_whole_at_320_px(server, new_page, photo_set,
                                                                                          tmp_path, locale, width):
    # At 320 px a card's cell is ~47 px wide: "медведь" broke as "медвед|ь", and the deck menu
    # beside its label showed "пробная колода (встр". At 360 the menu sat beside its label,
    # cut: "ukázkový balíček (vestavěn…" (a walk).
    page = new_page(viewport={"width": width, "height": 640}, locale=locale)
    upload_solo(page, server, write(tmp_path, "p.jpg", photo_set[0].jpeg))
    catalogue = json.loads((STATIC / "i18n" / f"{locale[:2]}.json").read_text())
    words = sorted({w for k, v in catalogue.items() if k.startswith("card.") or k in ("ui.cell_empty", "ui.to_name", "ui.unknown_cell") for w in v.split()})
    broken = page.evaluate("""words => {
        const b = document.querySelector('#solo-tableau .grid button'), span = b.querySelector('span'), out = [];
        for (const cls of ['', 'doubt']) {  // a doubtful cell's border is wider
          b.className = cls;
          for (const w of words) {
            span.textContent = w; fitNames(b.parentElement);
            const range = document.createRange(); range.selectNodeContents(span);
            if (range.getClientRects().length > 1) out.push(w);
          }
        }
        return out; }""", words)
    assert broken == [], broken
    assert page.evaluate("""() => { const s = document.querySelector('#deck'), style = getComputedStyle(s);
        const c = document.createElement('canvas').getContext('2d'); c.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
        return c.measureText(s.options[s.selectedIndex].text).width + 24 <= s.clientWidth; }""")  # 24: the arrow


@pytest.mark.parametrize("locale", ["cs-CZ", "ru-RU"])
def test_a_room_never_scrolls_sideways_on_the_narrowest_phone(server, new_page, locale):
    # A player's own line in the room's list holds their name and two buttons ("Přejmenovat",
    # "Переименовать" and "Убрать"): at 280 px it ran 18-29 px past the edge, and the room's
    # link, one unbroken word, ran past it too. Found by trying the room page at that width; the
    # solo page had its own test.
    page = new_page(viewport={"width": 280, "height": 653}, locale=locale)
    room_id = new_room(page, server)
    ann = put_grid(server, room_id, "annabella", (EXAMPLES / "alice.txt").read_text())
    page.evaluate(f"localStorage.setItem('ecoscore:{room_id}:annabella', '{ann['token']}')")
    page.reload()
    page.wait_for_selector("#room-players li button >> nth=1")
    assert page.evaluate("document.documentElement.scrollWidth") <= 280

    # ... and every control is big enough for a thumb: 40 px a button, a menu or a heading to
    # open, 24 px (WCAG 2.2's least) a link in the pad (a walk at 320 px: Rename 35 px, the pad's
    # names 22 px, the language menu 30 px)
    page.wait_for_selector("#room-pad button.link")
    heights = page.evaluate("""() => [...document.querySelectorAll('button, select, summary, #room-link')]
        .filter((el) => el.getClientRects().length)
        .map((el) => [el.id || el.className || el.tagName, el.tagName, el.classList.contains('link'),
                      el.getBoundingClientRect().height])""")
    heights = [(name, tag, link or tag == "A", h) for name, tag, link, h in heights]  # a link: 24 px
    small = [(name, h) for name, tag, link, h in heights if h < (24 if link else 40) - 0.5]
    assert heights and not small, small


def test_six_players_pad_scrolls_sideways_with_names_fixed(server, page):
    from playwright.sync_api import expect

    room_id = new_room(page, server)
    assert page.evaluate("document.querySelector('#room-view') !== null")
    for k, name in enumerate(["alice", "bruno", "chiara", "dora", "emil"]):  # and this phone's gina, below: six
        put_grid(server, room_id, name, (EXAMPLES / f"{['alice', 'bruno', 'chiara'][k % 3]}.txt").read_text())
    page.wait_for_function("document.querySelector('#room-pad').textContent.includes('emil')", timeout=10000)
    wrap = page.locator("#room-view .pad-wrap")
    assert page.evaluate("(w) => w.scrollWidth > w.clientWidth", wrap.element_handle())
    before = page.locator("#room-pad tbody th >> nth=0").bounding_box()["x"]
    corner = page.locator("#room-pad thead th >> nth=0").bounding_box()["x"]
    page.evaluate("(w) => { w.scrollLeft = 200; }", wrap.element_handle())
    page.wait_for_timeout(100)
    assert page.locator("#room-pad tbody th >> nth=0").bounding_box()["x"] == before
    assert page.locator("#room-pad thead th >> nth=0").bounding_box()["x"] == corner  # the corner stays too
    assert page.evaluate("document.elementFromPoint(%f, %f).closest('th') !== null"
                         % (before + 5, page.locator("#room-pad tbody th >> nth=0").bounding_box()["y"] + 5))
    # This phone's own column (the last to join) is brought into view, and the pad says it scrolls.
    expect(page.locator("#room-pad-scrolls")).to_have_text("Swipe the table sideways to see every player.")
    token = put_grid(server, room_id, "gina", (EXAMPLES / "alice.txt").read_text())["token"]
    page.evaluate(f"localStorage.setItem('ecoscore:{room_id}:gina', '{token}')")
    page.reload()
    page.wait_for_function("document.querySelector('#room-pad').textContent.includes('gina')", timeout=10000)
    page.wait_for_function("""() => { const w = document.querySelector('#room-view .pad-wrap');
        const th = [...document.querySelectorAll('#room-pad thead th')].find((h) => h.textContent.includes('gina'));
        const a = th.getBoundingClientRect(), b = w.getBoundingClientRect(); return a.right <= b.right + 1 && a.left >= b.left; }""",
                           timeout=10000)
    # ... and the column beside the card names is whole: half under them, a total of 40 showed "0" (a walk)
    edge, lefts = page.evaluate("""() => { const hs = [...document.querySelectorAll('#room-pad thead th')];
        const edge = hs[0].getBoundingClientRect().right;
        return [edge, hs.slice(1).filter((h) => h.getBoundingClientRect().right > edge + 1).map((h) => h.getBoundingClientRect().left)]; }""")
    assert lefts and lefts[0] >= edge - 1, (edge, lefts)
    page.goto(server)
    assert page.text_content("#mode option[value=game]") == "3–6 players"


def test_a_long_name_keeps_its_column_in_view_and_the_sideways_hint_follows_a_turned_phone(server, new_page):
    # A one-word name of 40 letters made its column 300 px wide, its numbers off a 360 px screen;
    # and the hint that the pad scrolls sideways stayed as first drawn when the phone was turned
    # (a walk, in Russian).
    from playwright.sync_api import expect

    page = new_page(viewport={"width": 740, "height": 360}, locale="ru-RU")
    room_id = new_room(page, server)
    long = "Оченьдлинноеимяигрокакотороеневлезает123"  # 40 letters, no space to wrap at
    for name, grid in ((long, "alice"), ("Борис", "bruno")):
        put_grid(server, room_id, name, (EXAMPLES / f"{grid}.txt").read_text())
    page.wait_for_function("document.querySelector('#room-pad').textContent.includes('Борис')", timeout=10000)
    expect(page.locator("#room-pad-scrolls")).to_be_hidden()  # landscape: it fits
    page.set_viewport_size({"width": 360, "height": 740})  # turned
    wrap = page.locator("#room-view .pad-wrap")
    width = page.evaluate("""() => [...document.querySelectorAll('#room-pad thead th')][1].getBoundingClientRect().width""")
    assert width < 150, width  # the name wraps: its column is not the name's length
    cut = page.evaluate("(w) => w.scrollWidth > w.clientWidth + 1", wrap.element_handle())
    expect(page.locator("#room-pad-scrolls")).to_be_visible() if cut else expect(page.locator("#room-pad-scrolls")).to_be_hidden()
    # every player's total is on the screen, beside the card names, at the pad's first scroll
    totals = page.evaluate("""() => { const w = document.querySelector('#room-view .pad-wrap').getBoundingClientRect();
        const row = document.querySelector('#room-pad tr.total');
        return [...row.querySelectorAll('td')].map((td) => { const b = td.getBoundingClientRect(); return [b.left >= w.left - 1, b.right <= w.right + 1]; }); }""")
    assert totals[0] == [True, True], totals
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")  # no sideways scroll of the page itself
    shot(page, "room-long-name-ru")
    page.set_viewport_size({"width": 300, "height": 640})  # narrower still: now it scrolls
    page.wait_for_timeout(300)
    if page.evaluate("(w) => w.scrollWidth > w.clientWidth + 1", wrap.element_handle()):
        expect(page.locator("#room-pad-scrolls")).to_be_visible()
    page.set_viewport_size({"width": 740, "height": 360})  # turned back: it fits, and says so no longer
    expect(page.locator("#room-pad-scrolls")).to_be_hidden()
    assert not page.errors


def test_the_empty_cells_doubt_goes_once_its_cells_are_checked(server, page, tmp_path):
    # "2 empty cells (row 1 col 2, row 4 col 4): a mid-game tableau, or a card missed" stayed
    # listed after every card was checked, its cells kept as read (a walk, in Italian).
    from playwright.sync_api import expect

    from ecoscore.datasets.deck import load_deck
    from ecoscore.datasets.scene import SceneParams, render_scene

    params = SceneParams(long_side=2000, p_multi=0.0, p_cut_off=0.0, p_hole=1.0, min_holes=2, max_holes=2,
                         elevation_deg=(70, 90))
    upload_solo(page, server, write(tmp_path, "holes.jpg", render_scene(load_deck("standin"), (61, 0), params).jpeg))
    if page.is_visible("#retake"):
        page.click("#show-anyway")
    line = page.locator("#solo-tableau .doubts li", has_text="empty cells (")
    expect(line).to_have_count(1)
    cells = [[int(n) - 1 for n in m] for m in re.findall(r"row (\d+) col (\d+)", line.text_content())]
    assert len(cells) == 2, line.text_content()
    for k, (r, c) in enumerate(cells):
        page.click(f"#solo-tableau .grid button[data-row='{r}'][data-col='{c}']")
        page.click("#solo-tableau .change")
        page.wait_for_selector("#picker[open]")
        page.click("#keep")
        expect(line).to_have_count(1 if k == 0 else 0)  # gone once both are checked, not before


def test_the_grids_hint_is_a_line_of_its_own_not_part_of_its_bold_heading(server, new_page, photo_set, tmp_path):
    # "Le carte come sono state lette tocca una carta per vedere da dove vengono i suoi punti": the
    # heading and its hint read as one bold sentence (an Italian walk at 360 px).
    page = new_page(viewport=WALK, locale="it-IT")
    upload_solo(page, server, write(tmp_path, "a.jpg", photo_set[0].jpeg))
    title, hint = page.locator("#solo-tableau .grid-title"), page.locator("#solo-tableau .grid-hint")
    t, h = title.bounding_box(), hint.bounding_box()
    assert t["y"] + t["height"] <= h["y"] + 1, (t, h)  # below the heading, not run on after it
    assert int(hint.evaluate("el => getComputedStyle(el).fontWeight")) < 600
    assert int(title.evaluate("el => getComputedStyle(el).fontWeight")) >= 600
    # ... nor part of the heading's name, which a screen reader's list of headings gives (an audit)
    assert hint.evaluate("el => el.closest('h1, h2, h3, h4, h5, h6')") is None
    shot(page, "solo-grid-hint-it")
    assert not page.errors


def test_tap_a_card_to_see_what_earned_its_points_and_biodiversity(server, page, photo_set, tmp_path):
    upload_solo(page, server, write(tmp_path, "p.jpg", photo_set[1].jpeg))
    doc = page.evaluate("fetch('/api/grid', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify("
                        "{players: [{name: 'x', grid: [...document.querySelectorAll('#solo-tableau .grid button')]"
                        ".reduce((rows, b, i) => { (rows[Math.floor(i / 5)] ||= []).push(b.dataset.type || null); return rows; }, [])}]})})"
                        ".then(r => r.json())")
    player = doc["players"][0]
    card = next(c for c in player["explanation"]["cards"] if c["because_of"])
    r, c = card["cell"]
    page.click(f"#solo-tableau .grid button[data-row='{r}'][data-col='{c}']")
    highlighted = page.eval_on_selector_all("#solo-tableau .grid button.cause", "bs => bs.map(b => [+b.dataset.row, +b.dataset.col])")
    assert sorted(highlighted) == sorted(card["because_of"])
    assert sorted(page.eval_on_selector_all("#solo-tableau .marks g.cause", "gs => gs.map(g => [+g.dataset.row, +g.dataset.col])")) == sorted(card["because_of"])
    text = page.text_content("#solo-tableau .card-explain-text")
    # said whatever the points' number ("1 point. The highlighted card earned them.": a review)
    assert f"{card['points']} point" in text and "Thanks to the" in text and "highlighted card" in text
    # a double tap on another card shows its explanation (it opened and closed at once: a walk)
    other = (0, 1) if (r, c) == (0, 0) else (0, 0)
    page.dblclick(f"#solo-tableau .grid button[data-row='{other[0]}'][data-col='{other[1]}']")
    page.wait_for_timeout(100)
    assert page.is_visible("#solo-tableau .card-explain")
    page.click("#pad tbody button.link")
    bio = page.text_content("#bio-explain")
    assert f"{len(player['gaps'])} type" in bio and all(g in bio for g in player["gaps"]) and "+12" in bio


def test_the_biodiversity_said_follows_a_correction_and_the_language(server, page, photo_set, tmp_path):
    # It kept the score before a correction (the pad said 0, beside it "6 types scored nothing,
    # so -5"), and English after a switch to Russian (a walk).
    upload_solo(page, server, write(tmp_path, "p.jpg", photo_set[1].jpeg))
    page.click("#pad tbody button.link")
    grid_now = ("[...document.querySelectorAll('#solo-tableau .grid button')]"
                ".reduce((rows, b, i) => { (rows[Math.floor(i / 5)] ||= []).push(b.dataset.type || null); return rows; }, [])")
    def gaps() -> list:
        doc = page.evaluate(f"fetch('/api/grid', {{method: 'POST', headers: {{'Content-Type': 'application/json'}}, body: JSON.stringify("
                            f"{{players: [{{name: 'x', grid: {grid_now}}}]}})}}).then(r => r.json())")
        return doc["players"][0]["gaps"]
    before = gaps()
    # every card of one kind emptied: that kind now scores nothing
    kind = page.get_attribute("#solo-tableau .grid button[data-type] >> nth=0", "data-type")
    where = page.eval_on_selector_all(f"#solo-tableau .grid button[data-type='{kind}']", "bs => bs.map(b => [b.dataset.row, b.dataset.col])")
    for r, c in where:
        page.click(f"#solo-tableau .marks g[data-row='{r}'][data-col='{c}']")
        page.wait_for_selector("#picker[open]")
        page.click("#choices button[data-type='']")
        page.wait_for_selector("#picker:not([open])", state="hidden")
    after = gaps()
    assert after != before and kind in after
    page.wait_for_function(f"document.querySelector('#bio-explain').textContent.startsWith('Biodiversity: {len(after)} type')")
    page.select_option("#lang", "ru")
    page.wait_for_function("document.querySelector('#bio-explain').textContent.startsWith('Биоразнообразие')")
    # Undo by keyboard to its last step: the focus goes to the grid, in view (it was off the screen: a walk)
    for _ in where:
        page.focus("#solo-tableau .undo")
        page.keyboard.press("Enter")
    page.wait_for_function("document.querySelector('#solo-tableau .undo').disabled")
    assert page.evaluate("(() => { const e = document.activeElement, r = e.getBoundingClientRect();"
                         " return e.closest('.grid') !== null && r.top >= 0 && r.bottom <= innerHeight; })()")


def test_review_the_doubtful_cards_one_at_a_time(server, page, photo_set, reader, tmp_path):
    from playwright.sync_api import expect

    upload_solo(page, server, write(tmp_path, "p.jpg", spoil(photo_set[2].jpeg, reader, 3)))
    n = page.locator("#solo-tableau .grid button.doubt").count()
    assert 2 <= n < 7
    assert page.text_content("#solo-tableau .review") == f"Review the {n} doubtful cards"
    # The headline total is not shown as final while cards are in doubt.
    assert page.is_visible("#unsure") and page.text_content("#unsure").startswith(f"Not final: {n} cards are in doubt")
    assert pad_values(page, "#pad")["total"] == page.text_content("#total") + "?"
    labels_aria = page.get_attribute("#solo-tableau .grid button.doubt >> nth=0", "aria-label")
    # its doubt said, once ("doubtful: low confidence: ..." said it twice: an Italian walk)
    assert ("doubtful:" in labels_aria or "low confidence:" in labels_aria) and "point" in labels_aria
    assert "doubtful: low confidence" not in labels_aria
    page.click("#solo-tableau .review")
    for k in range(1, n + 1):
        page.wait_for_selector("#picker[open]")
        assert page.text_content("#review-step") == f"Doubtful card {k} of {n}"
        # said to a screen reader with the dialog: which card, how far (it heard "This card is…" alone)
        expect(page.locator("#picker")).to_have_accessible_description(re.compile(rf"^Doubtful card {k} of {n} Row \d, column \d"))
        # "Keep as read" holds the focus: an Enter at once keeps the card, never changes it
        assert page.evaluate("document.activeElement.id") == "keep"
        page.click("#keep")
    page.wait_for_function("document.querySelector('#status').textContent === 'All doubtful cards checked.'")
    assert page.locator("#solo-tableau .grid button.doubt").count() == 0
    assert not page.is_visible("#unsure")
    assert pad_values(page, "#pad")["total"] == page.text_content("#total")  # kept as read: sure now
    # Undo takes back the last card kept, not every card reviewed (a player's walk-through)
    page.click("#solo-tableau .undo")
    expect(page.locator("#solo-tableau .grid button.doubt")).to_have_count(1)
    # A card still in doubt is not remembered for a deck as read: said at once, nothing asked or
    # sent (a walk-through: 4 doubtful cards remembered without a word, the deck taught them as read)
    asked = []
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    page.click("#remember")
    expect(page.locator("#remember-status")).to_have_text(
        "Check the doubtful card first (Review): a misread card remembered would teach the deck a wrong picture.")
    assert not asked
    page.click("#solo-tableau .review")  # checked: the refusal goes by itself (it stayed under the button)
    page.wait_for_selector("#picker[open]")
    page.click("#keep")
    expect(page.locator("#remember-status")).to_have_text("")


def test_a_correction_made_offline_is_taken_back_and_the_review_stops(server, page, photo_set, reader, tmp_path):
    # Offline, a card named in Review showed its new name with the old card's points, the error
    # was at once replaced by "All doubtful cards checked", and nothing was ever sent (a walk).
    from playwright.sync_api import expect

    upload_solo(page, server, write(tmp_path, "p.jpg", spoil(photo_set[2].jpeg, reader, 3)))
    doubtful = page.locator("#solo-tableau .grid button.doubt")
    n = doubtful.count()
    assert n >= 2
    r, c = doubtful.first.get_attribute("data-row"), doubtful.first.get_attribute("data-col")
    first = page.locator(f"#solo-tableau .grid button[data-row='{r}'][data-col='{c}']")
    before, total = first.text_content(), page.text_content("#total")
    page.context.set_offline(True)
    page.click("#solo-tableau .review")
    page.wait_for_selector("#picker[open]")
    page.wait_for_timeout(500)  # (the picker takes no tap at once)
    page.click("#choices button[data-type='%s']" % ("bee" if "bear" in before.lower() else "bear"))
    # said beside the tableau, where the player is (the page's status line is off a phone's screen)
    said = page.locator("#solo-tableau .tool-status")
    expect(said).to_have_text(
        "The server cannot be reached: nothing was sent or saved. Try again when you are back online.", timeout=10000)
    page.wait_for_timeout(800)  # no next card, and no "all checked" over the error
    expect(page.locator("#picker")).not_to_have_attribute("open", "")
    assert said.text_content().startswith("The server cannot be reached") and page.text_content("#status") == ""
    expect(doubtful).to_have_count(n)  # the card as read, still in doubt, and the total as it was
    assert first.text_content() == before and page.text_content("#total") == total
    page.context.set_offline(False)  # back online: the error goes
    expect(said).to_have_text("", timeout=10000)
    # An Undo that cannot be scored undoes nothing: it took back two steps (a review)
    choice = "bee" if "bear" in before.lower() else "bear"
    first.click()
    page.click("#solo-tableau .change")
    page.wait_for_selector("#picker[open]")
    page.wait_for_timeout(500)
    page.click(f"#choices button[data-type='{choice}']")
    expect(page.locator("#status")).to_have_text("Score updated with your correction.", timeout=10000)
    named = doubtful.count()
    page.context.set_offline(True)
    page.click("#solo-tableau .undo")
    expect(page.locator("#solo-tableau .tool-status")).to_contain_text("The server cannot be reached", timeout=10000)
    expect(page.locator("#solo-tableau .grid button.doubt")).to_have_count(named)
    assert choice in first.text_content().lower()
    assert page.is_enabled("#solo-tableau .undo")


@pytest.mark.parametrize("then", ["correct", "undo"])
@pytest.mark.parametrize("first_fails_first", [True, False])
def test_two_quick_changes_that_cannot_be_scored_are_both_taken_back(server, page, photo_set, reader, tmp_path,
                                                                     first_fails_first, then):
    # Two corrections while the network failed: only the second was taken back, and the first
    # stayed on the card beside the old points, shown as done (a walk, left from the session
    # before); a correction and its Undo brought the correction back (a review).
    from playwright.sync_api import expect
    scene = photo_set[0]
    read = reader.read(scene.jpeg).tableaux[0]
    upload_solo(page, server, write(tmp_path, "tableau.jpg", scene.jpeg))
    before, total = labels(page), page.text_content("#total")
    held = []
    page.route("**/api/grid?*", lambda route: held.append(route))
    for col in (0, 1) if then == "correct" else (0,):
        card = read.tableau.cells[col]
        page.click(f"#solo-tableau .marks g[data-row='0'][data-col='{col}']")
        page.click(f"#choices button[data-type='{'fox' if card is not CardType.FOX else 'wolf'}']")
        wait_until_held(page, held, count=col + 1)  # the second's too (a loaded CI run looked before it came)
        assert len(held) == col + 1 and labels(page)[(0, col)] != before[(0, col)]
    if then == "undo":
        page.click("#solo-tableau .undo")
        for _ in range(50):
            if len(held) == 2:
                break
            page.wait_for_timeout(100)
        assert len(held) == 2 and labels(page) == before
    for route in (held if first_fails_first else held[::-1]):
        route.abort("internetdisconnected")
    expect(page.locator("#solo-tableau .tool-status")).to_contain_text("cannot be reached", timeout=10000)
    page.wait_for_timeout(500)
    assert labels(page) == before and page.text_content("#total") == total
    assert page.is_disabled("#solo-tableau .undo")  # nothing scored to go back on
    page.unroute("**/api/grid?*")
    page.reload()  # and kept so: the page's saved work is the read as it came
    expect(page.locator("#total")).to_have_text(total, timeout=30000)
    assert labels(page) == before


def test_a_change_scored_after_the_next_was_made_is_kept_when_the_next_fails(server, page, photo_set, reader, tmp_path):
    # A correction's score came back after a second one was made, and was thrown away: the second
    # failing took both back, to before the first (a review). The first was scored: it stays, with
    # its score, and only the second is taken back.
    from playwright.sync_api import expect
    scene = photo_set[0]
    read = reader.read(scene.jpeg).tableaux[0]
    upload_solo(page, server, write(tmp_path, "tableau.jpg", scene.jpeg))
    before = labels(page)
    held = []
    page.route("**/api/grid?*", lambda route: held.append(route))
    chosen = []
    for col in (0, 1):
        chosen.append(CardType.FOX if read.tableau.cells[col] is not CardType.FOX else CardType.WOLF)
        page.click(f"#solo-tableau .marks g[data-row='0'][data-col='{col}']")
        page.click(f"#choices button[data-type='{chosen[col].value}']")
        wait_until_held(page, held, count=col + 1)
        assert len(held) == col + 1
    with page.expect_response("**/api/grid?*"):
        held[0].continue_()  # the first is scored, its answer after the second was made
    page.wait_for_timeout(800)  # its answer read and taken
    held[1].abort("internetdisconnected")
    expect(page.locator("#solo-tableau .tool-status")).to_contain_text("cannot be reached", timeout=10000)
    first = score_tableau(Tableau([chosen[0], *read.tableau.cells[1:]])).total
    expect(page.locator("#total")).to_have_text(str(first))
    now = labels(page)
    assert now[(0, 0)].split(" ")[0] == chosen[0].value and now[(0, 1)].split(" ")[0] == before[(0, 1)].split(" ")[0]
    assert pad_values(page, "#pad")["total"] == str(first)
    assert page.is_enabled("#solo-tableau .undo")  # the first's step, to undo
    page.unroute("**/api/grid?*")
    page.reload()  # and kept so
    expect(page.locator("#total")).to_have_text(str(first), timeout=30000)
    assert labels(page) == now
    page.click("#solo-tableau .undo")
    expect(page.locator("#total")).to_have_text(str(score_tableau(read.tableau).total), timeout=10000)
    assert labels(page) == before
    assert not page.errors


def test_a_room_correction_made_offline_is_taken_back_not_shown_as_saved(server, page, photo_set, reader, tmp_path):
    # Offline, a correction in a room was shown (its total as if final) and never sent: a reload
    # brought the old read back (a walk).
    from playwright.sync_api import expect

    room_id = new_room(page, server)
    add_to_room(page, "Ann", write(tmp_path, "ann.jpg", spoil(photo_set[2].jpeg, reader, 3)))
    expect(page.locator("#room-status")).to_contain_text("Added Ann's tableau", timeout=30000)
    doubtful = page.locator("#mine .grid button.doubt")
    n = doubtful.count()
    assert n >= 1
    before = doubtful.first.text_content()
    page.context.set_offline(True)
    page.click("#mine .review")
    page.wait_for_selector("#picker[open]")
    page.wait_for_timeout(500)
    page.click("#choices button[data-type='%s']" % ("bee" if "bear" in before.lower() else "bear"))
    said = page.locator("#mine .tool-status")  # beside the tableau, where the player is
    expect(said).to_have_text(
        "The server cannot be reached: nothing was sent or saved. Try again when you are back online.", timeout=10000)
    page.wait_for_timeout(800)
    assert said.text_content().startswith("The server cannot be reached")
    expect(doubtful).to_have_count(n)
    assert doubtful.first.text_content() == before
    assert page.text_content("#room-pad tr.total td").endswith("?")
    page.context.set_offline(False)
    expect(said).to_have_text("", timeout=10000)
    assert not get_room(server, room_id)["game"]["players"][0].get("corrected")


def reload_holding(page, held, the_page):
    """A reload while a request held by the test is on its way: the page leaves ("beforeunload"),
    the held request fails in the page still there, then the reload comes in (as in
    test_a_reload_while_a_correction_is_scored_keeps_the_correction)."""
    reloads = []
    page.route(the_page, lambda route: reloads.append(route))
    page.evaluate("setTimeout(() => location.reload())")
    wait_until_held(page, reloads)
    with page.expect_event("requestfailed"):
        held[0].abort()
    page.wait_for_timeout(500)  # (its failure handled there: the page is not to be asked, on its way out)
    return reloads[0]


def room_with_ann(page, server, tmp_path, jpeg) -> str:
    """A new room with Ann's tableau added from ``jpeg``; its id."""
    from playwright.sync_api import expect

    room_id = new_room(page, server)
    add_to_room(page, "Ann", write(tmp_path, "ann.jpg", jpeg))
    expect(page.locator("#room-status")).to_contain_text("Added Ann's tableau", timeout=30000)
    return room_id


def correct_first_card_held(page, server, room_id):
    """Ann's first card corrected on the page, its write held (``page.route``) before it leaves:
    (Ann as the room had her, the type asked, the held routes, the routes' pattern)."""
    before = get_room(server, room_id)["game"]["players"][0]
    new_type = "fox" if before["grid"][0][0] == "wolf" else "wolf"
    held, writes = [], "**/api/rooms/*/players/*/grid?*"
    page.route(writes, lambda route: held.append(route))
    page.click("#mine .marks g[data-row='0'][data-col='0']")
    page.click(f"#choices button[data-type='{new_type}']")
    wait_until_held(page, held)
    return before, new_type, held, writes


def reload_and_see_nothing_written_again(page, held, writes, server, room_id, version) -> None:
    """The page reloaded after its held write landed (its answer lost): no write is sent again,
    the room's version stays, and nothing is said."""
    reload = reload_holding(page, held, lambda url: urlsplit(url).path == f"/r/{room_id}")
    page.unroute(writes)
    sent = []
    page.on("request", lambda request: sent.append(request.url) if request.method == "PUT" else None)
    reload.continue_()
    page.wait_for_selector("#mine .tableau .marks g", timeout=30000)
    page.wait_for_timeout(1500)  # (a write sent again would be on its way by now)
    assert not sent and get_room(server, room_id)["version"] == version
    assert page.text_content("#room-status") == ""


def test_a_reload_while_a_room_correction_is_written_keeps_the_correction(server, new_page, photo_set, tmp_path):
    # A room's correction whose write had not reached the service when the page reloaded (a thumb,
    # the phone's camera taking the page down) was lost without a word: the reload showed the room
    # as the service had it. It is written again once the page is back, and said so.
    from playwright.sync_api import expect

    page = new_page(service_workers="block")  # (a service worker would fetch the reload's page unseen by page.route)
    room_id = room_with_ann(page, server, tmp_path, photo_set[1].jpeg)
    before, new_type, held, writes = correct_first_card_held(page, server, room_id)
    reload = reload_holding(page, held, lambda url: urlsplit(url).path == f"/r/{room_id}")
    assert get_room(server, room_id)["game"]["players"][0]["grid"] == before["grid"]  # (not written: else this proves nothing)
    page.unroute(writes)
    reload.continue_()
    page.wait_for_selector("#mine .tableau .marks g", timeout=30000)
    ann = room_player_when(server, room_id, "Ann", lambda p: p["grid"][0][0] == new_type)
    expect(page.locator("#room-status")).to_have_text("Your correction that had not reached the room is saved now.", timeout=10000)
    assert all(ann["grid"][r][c] == before["grid"][r][c] for r in range(4) for c in range(5) if (r, c) != (0, 0))  # that card alone
    assert labels(page, "#mine")[(0, 0)].startswith(new_type)
    expect(page.locator("#room-pad tr.total td")).to_have_text(re.compile(rf"^{ann['total']}\??$"))
    assert not page.evaluate("Object.keys(sessionStorage).filter((k) => k.startsWith('ecoscore:room-write:'))")
    assert not page.errors


def test_a_room_correction_that_landed_before_a_reload_is_not_written_again(server, new_page, photo_set, tmp_path):
    # Its write reached the service, its answer did not reach the page (lost to the reload): the
    # page back finds the room holding it already, and neither writes it again (the tableau's version
    # moved on, and the player's other phone met a 409 for nothing) nor says anything of it.

    page = new_page(service_workers="block")
    room_id = room_with_ann(page, server, tmp_path, photo_set[1].jpeg)
    _, new_type, held, writes = correct_first_card_held(page, server, room_id)
    assert held[0].fetch().ok  # the write reaches the service; its answer never reaches the page
    landed = get_room(server, room_id)
    assert landed["game"]["players"][0]["grid"][0][0] == new_type
    reload_and_see_nothing_written_again(page, held, writes, server, room_id, landed["version"])
    assert labels(page, "#mine")[(0, 0)].startswith(new_type)
    assert not page.evaluate("Object.keys(sessionStorage).filter((k) => k.startsWith('ecoscore:room-write:'))")
    assert not page.errors


def room_marks(page):
    """The room writes marked in the tab's storage (``markWrite``), by key."""
    return page.evaluate("Object.keys(sessionStorage).filter((k) => k.startsWith('ecoscore:room-write:'))")


def test_a_room_keep_that_landed_before_a_reload_is_not_written_again(server, new_page, photo_set, reader, tmp_path):
    # A doubtful card kept as read, its write landed and its answer lost to a reload: the page back
    # wrote it again (and the player's other phone met a 409 for nothing). The room shows a kept
    # card's doubts emptied, and the check of what landed looked for a kept card among the cells in
    # doubt: whenever the player had a card kept, every write that landed seemed not to have.
    from playwright.sync_api import expect

    page = new_page(service_workers="block")
    room_id = new_room(page, server)
    add_to_room(page, "Ann", write(tmp_path, "ann.jpg", spoil(photo_set[2].jpeg, reader, 3)))
    expect(page.locator("#room-status")).to_contain_text("Added Ann's tableau", timeout=30000)
    r, c = page.eval_on_selector("#mine .grid button.doubt", "b => [+b.dataset.row, +b.dataset.col]")
    held, writes = [], "**/api/rooms/*/players/*/grid?*"
    page.route(writes, lambda route: held.append(route))
    page.click(f"#mine .marks g[data-row='{r}'][data-col='{c}']")
    page.click("#keep")
    wait_until_held(page, held)
    assert held[0].fetch().ok  # the keep reaches the service; its answer never reaches the page
    landed = get_room(server, room_id)
    ann = landed["game"]["players"][0]
    assert ann["kept"] == [[r, c]] and not ann["cells"][r][c]["doubts"]  # (kept, its doubts shown emptied)
    reload_and_see_nothing_written_again(page, held, writes, server, room_id, landed["version"])
    assert page.locator(f"#mine .grid button.doubt[data-row='{r}'][data-col='{c}']").count() == 0
    assert not room_marks(page)
    assert not page.errors


def test_a_damaged_room_write_mark_is_dropped_and_stops_no_other_from_being_written(server, new_page, photo_set, tmp_path):
    # One mark in the tab's storage that was not JSON (another player's, on this phone) stopped
    # every other mark from being written again after a reload, and stayed there for good.
    from playwright.sync_api import expect

    page = new_page(service_workers="block")
    room_id = room_with_ann(page, server, tmp_path, photo_set[1].jpeg)
    damaged = f"ecoscore:room-write:{room_id}:Zed"
    page.evaluate("(k) => sessionStorage.setItem(k, '{bad')", damaged)
    before, new_type, held, writes = correct_first_card_held(page, server, room_id)
    assert sorted(room_marks(page)) == sorted([damaged, f"ecoscore:room-write:{room_id}:Ann"])
    reload = reload_holding(page, held, lambda url: urlsplit(url).path == f"/r/{room_id}")
    assert get_room(server, room_id)["game"]["players"][0]["grid"] == before["grid"]  # (not written: else this proves nothing)
    page.unroute(writes)
    reload.continue_()
    page.wait_for_selector("#mine .tableau .marks g", timeout=30000)
    room_player_when(server, room_id, "Ann", lambda p: p["grid"][0][0] == new_type)
    expect(page.locator("#room-status")).to_have_text("Your correction that had not reached the room is saved now.", timeout=10000)
    assert labels(page, "#mine")[(0, 0)].startswith(new_type)
    assert not room_marks(page)  # the damaged one too
    assert not page.errors


def test_a_room_correction_that_failed_in_a_leave_that_did_not_happen_is_written_once_the_page_is_used(server, new_page,
                                                                                                       photo_set, tmp_path):
    # A leave begun and not made (a link that downloads, a leave cancelled): a room write that
    # failed meanwhile was neither said nor taken back (as one failed by a reload), its mark stayed,
    # and the next poll showed the room without the correction. The page used again writes it.
    from playwright.sync_api import expect

    page = new_page(service_workers="block")
    room_id = room_with_ann(page, server, tmp_path, photo_set[1].jpeg)
    before, new_type, held, writes = correct_first_card_held(page, server, room_id)
    page.evaluate("dispatchEvent(new Event('beforeunload'))")  # a leave begun, and not made
    with page.expect_event("requestfailed"):
        held[0].abort()
    page.unroute(writes)
    page.wait_for_timeout(2500)  # (a poll meanwhile)
    assert get_room(server, room_id)["game"]["players"][0]["grid"] == before["grid"]  # (not written: else this proves nothing)
    assert room_marks(page) == [f"ecoscore:room-write:{room_id}:Ann"]
    page.click("#room-view h2")  # the page used again
    ann = room_player_when(server, room_id, "Ann", lambda p: p["grid"][0][0] == new_type)
    assert all(ann["grid"][r][c] == before["grid"][r][c] for r in range(4) for c in range(5) if (r, c) != (0, 0))
    page.wait_for_function("!writing('Ann')", timeout=10000)
    assert labels(page, "#mine")[(0, 0)].startswith(new_type)
    expect(page.locator("#room-pad tr.total td")).to_have_text(re.compile(rf"^{ann['total']}\??$"))
    assert not room_marks(page)
    assert not page.errors


def test_a_room_correction_queued_behind_one_that_met_a_new_photo_is_dropped(server, new_page, photo_set, tmp_path):
    # Two quick corrections, and the player's other phone replaced the photo while the first was on
    # its way: the first met a 409, found the new photo and said so, and the second, queued behind
    # it, was written all the same: the old photo's grid over the new photo's read.
    from playwright.sync_api import expect

    page = new_page(service_workers="block")
    room_id = room_with_ann(page, server, tmp_path, photo_set[1].jpeg)
    old = get_room(server, room_id)["game"]["players"][0]
    first, second = ("fox" if old["grid"][0][c] == "wolf" else "wolf" for c in (0, 1))
    held, sent, writes = [], [], "**/api/rooms/*/players/*/grid?*"
    page.route(writes, lambda route: route.continue_() if held else held.append(route))  # the first held
    page.on("request", lambda request: sent.append(request.url) if request.method == "PUT" else None)
    page.click("#mine .marks g[data-row='0'][data-col='0']")
    page.click(f"#choices button[data-type='{first}']")
    wait_until_held(page, held)
    page.click("#mine .marks g[data-row='0'][data-col='1']")
    page.click(f"#choices button[data-type='{second}']")
    page.wait_for_timeout(300)
    assert len(sent) == 1  # (the second waits for the first's answer)
    # The other phone: a new photo of Ann's, with her token, on the tableau as it saw it
    token, version = page.evaluate("localStorage.getItem(tokenKey('Ann'))"), get_room(server, room_id)["versions"]["Ann"]
    answer = page.request.post(f"{server}/api/rooms/{room_id}/photo", timeout=60000,
                               headers={"X-Player-Token": token, "If-Match": f'"{version}"'},
                               multipart={"name": "Ann", "photo": {"name": "other.jpg", "mimeType": "image/jpeg",
                                                                   "buffer": photo_set[2].jpeg}})
    assert answer.ok, answer.text()
    replaced = get_room(server, room_id)
    new = replaced["game"]["players"][0]
    written = [[{(0, 0): first, (0, 1): second}.get((r, c), t) for c, t in enumerate(row)] for r, row in enumerate(old["grid"])]
    assert new["photo_url"] != old["photo_url"] and new["grid"] != written  # (else this proves nothing)
    held[0].continue_()  # answered 409: the tableau moved on
    expect(page.locator("#room-status")).to_have_text("Your tableau was replaced from another phone meanwhile: check it again.",
                                                      timeout=10000)
    page.wait_for_function("!writing('Ann')", timeout=10000)
    page.wait_for_timeout(1000)  # (a write queued behind would be on its way by now)
    assert len(sent) == 1
    now = get_room(server, room_id)
    assert now["version"] == replaced["version"] and now["game"]["players"][0]["grid"] == new["grid"]
    expect(page.locator("#room-status")).to_have_text("Your tableau was replaced from another phone meanwhile: check it again.")
    assert not room_marks(page)
    assert not page.errors


def test_a_double_tap_in_review_checks_one_card_not_the_next_unseen(server, page, photo_set, reader, tmp_path):
    # The next card's picker opened under a double tap's second tap, which kept (or named) that
    # card unseen and marked it checked (a walk: taps 130 ms apart).
    from playwright.sync_api import expect

    upload_solo(page, server, write(tmp_path, "p.jpg", spoil(photo_set[2].jpeg, reader, 3)))
    n = page.locator("#solo-tableau .grid button.doubt").count()
    assert n >= 2
    page.click("#solo-tableau .review")
    page.wait_for_selector("#picker[open]")
    page.wait_for_timeout(600)  # the player looks at the card
    box = page.locator("#keep").bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.click(x, y)
    page.wait_for_timeout(130)
    page.mouse.click(x, y)
    page.wait_for_timeout(600)
    expect(page.locator("#review-step")).to_have_text(f"Doubtful card 2 of {n}")
    expect(page.locator("#solo-tableau .grid button.doubt")).to_have_count(n - 1)
    page.mouse.click(x, y)  # a tap once it has been seen: taken
    expect(page.locator("#solo-tableau .grid button.doubt")).to_have_count(n - 2)


def test_share_copies_the_link_bot_from_a_photo_and_others_reads(server, new_page, photo_set, tmp_path):
    page = new_page(viewport={"width": 1366, "height": 768}, mobile=False, permissions=["clipboard-read", "clipboard-write"])
    page.add_init_script("Object.defineProperty(navigator, 'share', {value: undefined})")
    room_id = new_room(page, server)  # a game room: Share copies its link
    page.click("#share")
    page.wait_for_function("document.querySelector('#room-status').textContent.startsWith('Link copied')")
    link = page.evaluate("navigator.clipboard.readText()")
    assert link == page.get_attribute("#room-link", "href") and link.endswith(f"/r/{room_id}")
    room_id = new_room(page, server, "solo")  # a solo room invites no one: its code and link, to add the tableau with a phone
    page.wait_for_selector("#share", state="hidden")
    assert page.is_visible("#qr") and page.get_attribute("#room-link", "href").endswith(f"/r/{room_id}")
    page.set_input_files("#bot-file", write(tmp_path, "bot.jpg", photo_set[3].jpeg))
    page.wait_for_function("document.querySelector('#bot-status').textContent.startsWith(\"The bot's grid was read\")", timeout=30000)
    assert len(page.input_value("#bot-grid").split("\n")) == 4
    english = page.input_value("#bot-grid")
    page.select_option("#lang", "it")  # the grid's names follow the language chosen (they stayed English)
    page.wait_for_function(f"document.querySelector('#bot-grid').value !== {json.dumps(english)}", timeout=10000)
    assert page.input_value("#bot-grid").split() != english.split() and len(page.input_value("#bot-grid").split("\n")) == 4
    page.select_option("#lang", "en")
    page.wait_for_function(f"document.querySelector('#bot-grid').value === {json.dumps(english)}", timeout=10000)
    other = new_page()  # the solo room's one player joins from another phone
    other.goto(f"{server}/r/{room_id}")
    other.fill("#player-name", "ugo")
    with other.expect_file_chooser() as chooser:
        other.click("#add-photo")
    chooser.value.set_files(write(tmp_path, "ugo.jpg", photo_set[4].jpeg))
    other.wait_for_selector("#mine .tableau", timeout=30000)
    # ugo's photo and grid, seen from the first phone (no token: to look at, not to correct)
    page.wait_for_function("document.querySelector('#room-pad').textContent.includes('ugo')", timeout=10000)
    assert "bot" in page.text_content("#room-pad thead")
    page.click("#room-pad thead button:text-is('ugo')")
    page.wait_for_selector("#others .tableau .marks g")
    assert page.text_content("#others .tableau-title").startswith("ugo:")
    assert page.locator("#others .tools").is_hidden()
    shot(page, "room-desktop-en")


def test_the_bots_photo_and_the_players_own_sent_at_once_are_both_read(server, page, photo_set, tmp_path):
    # The bot's photo shared the player's upload: sent while the player's was on its way, it
    # cancelled it, and the player's photo was lost without a word (a review).
    new_room(page, server, "solo")
    page.fill("#player-name", "anna")
    page.set_input_files("#room-photo", write(tmp_path, "anna.jpg", photo_set[2].jpeg))
    page.wait_for_selector("#room-upload:not([hidden])")  # still on its way (a read takes a while) ...
    page.set_input_files("#bot-file", write(tmp_path, "bot.jpg", photo_set[3].jpeg))  # ... as the bot's is sent
    page.wait_for_function("document.querySelector('#bot-status').textContent.startsWith(\"The bot's grid was read\")", timeout=60000)
    page.wait_for_selector("#mine .tableau", timeout=60000)
    assert "anna" in page.text_content("#room-pad thead") and "bot" in page.text_content("#room-pad thead")


def test_a_bots_grid_read_in_doubt_is_not_saved_and_its_doubts_are_said(server, page, tmp_path):
    # A game night's walk: the bot's grid from a photo of three tableaux (or a dark one) was saved
    # with "check it" alone, its doubts dropped, and the solo game said won or lost as final.
    from playwright.sync_api import expect

    from ecoscore.datasets.deck import load_deck
    from ecoscore.datasets.effects import LightParams
    from ecoscore.datasets.scene import SceneParams, render_scene

    params = SceneParams(long_side=2000, p_multi=1.0, tableaux=(3, 3), p_cut_off=0.0, p_hole=0.0, fill=(0.85, 0.95),
                         elevation_deg=(70, 90), loose_cards=(0, 0), light=LightParams(p_motion=0.0, p_defocus=0.0))
    three = render_scene(load_deck("standin"), (53, 0), params)
    new_room(page, server, "solo")
    puts = []
    page.on("request", lambda r: r.method == "PUT" and r.url.split("?")[0].endswith("/bot") and puts.append(r.url))
    page.set_input_files("#bot-file", write(tmp_path, "bot.jpg", three.jpeg))
    status = page.locator("#bot-status")
    expect(status).to_contain_text("Not saved: the bot's grid read from the photo is in doubt (", timeout=60000)
    expect(status).to_contain_text("this photo holds 3 tableaux: the first was taken")  # which, and what to do
    assert len(page.input_value("#bot-grid").splitlines()) == 4 and not puts  # to check, not saved
    assert page.evaluate("document.activeElement.id") == "bot-grid"
    page.click("#save-bot")  # the player's word, after checking it
    expect(status).to_have_text("Saved.", timeout=10000)
    assert len(puts) == 1 and get_room(server, page.url.rsplit("/", 1)[1])["bot"]
    assert not page.errors


def test_a_bots_grid_refused_is_said_in_the_bots_box_in_the_players_language(server, page):
    # "bot: Таблица — это 4 ряда..." in the room's status: the service's "bot" left in English (a walk).
    from playwright.sync_api import expect

    new_room(page, server, "solo")
    page.select_option("#lang", "ru")
    page.fill("#bot-grid", "fox fox fox fox fox\nbear bear bear bear bear")
    page.click("#save-bot")
    expect(page.locator("#bot-status")).to_have_class(re.compile("error"))
    said = page.text_content("#bot-status")
    assert said and not said.lower().startswith("bot") and re.search("[а-я]", said), said
    # an upload's size in the page's language too ("214 kB" in a Russian page: a walk)
    assert page.evaluate("[sizeText(214000), sizeText(1234567)]") == ["214 кБ", "1,2 МБ"]
    assert page.get_attribute("#bot-grid", "wrap") == "off"  # a line a row, not wrapped into eight at 320 px


CONTRAST = """() => {
  const parse = (c) => { const m = c.match(/rgba?\\(([^)]+)\\)/); if (!m) return null; const v = m[1].split(',').map(Number); return {r: v[0], g: v[1], b: v[2], a: v.length > 3 ? v[3] : 1}; };
  const lum = ({r, g, b}) => { const f = (x) => { x /= 255; return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4; }; return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  const bg = (el) => { for (; el; el = el.parentElement) { const c = parse(getComputedStyle(el).backgroundColor); if (c && c.a > 0.5) return c; } return {r: 255, g: 255, b: 255}; };
  const bad = [];
  for (const el of document.querySelectorAll('body *')) {
    if (el.closest('svg, [hidden], dialog:not([open])') || el.disabled || el.closest('button:disabled')) continue;
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own || !el.getClientRects().length) continue;
    const style = getComputedStyle(el);
    if (style.visibility === 'hidden' || +style.opacity < 0.99) continue;
    const fg = parse(style.color), b = bg(el);
    const [hi, lo] = [lum(fg), lum(b)].sort((x, y) => y - x);
    const ratio = (hi + 0.05) / (lo + 0.05);
    if (ratio < 4.5) bad.push(`${el.tagName}.${el.className} "${el.textContent.trim().slice(0, 30)}" ${ratio.toFixed(2)}`);
  }
  return bad;
}"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_contrast_of_all_text_light_and_dark(server, new_page, photo_set, reader, tmp_path, scheme):
    page = new_page(color_scheme=scheme)
    upload_solo(page, server, write(tmp_path, "p.jpg", spoil(photo_set[2].jpeg, reader, 3)))
    page.click("#solo-tableau .grid button >> nth=0")
    page.click("#pad tbody button.link")
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == ("rgb(20, 26, 21)" if scheme == "dark" else "rgb(246, 244, 238)")
    assert page.evaluate(CONTRAST) == []
    shot(page, f"solo-phone-en-{scheme}")


@pytest.fixture()
def deck_server(tmp_path, reader, monkeypatch):
    monkeypatch.setenv("ECOSCORE_DATA", str(tmp_path / "data"))  # the decks this server knows
    srv, thread, url = start_server(tmp_path, reader)
    yield url
    srv.should_exit = True
    thread.join(10)


needs_matcher = pytest.mark.skipif(not (Path(__file__).resolve().parent.parent / "models" / "matcher.onnx").is_file(),
                                   reason="the shipped matcher is not in models/")


def unseen_deck(held_out: int):
    """A deck no training run has seen, and the photos its tests take of it (one tableau, whole)."""
    from ecoscore.datasets.deckgen import HELD_OUT_SEEDS, generate_deck
    from ecoscore.datasets.scene import SceneParams

    return generate_deck(HELD_OUT_SEEDS[held_out]), SceneParams(long_side=2000, p_multi=0.0, p_cut_off=0.0, p_hole=0.0,
                                                                  elevation_deg=(60, 90))


def photo_where(deck, params, seed: int, keep):
    """The first photo of ``deck`` (seeds ``(seed, 0), (seed, 1)``...) whose tableau's set of card
    types ``keep`` accepts."""
    from ecoscore.datasets.scene import render_scene

    scenes = (render_scene(deck, (seed, k), params) for k in range(100))
    return next(s for s in scenes if keep({c["type"] for c in s.truth["tableaux"][0]["cells"]} - {None}))


def review_to_name(page, server, path) -> None:
    """A photo of a deck the page does not read sent from the start page, its cells laid out to
    name ("Name the cards of my deck"), and the review walk opened on the first card."""
    from playwright.sync_api import expect

    page.goto(server)
    page.set_input_files("#file", path)
    expect(page.locator("#teach")).to_be_visible(timeout=60000)
    page.click("#teach-start")
    expect(page.locator("#result")).to_be_visible(timeout=60000)
    page.click("#solo-tableau .review")


def kitchen_that_reads(page, server):
    """A deck "kitchen" of an unseen deck started from one photo of every type (it reads), the page
    opened: (the deck, its photos' settings, that photo, the start's answer with its token)."""
    deck, params = unseen_deck(53)
    first = photo_where(deck, params, 43, lambda types: len(types) == len(CardType))
    started = post_deck_photo(server, "kitchen", first)
    page.goto(server)
    return deck, params, first, started


def post_deck_photo(server, name: str, scene, title: str = "") -> dict:
    """A photo's cards added to deck ``name`` with its true grid, as the page's "remember" sends
    them (and ``ecoscore deck add --photo --grid`` takes them); ``title``: the name as typed."""
    from ecoscore.datasets.truth import truth_tableau
    from ecoscore.scoring import format_text

    boundary = "ecoscoreboundary"
    titled = f'--{boundary}\r\nContent-Disposition: form-data; name="title"\r\n\r\n{title}\r\n' if title else ""
    body = (f'{titled}--{boundary}\r\nContent-Disposition: form-data; name="grid"\r\n\r\n'
            f'{format_text(truth_tableau(scene.truth["tableaux"][0]))}\r\n'
            f'--{boundary}\r\nContent-Disposition: form-data; name="photo"; filename="a.jpg"\r\n'
            f'Content-Type: image/jpeg\r\n\r\n').encode() + scene.jpeg + f"\r\n--{boundary}--\r\n".encode()
    request = urllib.request.Request(f"{server}/api/decks/{name}/photo", body, method="POST",
                                     headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})
    with urllib.request.urlopen(request) as response:
        return json.loads(response.read())


@needs_matcher
def test_a_room_says_what_the_deck_this_phone_is_teaching_still_lacks(deck_server, page, tmp_path):
    # A deck taught from one photo lacked three types, so the start page's menu did not offer it,
    # and the room's refusal said "teach it once ..., choose it there": it could not be chosen (a
    # Russian walk). The room now says which types the deck still needs.
    from playwright.sync_api import expect

    from ecoscore.datasets.scene import render_scene

    deck, params = unseen_deck(57)
    first = photo_where(deck, params, 61, lambda types: 6 <= len(types) < len(CardType))
    started = post_deck_photo(deck_server, "nas-stul", first, title="Náš stůl")
    assert not started["complete"] and started["missing"]
    page.goto(deck_server)
    page.evaluate("([token]) => { localStorage.setItem('ecoscore-deck-token:nas-stul', token);"
                  " localStorage.setItem('ecoscore-deck-building', 'nas-stul'); }", [started["token"]])
    new_room(page, deck_server)
    add_to_room(page, "Ann", write(tmp_path, "table.jpg", render_scene(deck, (62, 0), params).jpeg))
    missing = ", ".join(started["missing"])
    expect(page.locator("#room-status")).to_contain_text(
        f"Your deck Náš stůl is still being taught: it has no {missing} cards yet", timeout=60000)
    expect(page.locator("#room-status")).not_to_contain_text("choose it there")
    assert not page.errors


@needs_matcher
def test_a_players_own_deck_chosen_on_the_page_and_taught_by_a_corrected_photo(deck_server, page, tmp_path):
    from playwright.sync_api import expect

    from ecoscore.datasets.scene import render_scene
    from ecoscore.datasets.truth import truth_tableau

    deck, params = unseen_deck(53)
    first = photo_where(deck, params, 43, lambda types: len(types) == len(CardType))
    second = render_scene(deck, (44, 0), params)
    started = post_deck_photo(deck_server, "kitchen", first)  # as the page's "remember" sends it
    assert started["complete"]

    page.goto(deck_server)
    # This phone started it (it holds the token): another phone's deck is not in its menu.
    page.evaluate(f"localStorage.setItem('ecoscore-deck-token:kitchen', '{started['token']}')")
    page.reload()
    expect(page.locator("#deck option")).to_have_count(2)
    page.select_option("#deck", "kitchen")
    page.set_input_files("#file", write(tmp_path, "second.jpg", second.jpeg))
    expect(page.locator("#result")).to_be_visible(timeout=30000)
    truth_total = score_tableau(truth_tableau(second.truth["tableaux"][0])).total
    expect(page.locator("#total")).to_have_text(str(truth_total))
    page.reload()  # the choice is this phone's: it stays
    expect(page.locator("#deck")).to_have_value("kitchen")
    # A photo of the built-in deck read with this one: the page says the deck may be the wrong
    # one, in its own words (its Deck menu, not the command line's --deck). Where some cells name a
    # card of the deck it is a read, its retake box saying so, not "teach your deck these cards" (a
    # walk-through); where none does there is nothing to score, and the refusal says it first.
    from ecoscore.datasets.deck import load_deck

    builtin = render_scene(load_deck("standin"), (44, 1), params)
    page.set_input_files("#file", write(tmp_path, "builtin.jpg", builtin.jpeg))
    page.wait_for_function("!document.querySelector('#retake').hidden"
                           " || document.querySelector('#status').classList.contains('error')", timeout=30000)
    read_anyway = page.is_visible("#retake")  # some cells named a card of the deck
    if read_anyway:
        expect(page.locator("#retake-advice")).to_contain_text("is the photo read against the wrong deck?")
        expect(page.locator("#retake-advice")).not_to_contain_text("too few pictures")
        expect(page.locator("#retake-advice")).to_contain_text("Choose your deck (Deck, on the start page)")
        expect(page.locator("#retake-advice")).not_to_contain_text("command line")
    else:
        status = page.text_content("#status")
        # (case aside: each clause of an error is shown as a sentence)
        assert "none reads as a card of the deck kitchen" in status and "choose the right deck (deck)" in status.lower(), status
        assert "command line" not in status and "--deck" not in status
    page.set_input_files("#file", write(tmp_path, "second.jpg", second.jpeg))
    expect(page.locator("#result")).to_be_visible(timeout=30000)
    # A phone that did not start the deck (its token gone; the deck stays in its menu while it is
    # the one chosen) cannot teach it, so it is asked for a deck of its own; the name given is
    # taken (said beside the button: the page's status line is out of view).
    page.evaluate("localStorage.removeItem('ecoscore-deck-token:kitchen')")
    if not read_anyway:  # ... nor is it offered to teach it (a newcomer's run): a deck of its own, or another deck
        page.set_input_files("#file", write(tmp_path, "builtin.jpg", builtin.jpeg))
        expect(page.locator("#status")).to_contain_text("None of these cards reads as a card of deck kitchen, which this "
                                                        "phone cannot teach (it was enrolled elsewhere)", timeout=30000)
        page.set_input_files("#file", write(tmp_path, "second.jpg", second.jpeg))
        expect(page.locator("#status")).not_to_have_class(re.compile("error"), timeout=30000)
    page.click("#remember")
    answer(page, "Kitchen")
    expect(page.locator("#remember-status")).to_contain_text("A deck named 'Kitchen' exists already", timeout=30000)
    page.evaluate(f"localStorage.setItem('ecoscore-deck-token:kitchen', '{started['token']}')")
    expect(page.locator("#remember-hint")).to_be_visible()  # "Check the grid first": before it is remembered
    page.click("#remember")
    expect(page.locator("#remember-status")).to_have_text("40 cards in deck kitchen: photos are now read with it.",
                                                          timeout=30000)
    expect(page.locator("#remember-hint")).to_be_hidden()  # not over the grid just remembered (a newcomer's walk)
    shot(page, "deck-remembered")


@needs_matcher
def test_a_card_corrected_to_the_wrong_type_is_not_remembered_without_asking(deck_server, page, tmp_path):
    # A deck that reads already judges a remembered photo's grid by its own cards: a card
    # corrected to the wrong type would be taught as named and read so on every later photo.
    from playwright.sync_api import expect

    from ecoscore.datasets.scene import render_scene

    deck, params, _, started = kitchen_that_reads(page, deck_server)
    page.evaluate(f"localStorage.setItem('ecoscore-deck-token:kitchen', '{started['token']}')")
    page.reload()
    page.select_option("#deck", "kitchen")
    second = render_scene(deck, (44, 0), params)
    page.set_input_files("#file", write(tmp_path, "second.jpg", second.jpeg))
    expect(page.locator("#result")).to_be_visible(timeout=30000)
    if page.is_visible("#solo-tableau .review"):  # every doubtful card kept as read first
        page.click("#solo-tableau .review")
        while page.is_visible("#picker[open]") or page.locator("#solo-tableau .grid button.doubt").count():
            page.wait_for_selector("#picker[open]")
            page.click("#keep")
            page.wait_for_timeout(200)
    grid = page.evaluate("solo.view.grid")
    r, c = next((i, j) for i in range(4) for j in range(5) if grid[i][j])
    wrong = next(t.value for t in CardType if t.value != grid[r][c])
    page.click(f"#solo-tableau .grid button[data-row='{r}'][data-col='{c}']")
    page.click("#solo-tableau .change")
    page.click(f"#choices button[data-type='{wrong}']")
    page.wait_for_function(f"solo.view.grid[{r}][{c}] === '{wrong}'")
    page.click("#remember")
    page.wait_for_selector("#confirm[open]", timeout=30000)
    # each cell said with what the deck's cards show there (it said "the cards here" of them all)
    asked = page.text_content("#confirm-text")
    assert re.fullmatch(rf"Row {r + 1}, column {c + 1}: named {wrong}, but your deck's cards show {grid[r][c]} "
                        r"\((9[5-9]|100) %\)\. A wrong correction\? Check it, or remember the photo anyway\.", asked), asked
    expect(page.locator("#confirm-yes")).to_have_text("Remember anyway")
    # the safe answer is an Enter's (the risky one had the focus and the colour: a walk)
    assert page.evaluate("document.activeElement.id") == "confirm-no"
    page.keyboard.press("Enter")  # check first: nothing sent again, said beside the button
    expect(page.locator("#remember-status")).to_have_text(asked)
    # ... and the cell to check is chosen on the grid, with the focus
    assert page.evaluate("[document.activeElement.dataset.row, document.activeElement.dataset.col]") == [str(r), str(c)]
    expect(page.locator("#solo-tableau .card-explain")).to_be_visible()
    page.select_option("#lang", "cs")  # said again in the language chosen since
    expect(page.locator("#remember-status")).to_contain_text(f"Řada {r + 1}, sloupec {c + 1}: karta pojmenovaná jako ")
    page.select_option("#lang", "en")
    # A card changed: the clash is no longer what the grid says, and is not said any more.
    page.click("#solo-tableau .change")
    # what it is now and what it was read as, the read first (it said "read as" the wrong type
    # given, and "Keep as read" kept that: a walk)
    expect(page.locator("#picker-cell")).to_have_text(f"Row {r + 1}, column {c + 1}: changed to {wrong} "
                                                      f"(read as {grid[r][c]})")
    expect(page.locator("#keep")).to_be_hidden()
    assert page.evaluate("document.activeElement.dataset.type") == grid[r][c]
    page.keyboard.press("Enter")
    expect(page.locator("#remember-status")).to_have_text("")
    page.click("#solo-tableau .change")  # the wrong type again: asked again
    page.click(f"#choices button[data-type='{wrong}']")
    expect(page.locator("#status")).to_have_text("Score updated with your correction.")
    page.click("#remember")
    page.wait_for_selector("#confirm[open]", timeout=30000)
    page.click("#confirm-yes")
    expect(page.locator("#remember-status")).to_contain_text("cards in deck kitchen", timeout=30000)
    # the correction's word is done with: it stayed above, the deck's news far below (a walk)
    expect(page.locator("#status")).to_have_text("")


@needs_matcher
def test_a_grid_that_clashes_with_the_deck_and_lumps_a_type_is_asked_about_both_at_once(deck_server, page, tmp_path):
    # "Remember anyway" answered the deck's clash alone and passed the grid's unlike cards unasked
    # (one 409 at a time): a deck that reads was taught twenty meadows. The page now asks both.
    _, _, first, started = kitchen_that_reads(page, deck_server)
    asked = page.evaluate("""async ([jpeg, token]) => {
      const form = new FormData();
      form.append("photo", new Blob([Uint8Array.from(atob(jpeg), (ch) => ch.charCodeAt(0))], { type: "image/jpeg" }), "a.jpg");
      form.append("grid", Array(4).fill("meadow meadow meadow meadow meadow").join("\\n"));
      form.append("as_read", "true");
      try { await api("POST", "/api/decks/kitchen/photo", form, { "X-Deck-Token": token }); return null; }
      catch (err) { const [text, cells] = askedAnyway(err); return [err.code, text, cells.length]; }
    }""", [base64.b64encode(first.jpeg).decode(), started["token"]])
    assert asked is not None and asked[0] == "deck_clash", asked
    assert "but your deck's cards show" in asked[1] and "cards named meadow look like several different cards" in asked[1], asked
    assert asked[2] > 20  # the clashing cells, then the meadow cards' own


@needs_matcher
def test_a_new_decks_cards_named_from_another_photos_grid_are_asked_about_before_remembering(deck_server, page,
                                                                                            tmp_path):
    # A newcomer named a photo's cells from another photo's grid: the page taught the new deck
    # those pictures without a word, and the next photo's guesses were 7 of 8 wrong (`deck add`
    # refuses the same photo and grid). Asked now, each odd card with the type it looks like.
    import re

    from playwright.sync_api import expect

    deck, params = unseen_deck(56)
    first = photo_where(deck, params, 48, lambda types: len(types) == len(CardType))
    other = photo_where(deck, params, 50, lambda types: len(types) >= 9)
    wrong = [c["type"] for c in sorted(other.truth["tableaux"][0]["cells"], key=lambda c: (c["row"], c["col"]))]
    review_to_name(page, deck_server, write(tmp_path, "table.jpg", first.jpeg))
    for _ in range(20):
        r, c = map(int, re.fullmatch(r"Row (\d+), column (\d+): not named yet",
                                     page.locator("#picker-cell").inner_text()).groups())
        page.click(f"#choices button[data-type='{wrong[(r - 1) * 5 + c - 1] or ''}']")
    expect(page.locator("#status")).to_have_text("All cards named.")
    page.click("#remember")
    answer(page, "Kuchyně")
    page.wait_for_selector("#confirm[open]", timeout=60000)
    asked = page.text_content("#confirm-text")
    # (a type named for cards of several types is said first, as a whole: "The 8 cards named meadow...")
    assert re.match(r"(The \d+ cards named [a-z]+ look like several different cards in the photo, not one\. )?"
                    r"Row \d, column \d: named [a-z]+, but in the photo it looks most like a card named [a-z]+\. ",
                    asked), asked
    assert asked.endswith("Named wrong? Check them, or remember the photo anyway (if the art is too fine to tell apart "
                          "from this far)."), asked
    page.keyboard.press("Enter")  # check first: nothing learnt, said beside the button, the first card chosen
    expect(page.locator("#remember-status")).to_have_text(asked)
    first_cell = re.search(r"Row (\d), column (\d)", asked).groups()
    assert page.evaluate("[document.activeElement.dataset.row, document.activeElement.dataset.col]") == [
        str(int(first_cell[0]) - 1), str(int(first_cell[1]) - 1)]
    assert [o for o in page.evaluate("[...document.querySelectorAll('#deck option')].map((o) => o.value)")
            if o != "standin"] == []
    page.click("#remember")
    answer(page, "Kuchyně")  # (no deck made: its name asked again)
    page.wait_for_selector("#confirm[open]", timeout=60000)
    page.click("#confirm-yes")  # the player is sure (art too fine to tell apart): remembered as named
    expect(page.locator("#remember-status")).to_contain_text("20 cards in deck Kuchyně", timeout=60000)


@needs_matcher
def test_a_new_decks_cards_all_named_one_type_are_asked_about_before_remembering(deck_server, page, tmp_path):
    # Every card named meadow has no card of another type to be judged by: it was remembered
    # without a word. Asked now, the type said as a whole; "check first" chooses its first card.
    import re

    from playwright.sync_api import expect

    deck, params = unseen_deck(56)
    first = photo_where(deck, params, 48, lambda types: len(types) == len(CardType))
    review_to_name(page, deck_server, write(tmp_path, "table.jpg", first.jpeg))
    for _ in range(20):
        expect(page.locator("#picker-cell")).to_contain_text("not named yet")
        page.click("#choices button[data-type='meadow']")
    expect(page.locator("#status")).to_have_text("All cards named.")
    page.click("#remember")
    answer(page, "Louka")
    page.wait_for_selector("#confirm[open]", timeout=60000)
    asked = page.text_content("#confirm-text")
    assert re.fullmatch(r"The 20 cards named meadow look like several different cards in the photo, not one\. Named "
                        r"wrong\? Check them, or remember the photo anyway \(if the art is too fine to tell apart from "
                        r"this far\)\.", asked), asked
    page.keyboard.press("Enter")  # check first: nothing learnt, the type's first card chosen
    expect(page.locator("#remember-status")).to_have_text(asked)
    assert page.evaluate("[document.activeElement.dataset.row, document.activeElement.dataset.col]") == ["0", "0"]


@needs_matcher
def test_cards_still_to_name_are_never_labelled_with_a_cut_word(deck_server, new_page, tmp_path):
    # "назвать" (to name) cut to "назва." on the photo read as a broken word (a walk, in Russian, at
    # 390 px): where it does not fit its card, a "?" is drawn.
    from playwright.sync_api import expect

    deck, params = unseen_deck(56)
    photo = photo_where(deck, params, 48, lambda types: len(types) >= 9)
    page = new_page(viewport={"width": 390, "height": 844}, locale="ru-RU")
    page.goto(deck_server)
    page.set_input_files("#file", write(tmp_path, "table.jpg", photo.jpeg))
    expect(page.locator("#teach")).to_be_visible(timeout=60000)
    page.click("#teach-start")
    expect(page.locator("#result")).to_be_visible(timeout=60000)
    drawn = [text for text, _ in drawn_labels(page)]
    # (cards too narrow for it at 390 px; a card the finder missed, read as an empty place, is
    # labelled so, a whole word: on an AVX2 CPU's float32 one of the 20 was)
    assert "?" in drawn and set(drawn) <= {"назвать", "?", "", "пусто"}, drawn


@needs_matcher
def test_naming_a_photo_cut_by_the_frame_says_the_places_not_read_when_every_card_found_is_named(deck_server, page,
                                                                                                 tmp_path):
    # "All cards named." beside cells reading "unknown" (a bear the frame cut: a walk, in Russian):
    # the places not read are said, to name or leave empty.
    import re

    from conftest import cut_through_right_column
    from playwright.sync_api import expect

    deck, params = unseen_deck(56)
    photo = photo_where(deck, params, 48, lambda types: len(types) >= 9)
    review_to_name(page, deck_server, write(tmp_path, "cut.jpg", cut_through_right_column(photo)))
    while page.locator("#picker[open]").count():
        expect(page.locator("#picker-cell")).to_contain_text("not named yet")
        page.click("#choices button[data-type='meadow']")
        page.wait_for_timeout(100)
    unread = sum(text == "unknown" for text in labels(page).values())
    assert unread >= 4, labels(page)  # the right column, outside the photo
    expect(page.locator("#status")).to_have_text(re.compile(
        rf"^Every card found is named\. {unread} places were not read \(outside the photo, or no card found there\)"))


@needs_matcher
def test_a_new_player_starts_their_deck_from_a_photo_no_deck_reads(deck_server, page, tmp_path):
    # A player's own deck photographed with the page as it comes (the stand-in deck chosen):
    # every card is "not a card of this deck" and there was no read to correct, so "remember
    # these cards" was out of reach. Now the page offers the photo's cells to name; the player
    # names each card in the review walk, remembers them, and the next photo reads with the deck.
    import re

    import numpy as np
    from playwright.sync_api import expect

    from ecoscore.datasets.scene import render_scene
    from ecoscore.datasets.truth import truth_tableau

    deck, params = unseen_deck(56)
    first = photo_where(deck, params, 48, lambda types: len(types) == len(CardType))
    second = render_scene(deck, (49, 0), params)

    # In a game room first: the refusal points to the start page, opened beside the room.
    new_room(page, deck_server)
    page.fill("#player-name", "Ann")
    with page.expect_file_chooser() as chooser:
        page.click("#add-photo")
    chooser.value.set_files(write(tmp_path, "table.jpg", first.jpeg))
    expect(page.locator("#room-status")).to_contain_text("Your own deck? Teach it on the start page", timeout=60000)
    expect(page.locator("#room-status")).not_to_contain_text("command line")
    expect(page.locator("#room-teach")).to_be_visible()
    assert page.get_attribute("#room-teach", "target") == "_blank"
    page.goto(f"{deck_server}{page.get_attribute('#room-teach', 'href')}")  # the tab it opens says what to do
    expect(page.locator("#status")).to_have_text("To teach your deck: choose the photo of your tableau here "
                                                 "(Take a photo or Choose a file); the page then offers to name its cards.")

    page.goto(deck_server)
    page.set_input_files("#file", write(tmp_path, "table.jpg", first.jpeg))
    expect(page.locator("#status")).to_contain_text("do not read as cards of this deck", timeout=60000)
    # what to do, on the page: its button (the reader's "--deck on the command line" was beside it)
    expect(page.locator("#status")).to_contain_text("if it is your own deck, teach the page its cards (Name the cards of my deck)")
    expect(page.locator("#status")).not_to_contain_text("command line")
    expect(page.locator("#teach")).to_be_visible()
    shot(page, "deck-teach-offer")
    # A reload (the phone dropping the page as its camera opens) keeps the refusal, the offer and
    # the photo to name: they were gone, the photo with them (a walk).
    page.reload()
    expect(page.locator("#teach")).to_be_visible(timeout=30000)
    expect(page.locator("#status")).to_contain_text("do not read as cards of this deck")
    page.click("#teach-start")
    expect(page.locator("#result")).to_be_visible(timeout=60000)
    expect(page.locator("#retake")).to_be_hidden()
    expect(page.locator("#status")).to_contain_text("choose its name")
    review = page.locator("#solo-tableau .review")
    expect(review).to_have_text("Name or check the 20 cards one by one")
    # Nothing named yet: each cell is "to name" (they read "empty"), and no score is shown for a
    # grid still being named (a blank grid scored "-5?" before any card was named).
    assert set(labels(page).values()) == {"to name"}
    assert "no points yet" in page.get_attribute("#solo-tableau .grid button >> nth=0", "aria-label")  # not "0 points"
    expect(page.locator("#result h2.total")).to_be_hidden()
    levels = page.evaluate(HEADING_LEVELS)  # the tableau's sections step up to h2, the total not shown
    assert levels[0][0] == 1 and all(b[0] - a[0] <= 1 for a, b in zip(levels, levels[1:])), levels
    expect(page.locator("#pad")).to_be_hidden()
    expect(page.locator("#provisional")).to_be_hidden()  # nor what it would say of a score
    expect(page.locator("#unsure")).to_have_text("20 cards still to name: the score shows once every card has a name.")
    expect(page.locator("#remember-hint")).to_be_hidden()  # "Check the grid first": no grid to check yet
    page.click("#remember")  # nothing named yet: said at once, nothing sent
    expect(page.locator("#remember-status")).to_have_text("Name every card first: 20 cards have no name yet.")
    # A card set to empty (what a player does with a box the finder put on a bare gap) is
    # settled: counted as Review counts it (it blocked "remember" for good: a walk-through).
    # "Keep as read" is not offered for a card not named: it kept it empty, silently (a walk).
    expect(page.locator("#solo-tableau .grid-hint")).to_have_text("tap a card to name it")
    expect(page.locator("#solo-tableau .grid-title")).to_have_text("The cards you name")  # not "The grid read" (a walk)
    page.click("#solo-tableau .grid button[data-row='0'][data-col='0']")  # its picker at once (it took two taps)
    # a card still to name is not said to be empty, nor offered "empty" as what it is now (a walk)
    expect(page.locator("#picker-cell")).to_have_text("Row 1, column 1: not named yet")
    expect(page.locator("#keep")).to_be_hidden()
    expect(page.locator("#choices button.current")).to_have_count(0)
    page.click("#choices button[data-type='']")
    page.click("#remember")
    expect(page.locator("#remember-status")).to_have_text("Name every card first: 19 cards have no name yet.")
    expect(review).to_have_text("Name or check the 19 cards one by one")
    # The player names each card as they see it: the card lying where the page outlines the cell.
    quads = page.evaluate("solo.view.read.cells.map((row) => row.map((cell) => cell.quad))")
    truth = first.truth["tableaux"][0]["cells"]
    lying = {(r, c): min(truth, key=lambda t: np.linalg.norm(np.mean(t["cell_corners"], 0) - np.mean(q, 0)))["type"]
             for r, row in enumerate(quads) for c, q in enumerate(row)}
    review.click()
    for step in range(19):
        if step == 10:  # the page dropped mid-walk (a phone's camera opened, a reload): nothing named is lost
            # the tenth name scored first (the next card's picker opens then): its total was read
            # while its answer was on the way once, and the reload brought the answer's
            expect(page.locator("#review-step")).to_have_text("Card 11 of 19")
            named = labels(page)
            assert sum(text == "to name" for text in named.values()) == 9 and named[(0, 0)] == "empty", named
            page.reload()
            expect(review).to_have_text("Name or check the 9 cards one by one", timeout=30000)
            assert labels(page) == named
            expect(page.locator("#result h2.total")).to_be_hidden()
            review.click()
        expect(page.locator("#review-step")).to_have_text(f"Card {step % 10 + 1} of {19 if step < 10 else 9}")
        expect(page.locator("#crop")).to_be_visible()  # the cell's own picture, to name it by
        r, c = map(int, re.fullmatch(r"Row (\d+), column (\d+): not named yet",  # not "read as empty"
                                     page.locator("#picker-cell").inner_text()).groups())
        page.click(f"#choices button[data-type='{lying[(r - 1, c - 1)]}']")
    expect(page.locator("#status")).to_have_text("All cards named.")  # naming: nothing was doubtful (a walk)
    expect(page.locator("#result h2.total")).to_be_visible()  # every card named: the score
    expect(page.locator("#provisional")).to_be_visible()
    assert "to name" not in labels(page).values()
    # Still the cards the player names, all named ("The cards as read": nothing was read, a Russian
    # walk), and going back clears the names, said so; Undo brings them back.
    expect(page.locator("#solo-tableau .grid-title")).to_have_text("The cards you name")
    named_all = labels(page)
    page.click("#solo-tableau .revert")
    expect(page.locator("#solo-tableau .tool-status")).to_have_text("Every name cleared: the cards are to name again.")
    assert set(labels(page).values()) == {"to name"}
    page.click("#solo-tableau .undo")
    expect(page.locator("#solo-tableau .tool-status")).to_have_text("“Clear the names” undone: your names are back.")
    assert labels(page) == named_all
    page.click("#solo-tableau .marks g[data-row='0'][data-col='0']")  # the card kept empty, named after all (on the photo)
    page.click(f"#choices button[data-type='{lying[(0, 0)]}']")
    expect(page.locator("#total")).to_have_text(str(score_tableau(truth_tableau(first.truth["tableaux"][0])).total))
    # a deck's name in any of the players' scripts (a Russian name was refused)
    assert page.evaluate("['Мой лес', 'Moje kuchyň', 'Объём'].map(deckSlug)") == ["moj-les", "moje-kuchyn", "obem"]
    page.click("#remember")
    page.fill("#ask-value", "!!!")  # no letter: asked again, why said in the dialog (it closed, said below the button)
    page.press("#ask-value", "Enter")
    expect(page.locator("#ask-status")).to_have_text("A deck's name needs letters or digits, e.g. kitchen.")
    expect(page.locator("#ask")).to_have_attribute("open", "")
    answer(page, "Moje kuchyň")
    # The deck is called as the player named it, in the menu too; its key is the slug.
    expect(page.locator("#remember-status")).to_have_text("20 cards in deck Moje kuchyň: photos are now read with it.",
                                                          timeout=60000)
    expect(page.locator("#deck option:checked")).to_have_text("Moje kuchyň")
    # the focus where it was (disabled while sent, the button let it fall to the page's top: a walk)
    assert page.evaluate("document.activeElement.id") == "remember"
    expect(page.locator("#status")).not_to_have_text("All cards named.")  # done with (it stayed)
    page.reload()  # the photo, its names and "forget" are still there
    expect(page.locator("#total")).to_have_text(str(score_tableau(truth_tableau(first.truth["tableaux"][0])).total),
                                                timeout=30000)
    # Taken back (a card named wrong): the deck held only these cards, so it is gone, once asked
    # (it was gone unasked: a walk); then again.
    page.click("#forget")
    page.wait_for_selector("#confirm[open]")
    assert page.text_content("#confirm-text").startswith("These are all the cards deck Moje kuchyň knows")
    page.click("#confirm-no")  # kept
    expect(page.locator("#forget")).to_be_visible()
    page.click("#forget")
    page.wait_for_selector("#confirm[open]")
    page.click("#confirm-yes")
    expect(page.locator("#remember-status")).to_have_text("Deck Moje kuchyň is forgotten: it held only this photo's cards.")
    expect(page.locator("#deck")).to_have_value("standin")
    expect(page.locator("#forget")).to_be_hidden()
    page.click("#remember")
    answer(page, "Moje kuchyň")
    expect(page.locator("#remember-status")).to_have_text("20 cards in deck Moje kuchyň: photos are now read with it.",
                                                          timeout=60000)
    expect(page.locator("#deck")).to_have_value("moje-kuchyn")
    expect(page.locator("#deck option:checked")).to_have_text("Moje kuchyň")
    expect(page.locator("#forget")).to_be_visible()
    # Remembered again (a double tap): not sent, said, and Forget still takes the photo's cards back
    # (sent, it added nothing, and that empty add became the deck's last: Forget was gone, a walk)
    sent = []
    page.on("request", lambda r: "/api/decks/moje-kuchyn/photo" in r.url and sent.append(r.url))
    page.click("#remember")
    expect(page.locator("#remember-status")).to_have_text("These cards are in deck Moje kuchyň already. Forget them "
                                                          "(beside), or correct a card and remember again.")
    expect(page.locator("#forget")).to_be_visible()
    assert sent == []
    page.set_input_files("#file", write(tmp_path, "second.jpg", second.jpeg))
    expect(page.locator("#total")).to_have_text(str(score_tableau(truth_tableau(second.truth["tableaux"][0])).total),
                                                timeout=60000)
    expect(page.locator("#remember-status")).to_have_text("")  # the last photo's deck news is not this one's
    shot(page, "deck-started-from-a-photo")


@needs_matcher
def test_a_photo_taken_while_the_last_is_laid_out_to_name_shows_alone(deck_server, page, photo_set, tmp_path):
    # A photo of a deck being built goes straight to naming; a newer photo taken while its cells
    # were on their way left the older one's refusal and "Name the cards" offer over the newer
    # read (a review): a tap on it named the older photo's cards over the newer one's score.
    from playwright.sync_api import expect

    deck, params = unseen_deck(58)
    first = photo_where(deck, params, 54, lambda types: len(types) < len(CardType))
    started = post_deck_photo(deck_server, "puda", first, title="Půda")
    other = photo_where(deck, params, 56, lambda types: True)
    page.goto(deck_server)
    page.evaluate(f"localStorage.setItem('ecoscore-deck-building', 'puda'); "
                  f"localStorage.setItem('ecoscore-deck-token:puda', '{started['token']}')")
    page.reload()
    held = []
    page.route("**/api/layout*", lambda route: held.append(route))  # the cells on their way, held there
    page.set_input_files("#file", write(tmp_path, "theirs.jpg", other.jpeg))
    deadline = time.time() + 60
    while not held and time.time() < deadline:
        page.wait_for_timeout(100)
    assert held, "the photo of the deck being built did not go to naming"
    page.set_input_files("#file", write(tmp_path, "standin.jpg", photo_set[1].jpeg))  # ... a newer photo
    expect(page.locator("#total")).to_be_visible(timeout=60000)
    for route in held:  # the older one's answer comes late (aborted by the page: nothing to answer)
        try:
            route.fulfill(status=503, content_type="application/json", body=json.dumps({"detail": "late"}))
        except Exception:  # noqa: BLE001 - the request was aborted by the page already
            pass
    page.wait_for_timeout(1500)
    expect(page.locator("#teach")).to_be_hidden()
    expect(page.locator("#status")).not_to_have_class(re.compile("error"))
    expect(page.locator("#total")).to_be_visible()


@needs_matcher
def test_a_half_built_decks_next_photo_comes_with_its_guesses_to_confirm(deck_server, page, tmp_path):
    # The second photo of a deck being taught came back with all 20 cells to name again (a walk):
    # the deck, half built, read nothing. Now the cards it names surely come named, marked "?",
    # the rest are to name, and its guesses are remembered only once the player says they are right.
    import numpy as np
    from playwright.sync_api import expect

    deck, params = unseen_deck(58)
    first = photo_where(deck, params, 54, lambda types: len(types) < len(CardType))
    started = post_deck_photo(deck_server, "puda", first, title="Půda")
    lacking = set(started["missing"])
    # cards of types it lacks too, and a bare place (no card to name there)
    holed = dataclasses.replace(params, p_hole=1.0, min_holes=1, max_holes=2)
    second = photo_where(deck, holed, 55, lambda types: bool(types & lacking))
    page.goto(deck_server)
    page.evaluate(f"localStorage.setItem('ecoscore-deck-building', 'puda'); "
                  f"localStorage.setItem('ecoscore-deck-token:puda', '{started['token']}')")
    page.reload()
    expect(page.locator("#deck-note")).to_contain_text("Deck Půda is being built")  # its name as typed
    sent = []
    page.on("request", lambda r: "/api/decks/puda/photo" in r.url and sent.append(r.url))
    # Its cells not laid out (the service busy): the refusal and its offer to name them, to try again.
    page.route("**/api/layout*", lambda route: route.fulfill(status=503, content_type="application/json",
                                                            body=json.dumps({"detail": "busy reading photos"})))
    page.set_input_files("#file", write(tmp_path, "second.jpg", second.jpeg))
    expect(page.locator("#teach")).to_be_visible(timeout=60000)
    expect(page.locator("#status")).to_contain_text("do not read as cards of this deck")
    page.unroute("**/api/layout*")
    page.set_input_files("#file", write(tmp_path, "second.jpg", second.jpeg))
    # The built-in deck is chosen, and does not read these cards: the photo goes straight to its
    # cells to name, with no refusal first (a walk: every photo after the first met a red one).
    expect(page.locator("#result")).to_be_visible(timeout=60000)
    expect(page.locator("#teach")).to_be_hidden()
    expect(page.locator("#status")).not_to_have_class(re.compile("error"))
    marks = labels(page)
    quads = page.evaluate("solo.view.read.cells.map((row) => row.map((cell) => cell.quad))")
    truth = second.truth["tableaux"][0]["cells"]
    lying = {(r, c): min(truth, key=lambda t: np.linalg.norm(np.mean(t["cell_corners"], 0) - np.mean(q, 0)))["type"]
             for r, row in enumerate(quads) for c, q in enumerate(row)}
    guessed = {rc: text[:-1] for rc, text in marks.items() if text.endswith("?")}
    assert len(guessed) >= 8 and all(guessed[rc] == lying[rc] for rc in guessed), (guessed, lying)
    assert not any(lying[rc] in lacking for rc in guessed)  # a type the deck lacks: never guessed
    found = page.evaluate("solo.view.read.cells.map((row) => row.map((cell) => cell.card))")
    bare = {(r, c) for r, row in enumerate(found) for c, card in enumerate(row) if not card}
    assert bare and not bare & set(guessed), (bare, guessed)
    # a bare place reads as empty, in doubt (it was "to name", as a card is: a walk)
    assert all(text == ("empty" if rc in bare else "to name") for rc, text in marks.items() if rc not in guessed), marks
    expect(page.locator("#status")).to_have_text(f"Deck Půda knows {len(guessed)} of these cards already (marked with ?): "
                                                 "check them on the photo, name the others, then Remember these cards "
                                                 "for my deck.")
    review = page.locator("#solo-tableau .review")
    expect(review).to_have_text("Name or check the 20 cards one by one")  # the guesses to check too
    expect(page.locator("#unsure")).to_contain_text(f"{20 - len(guessed) - len(bare)} cards still to name")
    # A guess checked on its own: the picker says whose guess it is, and "keep" confirms it.
    (r0, c0) = sorted(guessed)[0]
    # A screen reader hears the guess in words (a bare "?" is read out as nothing).
    expect(page.locator(f"#solo-tableau .grid button[data-row='{r0}'][data-col='{c0}']")).to_have_attribute(
        "aria-label", re.compile(rf"^{guessed[(r0, c0)]}, a guess, .*; row {r0 + 1}, column {c0 + 1}\b"))
    # ... and a card to name's row and column once (its doubt said them again: a walk)
    (rn, cn) = sorted(set(lying) - set(guessed) - bare)[0]
    spoken = page.get_attribute(f"#solo-tableau .grid button[data-row='{rn}'][data-col='{cn}']", "aria-label")
    assert spoken.startswith("to name") and f"; row {rn + 1}, column {cn + 1}" in spoken and spoken.count("row ") == 1, spoken
    page.click(f"#solo-tableau .marks g[data-row='{r0}'][data-col='{c0}']")
    expect(page.locator("#picker-cell")).to_have_text(f"Row {r0 + 1}, column {c0 + 1}: {guessed[(r0, c0)]}, "
                                                      "as deck Půda reads it (a guess)")
    page.click("#keep")
    assert labels(page)[(r0, c0)] == guessed[(r0, c0)]
    # Each card found named on the photo; the bare places are left as they are: a card the finder
    # missed teaches the deck nothing, so they do not hold "remember" up (they did: a walk).
    for (r, c) in sorted(set(lying) - set(guessed) - bare):
        page.click(f"#solo-tableau .marks g[data-row='{r}'][data-col='{c}']")
        page.click(f"#choices button[data-type='{lying[(r, c)] or ''}']")
    # A card named is named, not "changed to fox (read as empty)" with "empty" offered first (a review).
    (rn, cn) = sorted(set(lying) - set(guessed) - bare)[0]
    page.click(f"#solo-tableau .marks g[data-row='{rn}'][data-col='{cn}']")
    expect(page.locator("#picker-cell")).to_have_text(f"Row {rn + 1}, column {cn + 1}: named {lying[(rn, cn)]}")
    expect(page.locator("#keep")).to_be_visible()
    page.click("#keep")
    expect(review).to_have_text(f"Review the {len(bare) + len(guessed) - 1} doubtful cards")  # bare places, guesses
    expect(page.locator("#result h2.total")).to_be_visible()  # every card named: the score, in doubt for the bare places
    expect(page.locator("#total-unsure")).to_be_visible()  # ... and the guesses not confirmed yet
    (rb, cb) = sorted(bare)[0]
    page.click(f"#solo-tableau .grid button[data-row='{rb}'][data-col='{cb}']")
    expect(page.locator("#solo-tableau .card-explain-text")).to_have_text(
        f"Row {rb + 1}, col {cb + 1}: no card found here: name it if one lies there, else keep it empty.")
    # Remembered only once the player says the deck's guesses are right.
    page.click("#remember")
    expect(page.locator("#confirm")).to_be_visible()
    expect(page.locator("#confirm-text")).to_have_text(f"Deck Půda named {len(guessed) - 1} cards of this photo itself "
                                                       "(marked with ?). Are they all right? A card named wrong teaches "
                                                       "the deck a wrong picture.")
    page.click("#confirm-no")
    expect(page.locator("#remember-status")).to_have_text(f"Check the {len(guessed) - 1} cards marked with ? on the "
                                                          "photo: tap one to change it.")
    assert not sent
    shot(page, "deck-guesses-to-confirm")
    page.click("#remember")
    page.click("#confirm-yes")
    n = sum(started["references"].values()) + sum(lying[(r, c)] is not None and card for r, row in enumerate(found)
                                                  for c, card in enumerate(row))
    expect(page.locator("#remember-status")).to_contain_text(f"{n} cards in deck Půda", timeout=60000)
    assert len(sent) == 1 and not any(text.endswith("?") for text in labels(page).values())


@needs_matcher
def test_remembering_cards_read_with_a_deck_enrolled_elsewhere_says_they_start_this_phones_own(deck_server, page, tmp_path):
    # A walk, in Czech: a deck enrolled with `ecoscore deck add` chosen, a read checked, "Remember
    # these cards" asked only "Name your deck", its own name given was refused as taken, and
    # another name started a second, half-built deck without a word of why.
    from playwright.sync_api import expect

    from ecoscore.datasets.scene import render_scene
    from ecoscore.vision.deckstore import default_store

    deck, params = unseen_deck(58)
    default_store().add("stul", deck.faces, "enrolled on the server", title="Náš stůl")
    page.goto(deck_server)
    expect(page.locator("#deck option")).to_have_count(2)
    page.select_option("#deck", "stul")
    page.set_input_files("#file", write(tmp_path, "a.jpg", render_scene(deck, (61, 0), params).jpeg))
    expect(page.locator("#result")).to_be_visible(timeout=30000)
    review = page.locator("#solo-tableau .review")
    if review.is_visible():  # every doubtful card kept as read: the read is checked
        review.click()
        while page.locator("#picker[open]").count():
            page.click("#keep")
            page.wait_for_timeout(100)
    expect(page.locator("#solo-tableau .grid button.doubt")).to_have_count(0)
    page.click("#remember")
    page.wait_for_selector("#ask[open]")
    expect(page.locator("#ask-text")).to_have_text("Deck Náš stůl was enrolled elsewhere, and this phone cannot add to "
                                                   "it: these cards start a deck of this phone's own. Name it, e.g. "
                                                   "Kitchen table:")
    assert not page.errors


def test_the_deck_menu_offers_the_servers_decks_and_this_phones_never_a_strangers(deck_server, page, tmp_path):
    # A walk: decks started on other phones filled every phone's menu on a shared server.
    from ecoscore.vision.deckstore import default_store

    store = default_store()
    faces = {card: [np.full((90, 60, 3), 40 + 15 * k, np.uint8)] for k, card in enumerate(CardType)}
    store.add("house", faces, "enrolled on the server")
    store.add("strangers", faces, "a photo from the page", owner="their-token")
    page.goto(deck_server)
    page.wait_for_function("document.querySelectorAll('#deck option').length >= 2", timeout=10000)
    assert sorted(page.eval_on_selector_all("#deck option", "os => os.map(o => o.value)")) == ["house", "standin"]
    page.evaluate("localStorage.setItem('ecoscore-deck-token:strangers', 'their-token')")  # this phone started it
    page.reload()
    page.wait_for_function("document.querySelectorAll('#deck option').length >= 3", timeout=10000)
    assert sorted(page.eval_on_selector_all("#deck option", "os => os.map(o => o.value)")) == ["house", "standin", "strangers"]


def test_a_deck_listing_refused_is_said_and_one_lost_to_the_network_is_not(server, page):
    # Every failure of the deck listing was swallowed as "offline": a refusal, or a mistake in
    # the page, left the menu as it was with no word of why.
    from playwright.sync_api import expect

    page.route("**/api/decks*", lambda route: route.fulfill(
        status=503, content_type="application/json", body=json.dumps({"detail": "the deck store is busy"})))
    page.goto(server)
    expect(page.locator("#deck-note")).to_have_text("The deck store is busy.")
    assert "error" in page.get_attribute("#deck-note", "class")
    page.unroute("**/api/decks*")
    lost = []
    page.route("**/api/decks*", lambda route: (lost.append(route.request.url), route.abort()))
    page.reload()
    page.wait_for_load_state("networkidle")
    assert lost and page.text_content("#deck-note") == ""
    assert not page.errors


@needs_matcher
def test_a_room_started_with_a_players_deck_reads_a_friends_photo_and_the_bots_with_it(deck_server, new_page, tmp_path):
    # A deck taught on one phone was unknown to a friend's phone in the room: its photo was
    # refused "teach the page its cards" (a walk, in Czech); the bot's photo, read with no deck
    # at all, likewise. The deck chosen when the room starts is the room's now.
    from playwright.sync_api import expect

    from ecoscore.datasets.deck import load_deck
    from ecoscore.datasets.scene import render_scene

    deck, params = unseen_deck(53)
    first = photo_where(deck, params, 43, lambda types: len(types) == len(CardType))
    started = post_deck_photo(deck_server, "kuchyne", first, title="Naše kuchyně")
    mine = new_page(locale="cs-CZ")
    mine.goto(deck_server)
    mine.evaluate(f"localStorage.setItem('ecoscore-deck-token:kuchyne', '{started['token']}')")
    mine.reload()
    mine.select_option("#deck", "kuchyne")
    room_id = new_room(mine, deck_server, mode="solo")
    expect(mine.locator("#room-deck")).to_have_text("Karty se na všech telefonech v této místnosti čtou podle balíčku "
                                                    "„Naše kuchyně“.")
    bot = photo_where(deck, params, 45, lambda types: True)
    with mine.expect_file_chooser() as chooser:
        mine.click("#bot-photo")
    chooser.value.set_files(write(tmp_path, "bot.jpg", bot.jpeg))
    mine.wait_for_function("room.doc && room.doc.bot", timeout=60000)
    read, want = mine.evaluate("room.doc.bot"), bot.truth["tableaux"][0]["grid"]
    assert read in (want, [row[::-1] for row in want[::-1]]), read  # (read from either side of the table)

    friend = new_page()  # a phone that never saw the deck: the built-in one is its choice
    friend.goto(f"{deck_server}/r/{room_id}")
    expect(friend.locator("#room-deck")).to_contain_text("Naše kuchyně")
    friend.fill("#player-name", "Petr")
    second = photo_where(deck, params, 44, lambda types: True)
    with friend.expect_file_chooser() as chooser:
        friend.click("#add-photo")
    chooser.value.set_files(write(tmp_path, "petr.jpg", second.jpeg))
    expect(friend.locator("#room-status")).to_contain_text("Petr", timeout=60000)
    expect(friend.locator("#room-status")).not_to_contain_text("teach")
    assert "Petr" in friend.text_content("#room-pad")
    # A photo of other cards in a room with a deck: said as the room's, with no menu nor teaching
    # to point to (it said "choose the right deck (Deck)", and there is no Deck menu in a room).
    # (Petr's photo again: a solo room seats one, and another name is refused as full before any read.)
    with friend.expect_file_chooser() as chooser:
        friend.click("#add-photo")
        friend.click("#confirm-yes")  # replace Petr's tableau
    other = render_scene(load_deck("standin"), (44, 1), params)  # the built-in deck's cards: not this room's
    chooser.value.set_files(write(tmp_path, "other.jpg", other.jpeg))
    expect(friend.locator("#room-status")).to_contain_text("None of these cards reads as a card of deck Naše kuchyně, "
                                                           "this room's", timeout=60000)
    expect(friend.locator("#room-teach")).to_be_hidden()
    # The friend's phone may take the deck for its own photos too (its start page knew only the sample).
    expect(mine.locator("#room-use-deck")).to_be_hidden()  # (the creator's reads with it already)
    friend.click("#room-use-deck")
    expect(friend.locator("#room-status")).to_have_text("This phone now reads its photos with deck Naše kuchyně, "
                                                        "on the start page too.")
    friend.goto(deck_server)
    expect(friend.locator("#deck option:checked")).to_have_text("Naše kuchyně")


def test_a_deck_gone_from_the_server_is_forgotten_and_said(server, page, photo_set, tmp_path):
    # A deck removed on the server since this phone chose it: every photo was refused "no deck
    # 'x'; enrol one with `ecoscore deck add`", for good. Now the page forgets it and says so, on
    # coming back and when a photo is refused for it.
    from playwright.sync_api import expect

    page.goto(server)
    # (the page's own listing done first: one still to come would find the deck gone, and say so, before the reload)
    page.wait_for_function("document.querySelectorAll('#deck option').length >= 1", timeout=15000)
    page.wait_for_load_state("networkidle")
    page.evaluate("localStorage.setItem('ecoscore-deck', 'kuchyne')")
    page.reload()
    expect(page.locator("#deck-note")).to_have_text("Deck kuchyne is no longer on this server: choose a deck (Deck), or "
                                                    "teach yours again.", timeout=15000)
    assert page.evaluate("localStorage.getItem('ecoscore-deck')") is None
    expect(page.locator("#deck")).to_have_value("standin")
    page.evaluate("localStorage.setItem('ecoscore-deck', 'kuchyne')")  # removed while the page was open
    page.set_input_files("#file", write(tmp_path, "p.jpg", photo_set[0].jpeg))
    expect(page.locator("#status")).to_have_text("Deck kuchyne is no longer on this server. Choose a deck (Deck), or "
                                                 "teach yours again, then send the photo again.", timeout=30000)
    assert "command line" not in page.text_content("body") and "deck add" not in page.text_content("body")
    assert page.evaluate("localStorage.getItem('ecoscore-deck')") is None
    page.select_option("#lang", "cs")
    expect(page.locator("#status")).to_have_text("Balíček „kuchyne“ už na tomto serveru není. Vyberte balíček (Balíček), "
                                                 "nebo ten svůj naučte znovu, a pošlete fotku znovu.")
    page.set_input_files("#file", write(tmp_path, "p2.jpg", photo_set[0].jpeg))  # sent again: read
    expect(page.locator("#result")).to_be_visible(timeout=30000)
    expect(page.locator("#deck-note")).not_to_be_empty()  # said until a deck is chosen
    page.select_option("#deck", "standin")
    expect(page.locator("#deck-note")).to_be_empty()
    # A deck being built on this phone, gone from the server: said too (it was forgotten without a word).
    page.evaluate("localStorage.setItem('ecoscore-deck-building', 'puda')")
    page.reload()
    expect(page.locator("#deck-note")).to_have_text("Balíček „puda“ už na tomto serveru není: vyberte balíček (Balíček), "
                                                    "nebo ten svůj naučte znovu.", timeout=15000)  # (Czech, as chosen)
    assert page.evaluate("localStorage.getItem('ecoscore-deck-building')") is None


@needs_matcher
def test_a_chosen_deck_that_lacks_a_type_now_is_forgotten_and_said(deck_server, page, photo_set, tmp_path):
    # The deck this phone reads with, its name now another's deck being taught (removed and made
    # again, or its completing photo taken back): every photo was refused, uncoded, for good (an attack).
    from playwright.sync_api import expect

    deck, params = unseen_deck(58)
    started = post_deck_photo(deck_server, "attic2", photo_where(deck, params, 54, lambda types: len(types) < len(CardType)))
    assert started["missing"]
    page.goto(deck_server)
    page.wait_for_function("document.querySelectorAll('#deck option').length >= 1", timeout=15000)
    page.wait_for_load_state("networkidle")
    page.evaluate("localStorage.setItem('ecoscore-deck', 'attic2')")  # chosen, and not this phone's
    page.reload()
    expect(page.locator("#deck-note")).to_have_text("Deck attic2 cannot read photos now (it lacks some types): choose a "
                                                    "deck (Deck).", timeout=15000)
    assert page.evaluate("localStorage.getItem('ecoscore-deck')") is None
    expect(page.locator("#deck")).to_have_value("standin")
    page.evaluate("localStorage.setItem('ecoscore-deck', 'attic2')")  # ... as a photo is sent
    page.set_input_files("#file", write(tmp_path, "p.jpg", photo_set[0].jpeg))
    expect(page.locator("#status")).to_have_text("Deck attic2 cannot read photos now: it lacks some types. Choose a deck "
                                                 "(Deck), then send the photo again.", timeout=30000)
    assert page.evaluate("localStorage.getItem('ecoscore-deck')") is None
    # This phone's own deck in that state is being built again, not forgotten.
    page.evaluate(f"localStorage.setItem('ecoscore-deck', 'attic2'); "
                  f"localStorage.setItem('ecoscore-deck-token:attic2', '{started['token']}')")
    page.reload()
    expect(page.locator("#deck-note")).to_contain_text("Deck attic2 is being built", timeout=15000)
    assert page.evaluate("localStorage.getItem('ecoscore-deck-building')") == "attic2"


@needs_matcher
def test_coming_back_to_a_deck_half_built_says_what_it_still_needs(deck_server, page):
    # A deck is not in the menu until it has every type: a player coming back to the page saw
    # nothing of the deck they had started (a walk-through).
    from playwright.sync_api import expect

    deck, params = unseen_deck(58)
    started = post_deck_photo(deck_server, "attic", photo_where(deck, params, 54, lambda types: len(types) < len(CardType)))
    assert started["missing"]
    # The deck begun while the page's listing of decks is on its way: that listing, which was
    # not asked about it, must not make the page forget it (a CI run failed so, now and then).
    held = []
    page.route("**/api/decks*", lambda route: held.append(route) if not held else route.continue_())
    page.goto(deck_server)
    wait_until_held(page, held)
    page.evaluate("localStorage.setItem('ecoscore-deck-building', 'attic')")
    held[0].continue_()
    page.wait_for_load_state("networkidle")
    assert page.evaluate("localStorage.getItem('ecoscore-deck-building')") == "attic"
    page.reload()
    missing = ", ".join(started["missing"])
    expect(page.locator("#deck-note")).to_have_text(f"Deck attic is being built: it still needs {missing}. "
                                                    "Name the cards of a photo that holds them, then remember it.")
    page.select_option("#lang", "cs")
    expect(page.locator("#deck-note")).to_contain_text("Balíček „attic“ se teprve skládá")


def test_a_tableau_of_several_that_cannot_be_read_says_so_not_the_whole_photo(server, page, reader, tmp_path):
    # Tableau 1 of 4 (the neighbour's) too doubtful to score: the page said "Couldn't read this
    # photo" and to retake it, while the player's own tableau in it read well (a walk, in Russian).
    from playwright.sync_api import expect

    from ecoscore.datasets.deck import load_deck
    from ecoscore.datasets.scene import SceneParams, render_scene

    params = SceneParams(long_side=2400, p_multi=1.0, tableaux=(2, 2), p_cut_off=0.0, p_hole=0.0, elevation_deg=(70, 90))
    scene = render_scene(load_deck("standin"), (51, 0), params)
    upload_solo(page, server, write(tmp_path, "two.jpg", spoil(scene.jpeg, reader, 12)))
    if not page.is_visible("#retake"):
        page.click("#other-tableau")
    expect(page.locator("#retake")).to_be_visible()
    expect(page.locator("#retake h2")).to_have_text("Couldn't read this tableau")
    expect(page.locator("#retake-text")).to_contain_text("The photo holds 2 tableaux: this one is too far, dark or cut by the frame to read well")
    # (on tableau 2 of 2 "the button above shows the next" named none: an Italian walk)
    expect(page.locator("#retake-text")).to_contain_text("the button above shows the others.")
    page.select_option("#lang", "ru")
    expect(page.locator("#retake h2")).to_have_text("Не удалось распознать эту экосистему")
    page.click("#other-tableau")  # the other one reads: its score, no retake box
    expect(page.locator("#result")).to_be_visible()
    expect(page.locator("#retake")).to_be_hidden()


def test_a_photo_of_the_whole_game_is_scored_as_one_game_when_asked(server, page, tmp_path):
    # A walk, in Czech: each tableau of a whole game's photo is scored as if its player sat alone
    # ("Total: 31" for a tableau worth 28 in the game), with no way to score the photo as the game
    # it shows. Asked, its tableaux are one game's players, corrections included.
    from playwright.sync_api import expect

    from ecoscore.datasets.deck import load_deck
    from ecoscore.datasets.scene import SceneParams, render_scene
    from ecoscore.scoring import score_game

    params = SceneParams(long_side=2400, p_multi=1.0, tableaux=(3, 3), p_cut_off=0.0, p_hole=0.0, elevation_deg=(75, 90),
                         loose_cards=(0, 0), clutter=(0, 0))
    scene = render_scene(load_deck("standin"), (53, 1), params)
    upload_solo(page, server, write(tmp_path, "game.jpg", scene.jpeg))
    expect(page.locator("#as-game")).to_have_text("Score the 3 tableaux as one game")
    assert page.is_hidden("#game")
    grids = page.evaluate("solo.doc.players.map((p) => p.grid)")
    as_game = score_game([(f"t{k}", Tableau([CardType(c) if c else None for row in g for c in row]))
                          for k, g in enumerate(grids)])
    page.click("#as-game")
    expect(page.locator("#game")).to_be_visible()
    # the button gone while the pad stands (pressed again it did nothing to see: a walk); the focus
    # on the pad's scroll box, named (it holds nothing that takes the focus), not fallen to the top
    expect(page.locator("#as-game")).to_be_hidden()
    assert page.evaluate("document.activeElement.contains(document.querySelector('#game-pad')) && document"
                         ".getElementById(document.activeElement.getAttribute('aria-labelledby')).textContent"
                         ) == "The photo as one game"
    heads = page.locator("#game-pad thead th").all_text_contents()
    assert heads == ["Card", "1", "2", "3"]  # numbered as "Tableau 1 of 3 shown" numbers them (the corner for a screen reader)
    assert page.locator("#game-pad thead th >> nth=0").bounding_box()["width"] > 1  # the corner's own width ...
    assert page.locator("#game-pad thead th .sr-only").bounding_box()["width"] <= 1  # ... its name unseen
    totals = page.locator("#game-pad tr.total td").all_text_contents()
    assert [t.rstrip("?") for t in totals] == [str(p.total) for p in as_game.players]
    # a correction on the tableau shown counts in the game scored next
    new = "fox" if grids[0][0][0] == "wolf" else "wolf"
    page.click("#solo-tableau .marks g[data-row='0'][data-col='0']")
    page.click(f"#choices button[data-type='{new}']")
    page.wait_for_function("document.querySelector('#status').textContent.includes('updated')", timeout=20000)
    # the pad stays, scored again by itself (it vanished without a word, to be asked again: a walk)
    grids[0][0][0] = new
    as_game = score_game([(f"t{k}", Tableau([CardType(c) if c else None for row in g for c in row]))
                          for k, g in enumerate(grids)])
    expect(page.locator("#game-pad tr.total td").first).to_have_text(re.compile(rf"^{as_game.players[0].total}\??$"))
    expect(page.locator("#game")).to_be_visible()
    expect(page.locator("#as-game")).to_be_hidden()
    # the tableau's own total below says it is scored alone (read as the player's score beside the
    # game's: a walk, in Russian)
    expect(page.locator("#result h2.total")).to_have_text(re.compile(r"^Total, scored alone: -?\d+\??$"))
    # ... smaller than the game's (in big type below the game's it still read as theirs: a Czech walk)
    size = "parseFloat(getComputedStyle(document.querySelector('#result h2.total')).fontSize)"
    assert page.evaluate(size) < page.evaluate("parseFloat(getComputedStyle(document.querySelector('#game h2')).fontSize)")
    page.select_option("#lang", "cs")
    expect(page.locator("#as-game")).to_have_text("Spočítat 3 ekosystémy jako jednu partii")
    expect(page.locator("#result h2.total")).to_have_text(re.compile(r"^Celkem, počítáno samostatně: -?\d+\??$"))
    expect(page.locator("#game")).to_be_visible()  # kept, in Czech (it was hidden by the switch)
    assert "medvěd" in page.locator("#game-pad tbody").inner_text()
    assert not page.errors


def test_a_tableau_not_final_for_an_empty_cell_is_not_final_in_the_photos_game_either(server, page, tmp_path):
    # An Italian walk: a tableau whose read says "1 empty cell (row 4 col 3)" showed "Total: 45?",
    # and the same tableau's column of "the photo as one game" a plain 45. Both marked now, said
    # in its title; checked (the cell kept as read), the mark goes from both.
    from playwright.sync_api import expect

    from ecoscore.datasets.deck import load_deck
    from ecoscore.datasets.scene import SceneParams, render_scene

    params = SceneParams(long_side=2400, p_multi=1.0, tableaux=(3, 3), p_cut_off=0.0, p_hole=1.0, min_holes=1,
                         max_holes=1, elevation_deg=(75, 90), loose_cards=(0, 0), clutter=(0, 0))
    scene = render_scene(load_deck("standin"), (53, 0), params)  # each of its empty cells read surely
    upload_solo(page, server, write(tmp_path, "game.jpg", scene.jpeg))
    expect(page.locator("#as-game")).to_be_visible()
    said = page.evaluate("solo.view.readDoubts()")
    assert any("empty cell" in d for d in said), said
    expect(page.locator("#total-unsure")).to_be_visible()  # "Total: 45?"
    page.click("#as-game")
    expect(page.locator("#game")).to_be_visible()
    first = page.locator("#game-pad tr.total td").first
    expect(first).to_have_text(re.compile(r"^-?\d+\?$"))
    assert "empty cell" in first.get_attribute("title"), first.get_attribute("title")
    # each tableau with its empty cell: every column marked, none shown as final
    assert all(t.endswith("?") for t in page.locator("#game-pad tr.total td").all_text_contents())
    # the grid said right: its column final at once (its "41?" stayed beside the tableau's final
    # total until the game was asked again: a Czech walk), the others still marked
    page.click("#solo-tableau .grid-right")
    expect(first).to_have_text(re.compile(r"^-?\d+$"))
    assert first.get_attribute("title") in (None, ""), first.get_attribute("title")
    assert all(t.endswith("?") for t in page.locator("#game-pad tr.total td").all_text_contents()[1:])


def test_a_room_player_takes_the_other_tableau_of_their_photo_as_theirs(server, page, tmp_path):
    # A photo of the player's tableau and the neighbour's, sent to a room: the one with the most
    # cards was taken, "the one with the most cards was taken as yours", and nothing but another photo could
    # change it (a walk). "Not mine" sends the same photo again for the next tableau.
    from playwright.sync_api import expect

    from ecoscore.datasets.deck import load_deck
    from ecoscore.datasets.scene import SceneParams, render_scene

    params = SceneParams(long_side=2400, p_multi=1.0, tableaux=(2, 2), p_cut_off=0.0, p_hole=0.0, elevation_deg=(70, 90))
    path = write(tmp_path, "two.jpg", render_scene(load_deck("standin"), (51, 0), params).jpeg)
    room_id = new_room(page, server)
    add_to_room(page, "Dana", path)
    button = page.locator("#room-not-mine")
    expect(button).to_have_text("Not mine: take tableau 2 of 2", timeout=60000)
    first = room_player_when(server, room_id, "Dana", lambda p: p.get("tableau") == 1, seconds=60)
    assert any("holds 2 tableaux" in d for d in first["doubts"])
    page.route("**/api/rooms/*/photo*", lambda route: route.abort())  # the venue's Wi-Fi drops it
    with page.expect_event("requestfailed", lambda req: "/photo" in req.url, timeout=30000):
        button.click()
    # (its "not sent" goes as soon as the room's next poll finds the network back: not waited for)
    expect(button).to_be_visible(timeout=30000)  # still offered: the seat has the first
    expect(button).to_have_text("Not mine: take tableau 2 of 2")
    assert room_player_when(server, room_id, "Dana", lambda p: True)["tableau"] == 1
    page.unroute("**/api/rooms/*/photo*")
    button.click()
    expect(page.locator("#room-status")).to_have_text(
        "Dana's tableau is now tableau 2 of the 2 in the photo (outlined on it).", timeout=60000)
    second = room_player_when(server, room_id, "Dana", lambda p: p.get("tableau") == 2, seconds=60)
    assert second["grid"] != first["grid"] and not any("tableaux" in d for d in second["doubts"])
    expect(button).to_have_text("Not mine: take tableau 1 of 2")
    page.select_option("#lang", "cs")
    expect(button).to_have_text("Není můj: vzít ekosystém 1 z 2")
    # A reload keeps the photo for the tab, and the choice (it was lost: a Russian walk).
    page.reload()
    expect(page.locator("#room-code")).to_have_text(room_id)
    expect(button).to_have_text("Není můj: vzít ekosystém 1 z 2")
    button.click()
    room_player_when(server, room_id, "Dana", lambda p: p.get("tableau") == 1 and p["grid"] == first["grid"], seconds=60)
    expect(button).to_have_text("Není můj: vzít ekosystém 2 z 2")
    # Another photo, of one tableau: nothing to choose, and nothing offered after a reload either.
    one = SceneParams(long_side=2000, p_multi=0.0, p_cut_off=0.0, p_hole=0.0, elevation_deg=(70, 90))
    page.click("#add-photo")
    with page.expect_file_chooser() as chooser:
        page.click("#confirm-yes")
    chooser.value.set_files(write(tmp_path, "one.jpg", render_scene(load_deck("standin"), (52, 0), one).jpeg))
    room_player_when(server, room_id, "Dana", lambda p: p.get("tableaux") == 1, seconds=60)
    expect(button).to_be_hidden()
    page.reload()
    expect(page.locator("#room-code")).to_have_text(room_id)
    expect(button).to_be_hidden()
    assert not page.errors


def test_a_photo_of_two_tableaux_shows_each_a_tap_apart(server, page, tmp_path):
    # A photo with the neighbour's tableau in it: the page showed the first and said so, with no
    # way to see the other (a player's walk-through). Now one tap shows the next. Each is scored
    # alone, as a correction scores it: the neighbour's tableau was a rival for the majorities
    # until the first correction (a walk).
    from playwright.sync_api import expect

    from ecoscore.datasets.deck import load_deck
    from ecoscore.datasets.scene import SceneParams, render_scene

    params = SceneParams(long_side=2400, p_multi=1.0, tableaux=(2, 2), p_cut_off=0.0, p_hole=0.0, elevation_deg=(70, 90))
    scene = render_scene(load_deck("standin"), (51, 0), params)
    upload_solo(page, server, write(tmp_path, "two.jpg", scene.jpeg))
    # Both hold 20 cards (no holes): no "showing the one with the most cards", a choice that was none.
    assert [sum(c["type"] is not None for c in t["cells"]) for t in scene.truth["tableaux"]] == [20, 20]
    expect(page.locator("#status")).to_have_text("2 tableaux found.")
    button = page.locator("#other-tableau")
    expect(button).to_have_text("Show tableau 2 of 2")
    expect(page.locator("#which-shown")).to_have_text("Tableau 1 of 2 shown.")  # which one, said (a walk)
    grids = page.evaluate("solo.doc.players.map((p) => p.grid)")
    totals = [str(score_tableau(Tableau([CardType(t) if t else None for row in g for t in row])).total) for g in grids]
    expect(page.locator("#total")).to_have_text(totals[0])
    expect(page.locator("#provisional")).to_have_text(
        "Stream and wolf majorities are provisional: scored as if you were alone at the table.")
    button.click()
    expect(page.locator("#total")).to_have_text(totals[1])
    expect(button).to_have_text("Show tableau 1 of 2")
    expect(page.locator("#which-shown")).to_have_text("Tableau 2 of 2 shown.")
    page.select_option("#lang", "cs")
    expect(button).to_have_text("Zobrazit ekosystém 1 z 2")
    button.click()
    expect(page.locator("#total")).to_have_text(totals[0])

    # A correction on each tableau is kept while the other is shown, and through a reload:
    # switching to the neighbour's tableau and back forgot them.
    page.select_option("#lang", "en")  # the photo's labels read in English below
    def correct_first_card(k: int) -> tuple[str, str]:
        new = "fox" if grids[k][0][0] == "wolf" else "wolf"
        grid = [row[:] for row in grids[k]]
        grid[0][0] = new
        total = str(score_tableau(Tableau([CardType(t) if t else None for row in grid for t in row])).total)
        page.click("#solo-tableau .marks g[data-row='0'][data-col='0']")
        page.click(f"#choices button[data-type='{new}']")
        expect(page.locator("#total")).to_have_text(total)
        return new, total

    first_type, first_total = correct_first_card(0)
    button.click()
    expect(page.locator("#total")).to_have_text(totals[1])
    second_type, second_total = correct_first_card(1)
    button.click()
    expect(page.locator("#total")).to_have_text(first_total)
    assert labels(page)[(0, 0)].startswith(first_type)
    button.click()
    expect(page.locator("#total")).to_have_text(second_total)
    page.reload()
    expect(page.locator("#total")).to_have_text(second_total, timeout=30000)
    assert labels(page)[(0, 0)].startswith(second_type)
    button.click()
    expect(page.locator("#total")).to_have_text(first_total)
    page.click("#solo-tableau .undo")  # Undo's steps kept for the tableau left and through the reload
    expect(page.locator("#total")).to_have_text(totals[0])
    button.click()
    expect(page.locator("#total")).to_have_text(second_total)

    # Answers held back: a correction answered after switching away and back, and one answered
    # while the other tableau is shown, each scores the tableau it was made on.
    button.click()
    expect(page.locator("#total")).to_have_text(totals[0])
    held = []
    page.route("**/api/grid?*", lambda route: held.append(route))

    def release():
        for _ in range(50):
            if held:
                break
            page.wait_for_timeout(100)
        assert held
        for route in held:
            route.continue_()
        held.clear()

    page.click("#solo-tableau .marks g[data-row='0'][data-col='0']")
    page.click(f"#choices button[data-type='{first_type}']")
    button.click()
    expect(page.locator("#total")).to_have_text(second_total)
    button.click()
    release()
    expect(page.locator("#total")).to_have_text(first_total)
    assert labels(page)[(0, 0)].startswith(first_type) and pad_values(page, "#pad")["total"] == first_total
    page.select_option("#lang", "cs")  # drawn again from the view's own score: the answer's, not the older one
    page.wait_for_function("document.documentElement.lang === 'cs'")
    assert page.text_content("#total") == first_total
    page.select_option("#lang", "en")
    page.wait_for_function("document.documentElement.lang === 'en'")
    page.click("#solo-tableau .undo")
    button.click()
    expect(page.locator("#total")).to_have_text(second_total)
    release()
    button.click()
    expect(page.locator("#total")).to_have_text(totals[0])
    page.reload()
    expect(page.locator("#total")).to_have_text(totals[0], timeout=30000)
    # A correction whose answer was lost (failed, or dropped by a reload) after a switch: the
    # tableau is scored again when shown (its total matched no grid, for good).
    page.click("#solo-tableau .marks g[data-row='0'][data-col='0']")
    page.click(f"#choices button[data-type='{first_type}']")
    wait_until_held(page, held)
    button.click()
    expect(page.locator("#total")).to_have_text(second_total)
    for route in held:
        route.abort()  # the answer lost
    page.unroute("**/api/grid?*")
    page.reload()
    expect(page.locator("#total")).to_have_text(second_total, timeout=30000)
    button.click()
    expect(page.locator("#total")).to_have_text(first_total)
    assert labels(page)[(0, 0)].startswith(first_type)
    assert not page.errors


def test_a_name_past_the_40_characters_kept_is_said_to_be_cut(server, page):
    # A name pasted into the room's box was cut to the 40 characters a room keeps (maxlength),
    # without a word (a walk, in Russian). Said, in the player's language.
    from playwright.sync_api import expect
    new_room(page, server)
    name = "Aleksandra Konstantinovna Rimskaya-Korsakova"  # 44
    page.click("#player-name")
    page.keyboard.insert_text(name)
    assert page.input_value("#player-name") == name[:40]
    expect(page.locator("#room-status")).to_have_text("A name keeps at most 40 characters: the rest was left out.")
    page.select_option("#lang", "ru")
    expect(page.locator("#room-status")).to_have_text("Имя может быть не длиннее 40 символов: остальное не вошло.")
    page.fill("#player-name", "")
    page.keyboard.insert_text("Аня")  # within it: nothing said of it
    expect(page.locator("#room-status")).to_have_text("")
    assert not page.errors


def test_players_rename_themselves_and_the_rooms_creator_removes_a_player(server, page):
    from playwright.sync_api import expect

    room_id = new_room(page, server)  # this page created the room: it holds the creator's token
    grid = (EXAMPLES / "alice.txt").read_text()
    ann = put_grid(server, room_id, "ann", grid)
    put_grid(server, room_id, "bob", grid)
    page.evaluate(f"localStorage.setItem('ecoscore:{room_id}:ann', '{ann['token']}')")  # ann plays on this phone
    page.reload()
    rows = page.locator("#room-players li")
    expect(rows).to_have_count(2)
    expect(page.get_by_role("button", name="Rename ann")).to_be_visible()
    expect(page.get_by_role("button", name="Rename bob")).to_have_count(0)  # not bob's phone
    page.fill("#player-name", "ann")
    # Asked on the page (a chat app's browser, where a shared room link opens, may have no
    # window.prompt: Rename did nothing), the name given to change; cancelled, nothing changes.
    page.get_by_role("button", name="Rename ann").click()
    expect(page.get_by_role("dialog")).to_contain_text("New name for ann:")
    expect(page.get_by_role("textbox", name="New name for ann:")).to_have_value("ann")
    page.get_by_role("button", name="Cancel").click()
    expect(page.locator("#ask")).not_to_have_attribute("open", "")
    expect(rows.first.locator("span")).to_have_text("ann")
    page.get_by_role("button", name="Rename ann").click()
    # a name the room refuses: asked again, why said in the dialog (said at the page's top, out of
    # view, the name seemed to stay: an Italian walk)
    page.fill("#ask-value", "BOB")
    page.press("#ask-value", "Enter")
    expect(page.locator("#ask-status")).to_have_text("'BOB' is too like 'bob', already in this room. Choose another name.")
    expect(page.locator("#ask")).to_have_attribute("open", "")
    expect(page.locator("#ask-value")).to_have_value("BOB")
    answer(page, "anna")
    expect(page.locator("#room-status")).to_have_text("ann is now anna.")
    expect(rows.first).to_contain_text("anna")
    assert page.input_value("#player-name") == "anna"  # a photo added now is anna's, not a new ann's
    page.get_by_role("button", name="Remove bob").click()  # the creator may remove anyone
    expect(page.locator("#confirm-yes")).to_have_text("Remove")
    page.click("#confirm-yes")
    expect(page.locator("#room-status")).to_have_text("bob was removed from the room.")
    expect(rows).to_have_count(1)
    with urllib.request.urlopen(f"{server}/api/rooms/{room_id}") as response:
        players = [p["name"] for p in json.loads(response.read())["game"]["players"]]
    assert players == ["anna"]
    # This phone's news goes once the room changes on another phone, read by then ("bob was removed"
    # stood above a pad showing bob's new tableau: an Italian walk); fresh, it stays.
    put_grid(server, room_id, "cleo", grid)
    expect(rows).to_have_count(2, timeout=10000)
    expect(page.locator("#room-status")).to_have_text("bob was removed from the room.")
    page.evaluate("document.querySelector('#room-status').at -= 60000")  # (read a minute ago)
    put_grid(server, room_id, "bob", grid)
    expect(rows).to_have_count(3, timeout=10000)
    expect(page.locator("#room-status")).to_have_text("")
    # anna removed on another phone (the room's creator's, here its token sent from the test): this
    # phone, which holds her token, is told so, not left to see her tableau vanish without a word
    owner = page.evaluate(f"localStorage.getItem('ecoscore-owner:{room_id}')")
    request = urllib.request.Request(f"{server}/api/rooms/{room_id}/players/anna", method="DELETE",
                                     headers={"X-Room-Token": owner})
    urllib.request.urlopen(request).close()
    expect(page.locator("#room-status")).to_have_text("anna's tableau is no longer in the room under that name: renamed or removed on another phone.",
                                                      timeout=10000)
    assert page.evaluate(f"localStorage.getItem('ecoscore:{room_id}:anna')") is None


def test_negative_points_are_written_with_one_minus_sign(server, page):
    # The pad said "-5" (a hyphen) of the biodiversity its explanation called "−5" (a walk, in
    # Russian): every negative number on the page is written with the minus sign; the API's are
    # numbers, as they were.
    from playwright.sync_api import expect
    room_id = json.loads(urllib.request.urlopen(urllib.request.Request(
        f"{server}/api/rooms", b'{"mode": "game"}', method="POST", headers={"Content-Type": "application/json"})).read())["id"]
    ann = put_grid(server, room_id, "ann", "BR . . . .\n. . . . .\n. . . . .\n. . . . .")  # a bear, no bees: 0 - 5
    put_grid(server, room_id, "bob", (EXAMPLES / "bruno.txt").read_text())  # (a game of 3-6 waits for its third)
    put_grid(server, room_id, "cleo", (EXAMPLES / "chiara.txt").read_text())
    player = get_room(server, room_id)["game"]["players"][0]
    assert (player["biodiversity"], player["total"]) == (-5, -5)
    page.goto(server)
    page.evaluate(f"localStorage.setItem('ecoscore:{room_id}:ann', '{ann['token']}')")
    page.goto(f"{server}/r/{room_id}")
    expect(page.locator("#room-pad tr.total td").first).to_have_text("\u22125")
    assert pad_values(page, "#room-pad")["biodiversity"] == "\u22125"
    page.click("#room-pad tbody button.link")  # biodiversity, explained
    expect(page.locator("#room-bio")).to_contain_text("\u22125")
    # a line a player, the scale a line of its own (they ran together in one block: an Italian walk)
    lines = page.locator("#room-bio").inner_text().splitlines()
    assert len(lines) == 4 and {line.split(":")[0] for line in lines[:3]} == {"ann", "bob", "cleo"}, lines
    assert lines[3].startswith("Types that scored nothing are gaps"), lines
    expect(page.locator("#mine .tableau-title")).to_contain_text("ann: \u22125 points \u2014 your tableau")
    for lang in ("en", "ru"):
        page.select_option("#lang", lang)
        page.wait_for_function(f"document.documentElement.lang === '{lang}'")
        shown = page.evaluate("document.body.innerText")
        assert not re.search(r"-\d", shown), re.findall(r".{20}-\d.{10}", shown)
    assert page.text_content("#mine .tableau-title").startswith("ann: \u22125 очков")  # (the plural of -5, not of NaN: "очка")
    assert not page.errors


def test_a_correction_made_on_a_tableau_another_phone_changed_meanwhile_keeps_both(server, new_page):
    # One player's two phones correct different cards at once: the second write meets a 409,
    # and the page wrote its whole grid again on the new version, undoing the first phone's
    # card (an attack driving the real page). Now only its own change goes onto the latest grid.
    grid = (EXAMPLES / "alice.txt").read_text()
    room_id = json.loads(urllib.request.urlopen(urllib.request.Request(
        f"{server}/api/rooms", b'{"mode": "game"}', method="POST", headers={"Content-Type": "application/json"})).read())["id"]
    ann = put_grid(server, room_id, "ann", grid)
    phones = []
    for _ in range(2):
        phone = new_page()
        phone.goto(server)
        phone.evaluate(f"localStorage.setItem('ecoscore:{room_id}:ann', '{ann['token']}')")
        phone.goto(f"{server}/r/{room_id}")
        phone.wait_for_function("room.doc && room.doc.versions && room.doc.versions.ann")
        phones.append(phone)
    first = [row[:] for row in ann["room"]["game"]["players"][0]["grid"]]
    second = [row[:] for row in first]
    first[0][0] = "wolf" if first[0][0] != "wolf" else "bear"
    second[3][4] = "meadow" if second[3][4] != "meadow" else "bee"
    phones[0].evaluate("g => correctRoom('ann', g)", first)
    phones[1].evaluate("g => correctRoom('ann', g)", second)  # made on the version before the first
    with urllib.request.urlopen(f"{server}/api/rooms/{room_id}") as response:
        kept = json.loads(response.read())["game"]["players"][0]["grid"]
    assert kept[0][0] == first[0][0] and kept[3][4] == second[3][4]


def test_only_the_rooms_creator_is_offered_the_neutral_pile_and_the_bot(server, new_page):
    # Every phone offered them, and saving answered 403 (a player's walk-through); saving gave
    # no word either.
    from playwright.sync_api import expect

    owner = new_page()
    room_id = new_room(owner, server, "two-player")
    guest = new_page()
    guest.goto(f"{server}/r/{room_id}")
    expect(guest.locator("#neutral-box")).to_be_visible()
    expect(guest.locator("#save-neutral")).to_be_hidden()
    assert guest.evaluate("document.getElementById('neutral-streams').readOnly")
    expect(owner.locator("#save-neutral")).to_be_visible()
    # what the two numbers are (a walk, in Czech: "streams / wolves", with no word of what to count)
    expect(owner.locator("#neutral-box")).to_contain_text("How many stream cards and wolf cards the pile holds")
    # Two players in, no pile yet: who leads, and that the pile is still to come (a winner was
    # named before it: an attack)
    for name, grid in (("ann", "alice"), ("bob", "bruno")):
        put_grid(server, room_id, name, (EXAMPLES / f"{grid}.txt").read_text())
    expect(guest.locator("#room-winners")).to_contain_text("(not final). The room's creator still has to give the neutral pile",
                                                          timeout=10000)
    expect(owner.locator("#room-winners")).to_contain_text("(not final). Give the neutral pile's streams and wolves",
                                                          timeout=10000)
    # ... and every total marked so, as a total with cards in doubt is (shown plainly: a walk, in Russian)
    totals = "tds => tds.map(td => [td.textContent, td.classList.contains('unsure')])"
    marked = owner.eval_on_selector_all("#room-pad tr.total td", totals)
    assert len(marked) == 2 and all(text.endswith("?") and unsure for text, unsure in marked), marked
    # The creator's boxes empty ("—") too, not 0 and 0, which looked given (an Italian walk); saved
    # empty, the pile is asked for, not taken as 0 unsaid
    for phone in (owner, guest):
        for box in ("#neutral-streams", "#neutral-wolves"):
            expect(phone.locator(box)).to_have_value("")
            expect(phone.locator(box)).to_have_attribute("placeholder", "—")
    owner.click("#save-neutral")
    expect(owner.locator("#room-status")).to_have_text("Neutral pile: give both numbers, streams and wolves (0 if it has none).")
    owner.fill("#neutral-streams", "2")
    owner.wait_for_timeout(2500)  # a poll meanwhile, the focus gone to Save: what was typed stays
    owner.click("#save-neutral")
    expect(owner.locator("#room-status")).to_have_text("Neutral pile: give both numbers, streams and wolves (0 if it has none).")
    expect(owner.locator("#neutral-streams")).to_have_value("2")
    assert get_room(server, room_id)["waiting_for"] == "neutral"
    owner.fill("#neutral-wolves", "30")  # past the pile's most: said in the player's words, not FastAPI's (a walk)
    owner.click("#save-neutral")
    expect(owner.locator("#room-status")).to_have_text(
        "Neutral pile: from 0 to 20 streams and from 0 to 12 wolves, in whole numbers.")
    owner.fill("#neutral-wolves", "0")
    owner.fill("#neutral-streams", "3")
    owner.click("#save-neutral")
    expect(owner.locator("#room-status")).to_have_text("Saved.")
    expect(guest.locator("#neutral-streams")).to_have_value("3", timeout=10000)
    expect(guest.locator("#room-winners")).to_have_text(re.compile(r"^(Winner|Tied for the win): "), timeout=10000)
    final = guest.eval_on_selector_all("#room-pad tr.total td", totals)
    assert len(final) == 2 and not any(text.endswith("?") or unsure for text, unsure in final), final


def test_a_link_to_no_room_says_so_offers_the_start_page_and_stops_asking(server, new_page):
    from playwright.sync_api import expect

    page = new_page()
    asked = []
    page.on("request", lambda r: asked.append(r.url) if "/api/rooms/nosuchroom1" in r.url else None)
    page.goto(f"{server}/r/nosuchroom1")
    expect(page.locator("#room-status")).to_have_text("No room 'nosuchroom1'.")
    expect(page.locator("#room-home")).to_be_visible()
    expect(page.locator("#join")).to_be_hidden()
    expect(page.locator("#room-view .share")).to_be_hidden()
    page.wait_for_timeout(4500)
    assert len(asked) == 1  # not asked again every two seconds


def test_the_start_page_links_back_to_the_rooms_this_phone_was_in(server, new_page):
    # The header's "ecoscore" left a room, and the start page had no way back to it but the
    # phone's Back button (an Italian walk). A room gone is no longer offered.
    from playwright.sync_api import expect

    page = new_page(locale="it-IT")
    page.goto(server)
    expect(page.locator("#new-room")).to_be_visible()
    expect(page.locator("#recent-rooms")).to_be_hidden()  # none yet
    first = new_room(page, server)
    second = new_room(page, server)
    page.goto(server)
    expect(page.locator("#recent-rooms")).to_have_text(f"Torna a una stanza di gioco: {second}, {first}")
    for name in ("anna", "bob"):  # its players, as the room shows them when it is opened again
        put_grid(server, first, name, (EXAMPLES / "bruno.txt").read_text())
    page.get_by_role("link", name=first).click()
    page.wait_for_url(f"**/r/{first}")
    expect(page.locator("#room-code")).to_have_text(first)
    page.evaluate("keepRecentRoom('nosuchroom2')")  # a room this phone was in, pruned since: no longer offered
    page.goto(f"{server}/r/nosuchroom2")
    expect(page.locator("#room-status")).to_contain_text("nosuchroom2")
    page.goto(server)
    # the one opened last first, named by its players (bare codes told which game was which by
    # nothing: a game night's walk); the one no one joined by its code
    expect(page.locator("#recent-links a")).to_have_text([f"{first} (anna e bob)", second])
    page.evaluate("keepRecentRoom('many', true, ['a', 'b', 'c', 'd', 'e', 'f'])")
    page.reload()
    expect(page.locator("#recent-links a").first).to_have_text("many (a, b, c e altri 3)")
    assert not page.errors


def test_a_photo_to_retake_says_what_to_do_about_it_at_once(server, page, photo_set, tmp_path):
    # The retake box gave the general tips only; what this photo's read says (cut by the frame:
    # step back) showed only after "Show anyway" (a player's walk-through).
    scene = photo_set[5]
    image = cv2.imdecode(np.frombuffer(scene.jpeg, np.uint8), cv2.IMREAD_COLOR)
    xs = [x for t in scene.truth["tableaux"] for cell in t["cells"] for x in np.array(cell["corners"])[:, 0]]
    cut = int(min(xs) + 0.45 * (max(xs) - min(xs)))  # two columns and a bit outside the frame
    upload_solo(page, server, write(tmp_path, "cut.jpg", cv2.imencode(".jpg", image[:, cut:])[1].tobytes()))
    assert page.is_visible("#retake")
    assert "The tableau is cut by the frame" in page.text_content("#retake-advice")
    # each piece of advice on a line of its own: two ran together with nothing between them
    items = page.locator("#retake-advice li").all_text_contents()
    assert any(item.startswith("The tableau is cut by the frame") and item.endswith(".") for item in items), items


def test_a_label_is_drawn_on_its_own_card_or_not_at_all(server, new_page, photo_set, tmp_path):
    # A cell off the photo had its label pushed inside it, onto its neighbour's card: "volpe 6vuota"
    # read as a fox worth 6 (a walk, in Italian). Every label drawn lies on its own card.
    scene = photo_set[1]
    image = cv2.imdecode(np.frombuffer(scene.jpeg, np.uint8), cv2.IMREAD_COLOR)
    xs = [x for t in scene.truth["tableaux"] for cell in t["cells"] for x in np.array(cell["corners"])[:, 0]]
    cut = int(max(xs) - 0.3 * (max(xs) - min(xs)))  # the last column wholly out of the frame, the next in part
    page = new_page(viewport={"width": 390, "height": 844})
    upload_solo(page, server, write(tmp_path, "cut.jpg", cv2.imencode(".jpg", image[:, :cut])[1].tobytes()))
    if page.is_visible("#retake"):
        page.click("#show-anyway")
    placed = page.eval_on_selector_all("#solo-tableau .marks g.cell", """gs => gs.map((g) => {
        const t = g.querySelector('text'), at = new DOMPoint(+t.getAttribute('x'), +t.getAttribute('y'));
        return [t.textContent, g.querySelector('polygon').isPointInFill(at)];
    })""")
    drawn = [on for text, on in placed if text]
    assert drawn and all(drawn), placed
    assert any(not text for text, _ in placed), placed  # (the test would prove nothing: a cell off the photo)
    assert not page.errors


def test_a_cell_outside_the_photo_is_unknown_everywhere_and_is_named_not_kept(server, page, photo_set, tmp_path):
    # Its label said "unknown", its explanation "Row 1, column 5 is empty." and the picker "read as
    # empty" (a walk, in Czech and Russian): one word for it everywhere, and what keeping it does.
    from playwright.sync_api import expect

    scene = photo_set[1]
    image = cv2.imdecode(np.frombuffer(scene.jpeg, np.uint8), cv2.IMREAD_COLOR)
    xs = [x for t in scene.truth["tableaux"] for cell in t["cells"] for x in np.array(cell["corners"])[:, 0]]
    cut = int(max(xs) - 0.08 * (max(xs) - min(xs)))  # the last column's cards partly out of the frame
    upload_solo(page, server, write(tmp_path, "cut.jpg", cv2.imencode(".jpg", image[:, :cut])[1].tobytes()))
    if page.is_visible("#retake"):
        page.click("#show-anyway")
    unknown = [key for key, text in labels(page).items() if text.startswith("unknown")]
    assert unknown, labels(page)
    r, c = unknown[0]
    page.click(f"#solo-tableau .marks g[data-row='{r}'][data-col='{c}']")
    page.wait_for_selector("#picker[open]")
    expect(page.locator("#picker-cell")).to_have_text(f"Row {r + 1}, column {c + 1}: not read: name the card that lies here, or choose empty")
    # ... and not kept "as read": kept, it counted as empty, and the total lost its "?" (29 for 31: a walk)
    expect(page.locator("#keep")).to_be_hidden()
    page.keyboard.press("Escape")
    page.click(f"#solo-tableau .grid button[data-row='{r}'][data-col='{c}']")  # a tap on the grid: what it scores
    explained = page.text_content("#solo-tableau .card-explain-text")
    assert "could not be read" in explained and "is empty" not in explained, explained


def test_labels_on_the_photo_stay_inside_it_at_its_edges(server, page, photo_set, tmp_path):
    # A card at the photo's left edge had its label drawn about its middle, half of it off the
    # photo, clipped (a walk). Every label is drawn whole on the photo.
    scene = photo_set[1]
    image = cv2.imdecode(np.frombuffer(scene.jpeg, np.uint8), cv2.IMREAD_COLOR)
    xs = [x for t in scene.truth["tableaux"] for cell in t["cells"] for x in np.array(cell["corners"])[:, 0]]
    cut = int(min(xs) + 0.08 * (max(xs) - min(xs)))  # the first column's cards partly out of the frame
    upload_solo(page, server, write(tmp_path, "cut.jpg", cv2.imencode(".jpg", image[:, cut:])[1].tobytes()))
    if page.is_visible("#retake"):
        page.click("#show-anyway")
    outside = page.eval_on_selector("#solo-tableau .marks", """svg => { const box = svg.getBoundingClientRect();
        return [...svg.querySelectorAll('text')].filter((t) => { const r = t.getBoundingClientRect();
            return r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5; })
          .map((t) => [t.parentNode.dataset.row, t.parentNode.dataset.col, t.textContent]); }""")
    first = [text for (r, c), text in labels(page).items() if c == 0]
    assert len(first) == 4, labels(page)
    assert outside == [], outside
    assert not page.errors


def test_a_grid_found_only_on_a_small_copy_says_to_photograph_from_higher_up_at_once(reader, page, tmp_path):
    # Big blurred cards laid 2-3.5 cm apart at a slant: only the quick look's small canvas fits a
    # grid, read with 11 doubtful cells. Its advice (photograph from higher up) sat behind "Show
    # anyway" (a walk-through in headless Chromium), the retake box giving the general tips only.
    # The shipped classifier (2026-12-03) names too few of these blurred cards surely and the
    # photo is refused as blurred (tests/test_steep.py): a classifier made surer reads it here.
    from helpers import sharpened

    from ecoscore.datasets.deck import load_deck
    from ecoscore.datasets.scene import render_scene, steep_params

    scene = render_scene(load_deck("standin"), (77, 19), steep_params(long_side=1600, p_touching=0.0, gap_mm=(15.0, 35.0)))
    srv, thread, server = start_server(tmp_path, sharpened(reader))
    try:
        upload_solo(page, server, write(tmp_path, "apart.jpg", scene.jpeg))
        assert page.is_visible("#retake")
        items = page.locator("#retake-advice li").all_text_contents()
        assert any(item.startswith("The grid was found only on a small copy of the photo") for item in items), items
        assert not any("cut by the frame" in item for item in items), items
    finally:
        srv.should_exit = True
        thread.join(10)


def read_as(page, server, photo_set, tmp_path, grid) -> None:
    """A photo read on the page, its grid then set to ``grid`` (as corrections would) and scored."""
    upload_solo(page, server, write(tmp_path, "p.jpg", photo_set[1].jpeg))
    page.evaluate("async (g) => { solo.view.grid = g; await solo.view.commit(); }", grid)
    page.wait_for_function("document.querySelector('#total').textContent !== ''")


def explained(page, row: int, col: int) -> str:
    """What the page says of the card at (row, col) once it is tapped."""
    page.click(f"#solo-tableau .grid button[data-row='{row}'][data-col='{col}']")
    return page.text_content("#solo-tableau .card-explain-text")


def test_a_card_kept_from_scoring_says_so_and_a_lone_meadow_scores_alone(server, page, photo_set, tmp_path):
    # A fox beside a wolf (0 points) said "The highlighted card earned them" with the wolf lit,
    # and a meadow of one card that "the highlighted cards score together" with none lit (a
    # player's walk-through).
    read_as(page, server, photo_set, tmp_path, [["fox", "wolf", "bee", "bear", "trout"], ["meadow", "deer", "eagle", "rabbit", "stream"],
                                                ["dragonfly", "bee", "deer", "rabbit", "eagle"], ["trout", "bear", "bee", "deer", "rabbit"]])
    text = explained(page, 0, 0)
    assert "0 points" in text and "The highlighted card keeps it from scoring." in text and "earned" not in text
    assert "score together" not in explained(page, 1, 0)


def test_a_stream_apart_from_the_largest_is_not_given_its_place(server, page, photo_set, tmp_path):
    # Any stream card said "the largest stream, 3 cards: place 1" (a rules check): a stream of
    # its own says that only the largest counts.
    grid = [["stream", "stream", "stream", "bear", "trout"], ["meadow", "deer", "eagle", "rabbit", "fox"],
            ["dragonfly", "bee", "deer", "rabbit", "eagle"], ["trout", "bear", "bee", "deer", "stream"]]
    read_as(page, server, photo_set, tmp_path, grid)
    text = explained(page, 3, 4)
    assert "a stream of 1 card, smaller than the player's largest: only the largest stream counts." in text, text
    # A place said as the command line says it ("place 1" was the page's own English).
    assert "the largest stream, 3 cards: 1st place, 8 points." in explained(page, 0, 1)
    grid[0][2], grid[3][3] = "fox", "stream"  # two streams of 2 cards: one is scored, its twin said so
    page.evaluate("async (g) => { solo.view.grid = g; await solo.view.commit(); }", grid)
    # Both said "the largest stream, 2 cards: 1st place, 8 points", one's partner not lit: read as
    # 8 points twice (a walk).
    said = [explained(page, row, col) for row, col in ((3, 3), (0, 0))]
    tied = "a stream of 2 cards, as large as the player's other largest: one largest stream counts"
    assert sorted("the largest stream, 2 cards: 1st place" in text for text in said) == [False, True], said
    assert sorted(tied in text for text in said) == [False, True], said
    twin = next(rc for rc, text in zip(((3, 3), (0, 0)), said) if tied in text)
    explained(page, 1, 0)  # another card first: a second tap on the one selected closes it
    explained(page, *twin)
    lit = page.eval_on_selector_all("#solo-tableau .marks g.cell.cause", "gs => gs.map((g) => [+g.dataset.row, +g.dataset.col])")
    assert len(lit) == 2 and list(twin) in lit, lit  # its own stream lit, the one its explanation speaks of


def test_a_screen_reader_is_told_the_total_when_a_photo_is_read_and_when_a_correction_is_scored(server, page, photo_set, tmp_path):
    # The status line was emptied once the read came back and the focus stayed on the file button:
    # nothing said the score had come; a correction said "Score updated" without the score (an audit).
    from playwright.sync_api import expect

    upload_solo(page, server, write(tmp_path, "p.jpg", photo_set[0].jpeg))
    total = page.text_content("#total") + ("?" if page.is_visible("#total-unsure") else "")
    expect(page.locator("#said")).to_have_text(re.compile(rf"^Total: {re.escape(total)}{'' if total.endswith('?') else '[.]'}( |$)"))
    assert page.get_attribute("#said", "role") == "status" and page.locator("#said").bounding_box()["width"] <= 1  # heard, not seen
    page.click("#solo-tableau .marks g[data-row='0'][data-col='0']")  # a correction: the card named empty
    page.click("#choices button[data-type='']")
    expect(page.locator("#status")).to_have_text("Score updated with your correction.", timeout=10000)
    expect(page.locator("#said")).to_contain_text(f"Total: {page.text_content('#total')}")


def test_a_screen_reader_is_told_the_total_once_the_grid_is_said_right(server, page, photo_set, tmp_path):
    # It kept "Total: 52? Not final: ..." once "The grid is right" had made the total shown final
    # (a newcomer's walk).
    from conftest import cut_through_right_column
    from playwright.sync_api import expect

    upload_solo(page, server, write(tmp_path, "cut.jpg", cut_through_right_column(photo_set[0])))
    expect(page.locator("#said")).to_contain_text("?")
    page.click("#solo-tableau .review")  # each doubtful card kept as read, one off the photo named empty
    while page.locator("#picker[open]").count():
        page.click("#keep" if page.is_visible("#keep") else "#choices button[data-type='']")
        page.wait_for_timeout(150)
    expect(page.locator("#said")).to_contain_text(f"Total: {page.text_content('#total')}?")  # the photo's doubt stands
    # said in a sentence, not each doubt again (the photo's advice after every correction: an audit)
    assert page.text_content("#said") == (f"Total: {page.text_content('#total')}? "
                                          "Not final: the photo or the grid is in doubt (see What to check, below).")
    # ... and said so, not "All doubtful cards checked." beside a total still "?" (a walk)
    expect(page.locator("#status")).to_have_text(catalogue("en")["ui.review_done_photo"])
    page.click("#solo-tableau .grid-right")
    expect(page.locator("#total-unsure")).to_be_hidden()
    expect(page.locator("#said")).to_have_text(f"Total: {page.text_content('#total')}.")
    expect(page.locator("#status")).to_have_text("")  # "... then tap The grid is right", tapped: gone (it stayed: a Czech walk)


HEADING_LEVELS = """() => [...document.querySelectorAll('h1, h2, h3, h4, h5, h6')].filter((h) => h.checkVisibility())
    .map((h) => [+(h.getAttribute('aria-level') || h.tagName[1]), h.textContent.trim()])"""


def test_a_read_is_headed_in_order_and_its_cells_are_named_by_what_they_show_first(server, page, photo_set, tmp_path):
    # An audit: the one-photo page went from its h1 to the tableau's h4s (no h2, no h3), and each
    # cell was named "row 1, column 1: eagle, 0 points" where it shows "eagle 0": a voice command
    # saying what is seen ("click eagle") found nothing.
    upload_solo(page, server, write(tmp_path, "p.jpg", photo_set[0].jpeg))
    levels = page.evaluate(HEADING_LEVELS)
    assert [level for level, _ in levels[:2]] == [1, 2] and levels[1][1].startswith("Total:"), levels
    assert all(b[0] - a[0] <= 1 for a, b in zip(levels, levels[1:])), levels
    cells = page.eval_on_selector_all("#solo-tableau .grid button", "bs => bs.map((b) => [b.querySelector('span').textContent, "
                                      "b.querySelector('small').textContent, b.getAttribute('aria-label'), b.textContent])")
    assert len(cells) == 20
    for shown, points, spoken, text in cells:
        assert spoken.startswith(shown.rstrip("?") + ","), (shown, spoken)
        # what it shows, in its order: "fox 3" in "fox, 3 points", a group's "deer 8" in "deer, 8 points for its group"
        assert not points or spoken.startswith(f"{shown}, {points} point"), (shown, points, spoken)
        assert text == f"{shown} {points}", text  # its words apart ("fox3" was in no name: an audit)
        assert re.search(r"; row \d, column \d(;|$)", spoken), spoken


def test_at_twice_the_zoom_on_a_small_phone_the_grid_and_the_pads_total_stay_readable(server, new_page, photo_set, tmp_path):
    # An audit at 200 % zoom on a 320 px phone (160 CSS px): the grid's names shrank to 3.4 px,
    # smaller than unzoomed, and the pad's sticky labels covered its player's column: "0?" of "30?".
    page = new_page(viewport={"width": 160, "height": 320}, locale="ru-RU")
    upload_solo(page, server, write(tmp_path, "p.jpg", photo_set[0].jpeg))
    cells = page.eval_on_selector_all("#solo-tableau .grid button", """bs => bs.map((b) => [b.textContent,
        parseFloat(getComputedStyle(b.querySelector('span')).fontSize), b.scrollHeight - b.clientHeight])""")
    assert len(cells) == 20
    assert all(size >= 7 and cut <= 1 for _, size, cut in cells), cells  # never tiny, never cut off
    shown = page.evaluate("""() => {
        const wrap = document.querySelector('#result .pad-wrap'), label = document.querySelector('#pad tr.total th');
        wrap.scrollLeft = wrap.scrollWidth;
        const text = document.createRange(); text.selectNodeContents(document.querySelector('#pad tr.total td'));
        const r = text.getBoundingClientRect(), w = wrap.getBoundingClientRect(), l = label.getBoundingClientRect();
        return [r.left >= l.right - 0.5, r.right <= w.right + 0.5, document.documentElement.scrollWidth <= innerWidth];
    }""")
    assert shown == [True, True, True], shown  # the total whole, beside its label, and no page wider than the screen
    assert not page.errors


def test_the_photos_labels_are_drawn_readable_on_a_small_phone_and_in_full_where_there_is_room(server, new_page, photo_set, tmp_path):
    # On a 320 px phone the names drawn on the photo were 4.3-7.3 CSS px (median 6.4), sized to fit
    # the card in the photo's own pixels, and did not grow with zoom (an audit). Where the name and
    # points do not fit the card readably, the name alone, else its first letters, is drawn at a
    # readable size; where there is room, both; drawn again when the photo's width changes.
    from playwright.sync_api import expect

    page = new_page(viewport={"width": 320, "height": 640}, locale="cs-CZ")
    upload_solo(page, server, write(tmp_path, "p.jpg", photo_set[0].jpeg))
    full = labels(page)
    small = dict(zip(sorted(full), drawn_labels(page)))  # (the marks are drawn row by row)
    assert len(small) == 20 and all(size >= 9 for text, size in small.values() if text), small
    assert all(full[rc].startswith(text.rstrip("?").rstrip(".")) for rc, (text, _) in small.items()), (full, small)
    assert sum(len(text) >= 3 for text, _ in small.values()) >= 15, small  # names, whole or cut, not blanks
    assert any(text != full[rc] for rc, (text, _) in small.items()), small  # (the test would prove nothing)
    # one form a name on a photo ("rusce." beside "ruscel." read as two words: a walk)
    forms: dict[str, set[str]] = {}
    for rc, (text, _) in small.items():
        if text != full[rc]:
            forms.setdefault(full[rc].split(" ")[0], set()).add(text)
    assert all(len(said) == 1 for said in forms.values()), forms
    page.locator("#solo-tableau .photo-box").screenshot(path=str(SHOTS / "labels-320-cs.png"))
    page.set_viewport_size({"width": 1400, "height": 900})  # a tablet, or the phone's photo zoomed: room for all
    expect(page.locator("#solo-tableau .marks g.cell text").first).to_have_text(full[(0, 0)])
    wide = drawn_labels(page)
    assert [t for t, _ in wide] == [full[rc] for rc in sorted(full)] and all(size >= 9 for _, size in wide), wide
    page.set_viewport_size({"width": 320, "height": 640})
    expect(page.locator("#solo-tableau .marks g.cell text")).to_have_text([text for text, _ in small.values()])
    assert not page.errors


@pytest.mark.parametrize("belief, offered", [(0.0002, False), (0.3, True)])
def test_the_picker_offers_the_runner_up_first_only_where_it_is_a_real_second_choice(server, page, photo_set, tmp_path,
                                                                                      belief, offered):
    # "meadow (second choice)" outlined first on every card opened, the reader giving it 0.01 %:
    # it hinted at a doubt the read did not have (a Russian newcomer's walk). The read's first cell
    # is given a sure read and a runner-up of that belief as the page receives it.
    first_cell_received_as(page, {"type": "bear", "runner_up": "rabbit", "runner_up_confidence": belief, "doubts": []})
    upload_solo(page, server, write(tmp_path, "tableau.jpg", photo_set[0].jpeg))
    page.click("#solo-tableau .marks g[data-row='0'][data-col='0']")
    page.wait_for_selector("#picker[open]")
    first = page.locator("#choices button").first
    assert (first.get_attribute("data-type") == "rabbit" and "runner" in first.get_attribute("class")) == offered
    assert page.locator("#choices button.runner").count() == int(offered)


def test_the_card_picker_is_whole_on_a_short_phone(server, new_page, photo_set, reader, tmp_path):
    # At 320 x 640 (Czech, a runner-up's "(druhý odhad)" on three lines) the picker scrolled, its
    # last row of cards cut at the foot by Keep and Stop: it looked broken (a walk). Whole at 640
    # and at 568 px tall (a small iPhone).
    from playwright.sync_api import expect

    page = new_page(viewport={"width": 320, "height": 640}, locale="cs-CZ")
    upload_solo(page, server, write(tmp_path, "p.jpg", spoil(photo_set[2].jpeg, reader, 3)))
    page.click("#solo-tableau .review")
    expect(page.locator("#picker")).to_be_visible()
    page.wait_for_timeout(300)  # (the dialog laid out)
    for width, height in ((320, 640), (320, 568), (915, 412), (740, 360)):  # (and held sideways: it scrolled, cut)
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(100)
        scroll, client, last, actions = page.evaluate("""(() => {
            const d = document.querySelector('#picker');
            const last = [...document.querySelectorAll('#choices button')].pop().getBoundingClientRect();
            return [d.scrollHeight, d.clientHeight, last.bottom, document.querySelector('#picker .dialog-actions').getBoundingClientRect().top];
        })()""")
        assert scroll <= client and last <= actions, (width, height, scroll, client, last, actions)
        # ... its cards still 40 px touch targets (the project's least for a button: a review)
        heights = page.eval_on_selector_all("#choices button", "bs => bs.map(b => b.getBoundingClientRect().height)")
        assert min(heights) >= 39.5, (width, height, heights)
    assert not page.errors


def test_at_twice_the_zoom_the_picker_shows_its_card_and_says_the_total_while_reviewing(server, new_page, photo_set,
                                                                                        reader, tmp_path):
    # An audit at 200 % on a 360 x 640 phone (180 x 320 CSS px), in Czech: the picker's Keep and
    # Stop, held at its foot, covered the line saying what the card was read as and the first
    # names, which (4.2vw) grew no bigger with the zoom; a screen reader heard no total while the
    # review's picker was open (the page behind a modal is not read); nor when the other tableau
    # was shown.
    from playwright.sync_api import expect

    page = new_page(viewport={"width": 180, "height": 320}, device_scale_factor=2, locale="cs-CZ")
    upload_solo(page, server, write(tmp_path, "p.jpg", spoil(photo_set[2].jpeg, reader, 3)))
    page.click("#solo-tableau .review")
    expect(page.locator("#picker")).to_be_visible()
    page.wait_for_timeout(300)  # (the dialog laid out)
    cell, first, actions, size = page.evaluate("""(() => {
        const box = (s) => document.querySelector(s).getBoundingClientRect();
        return [box('#picker-cell').bottom, box('#choices button').top, box('#picker .dialog-actions').top,
                parseFloat(getComputedStyle(document.querySelector('#choices button')).fontSize)];
    })()""")
    assert cell <= actions and first <= actions and size >= 14, (cell, first, actions, size)
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
    page.click("#keep")  # the first card kept as read: the total said in the picker, open on the next
    expect(page.locator("#picker-said")).to_contain_text("Celkem: ", timeout=10000)
    assert not page.errors


def test_a_name_ending_a_sentence_takes_the_messages_full_stop(server, page):
    # "Giulia ora si chiama Giulia R.." (an Italian walk): one full stop, in any message.
    page.goto(server)
    page.wait_for_function("typeof I18N !== 'undefined' && I18N.t('ui.renamed', {}) !== 'ui.renamed'")
    said = page.evaluate("[I18N.t('ui.renamed', { name: 'Giulia', new: 'Giulia R.' }), I18N.t('ui.renamed', { name: 'A', new: 'B' })]")
    assert said == ["Giulia is now Giulia R.", "A is now B."]


def test_a_links_lang_chooses_the_pages_language(server, new_page):
    page = new_page(locale="en-US")
    page.goto(server + "/?lang=ru")
    page.wait_for_function("document.documentElement.lang === 'ru'")
    assert page.text_content("#result [data-i18n='ui.total']") == "Итого"
    page.select_option("#lang", "cs")  # the player's choice outlives the link's, a reload too
    page.wait_for_function("document.documentElement.lang === 'cs'")
    assert "lang=" not in page.url
    page.reload()
    page.wait_for_function("document.documentElement.lang === 'cs'")
    page.evaluate("localStorage.clear()")
    page.goto(server + "/?lang=xx")  # one it does not speak: the browser's
    page.wait_for_function("document.documentElement.lang === 'en'")
    page.evaluate("sessionStorage.clear()")
    page.goto(server + "/?lang=it-IT")  # a tag, as the API reads it (the API answered it in English)
    page.wait_for_function("document.documentElement.lang === 'it'")
    page.evaluate("sessionStorage.clear()")
    # A link's language holds for the tab: a room started from it goes on in Russian (its address
    # has no ?lang=), until the player chooses one.
    page.goto(server + "/?lang=ru")
    page.wait_for_function("document.documentElement.lang === 'ru'")
    page.click("#new-room")
    page.wait_for_url("**/r/*")
    page.wait_for_function("document.documentElement.lang === 'ru'")
    assert page.text_content("#room-view [data-i18n='ui.room']") == "Игровая комната"
    page.select_option("#lang", "it")
    page.wait_for_function("document.documentElement.lang === 'it'")
    page.reload()
    page.wait_for_function("document.documentElement.lang === 'it'")
    # A tab opened from it has none of its link's language: the room's teach link gives its own.
    page.eval_on_selector("#room-teach", "a => { a.hidden = false; a.target = ''; }")  # (shown where a photo is not the deck's)
    page.click("#room-teach")
    page.wait_for_url(re.compile(r"/\?teach&lang=it$"))
    page.wait_for_function("document.documentElement.lang === 'it'")


def test_the_card_picker_opens_at_its_top_on_a_short_screen(server, new_page, photo_set, tmp_path):
    # Focus on "Keep as read" at its foot scrolled the picker: the card's picture and the question
    # went out of view on a phone held sideways (an audit: 13 % of the picture in view at 844 x 390).
    page = new_page(viewport={"width": 844, "height": 390})
    upload_solo(page, server, write(tmp_path, "p.jpg", photo_set[0].jpeg))
    page.click("#solo-tableau .marks g[data-row='0'][data-col='0']")
    page.wait_for_selector("#picker[open]")
    top = page.evaluate("document.querySelector('#crop').getBoundingClientRect().top")
    assert page.evaluate("document.querySelector('#picker').scrollTop") == 0 and top < 390, top


def test_a_room_takes_a_doubtful_photo_but_says_to_check_or_retake_it(server, page, photo_set, reader, tmp_path):
    # The one-photo page asks to retake a read with 7 or more doubtful cards; a room took it
    # silently ("Added Вася's tableau"; a player's walk-through).
    room_id = new_room(page, server)
    page.fill("#player-name", "Ann")
    with page.expect_file_chooser() as chooser:
        page.click("#add-photo")
    chooser.value.set_files(write(tmp_path, "spoiled.jpg", spoil(photo_set[5].jpeg, reader, 12)))
    page.wait_for_function("document.querySelector('#room-status').textContent.startsWith(`Added Ann's tableau`)",
                           timeout=30000)
    status = page.text_content("#room-status")
    assert "of its 20 cards are in doubt: check them below, or take the photo again." in status, status
    assert room_id


def test_two_players_in_doubt_are_said_in_one_list_under_the_room_pad(server, page, photo_set, reader, tmp_path):
    # "Ann: 12 cards are in doubt, so the total is not final. Bob: 12 cards are in doubt, so the
    # total is not final.": a sentence repeated per player (a walk).
    from playwright.sync_api import expect

    room_id = new_room(page, server)
    for name, k in (("Ann", 5), ("Bob", 4)):
        add_to_room(page, name, write(tmp_path, f"{name}.jpg", spoil(photo_set[k].jpeg, reader, 12)))
        expect(page.locator("#room-status")).to_contain_text(f"Added {name}'s tableau", timeout=30000)
    expect(page.locator("#player-name")).to_have_value("")  # a phone passed round: the box is the next player's
    # two in a game of 3-6 wait for a third: said first
    expect(page.locator("#room-winners")).to_contain_text(re.compile(r"^Waiting for a third player's tableau: this room is for "
                                                                     r"3–6 players .*Cards in doubt: Ann \d+, Bob \d+"))
    put_grid(server, room_id, "Cleo", (EXAMPLES / "chiara.txt").read_text())  # the third, read from a grid
    expect(page.locator("#room-pad")).to_contain_text("Cleo", timeout=10000)
    winners = page.text_content("#room-winners")
    assert re.search(r"\(not final\)\. Cards in doubt: Ann \d+, Bob \d+, so these totals are not final\.$", winners), winners
    assert winners.count("not final") == 2
    # one phone holding both seats calls neither "your tableau" (a walk: three players, three times)
    titles = page.locator("#mine .tableau-title").all_text_contents()
    assert len(titles) == 2 and all("added from this phone" in title for title in titles), titles


def test_a_photo_a_room_refuses_for_a_player_in_it_says_their_earlier_tableau_stays(server, page, photo_set, tmp_path):
    # "Anna: No tableau found: ..." and no more: the one-photo page says its score is the previous
    # photo's, the room did not say Anna's tableau there was the earlier one (a walk, in Italian).
    from playwright.sync_api import expect

    new_room(page, server)
    add_to_room(page, "Ann", write(tmp_path, "ann.jpg", photo_set[0].jpeg))
    page.wait_for_function("document.querySelector('#room-status').textContent.startsWith(`Added Ann's tableau`)",
                           timeout=30000)
    total = pad_values(page, "#room-pad")["total"]
    page.click("#add-photo")
    page.wait_for_selector("#confirm[open]")  # yes, replace Ann's tableau
    with page.expect_file_chooser() as chooser:
        page.click("#confirm-yes")
    blank = cv2.imencode(".png", np.full((600, 800, 3), 255, np.uint8))[1].tobytes()
    chooser.value.set_files(write(tmp_path, "blank.png", blank))
    expect(page.locator("#room-status")).to_contain_text("The room keeps Ann's earlier tableau.", timeout=30000)
    status = page.text_content("#room-status")
    assert status.startswith("Ann: No tableau found") or "blank" in status, status
    assert pad_values(page, "#room-pad")["total"] == total


def test_a_corrected_doubt_goes_even_when_a_proxy_asks_for_another_language(server, page, photo_set, reader, tmp_path):
    # Every request of the page sent with "Accept-Language: cs" (a proxy rewriting the page's
    # "en"): the page asks in English by its query too (?lang=en), so the doubts come back in
    # English and a corrected cell's doubt is found by its wording and goes.
    page.set_extra_http_headers({"Accept-Language": "cs"})
    asked = []
    page.on("request", lambda r: r.resource_type in ("fetch", "xhr") and urlsplit(r.url).path.startswith("/api/")
            and asked.append(r.url))  # the API's JSON, not its <img>s
    upload_solo(page, server, write(tmp_path, "p.jpg", spoil(photo_set[2].jpeg, reader, 3)))
    assert asked and all("lang=en" in url for url in asked), asked
    doubtful = page.eval_on_selector_all("#solo-tableau .grid button.doubt", "bs => bs.map(b => [+b.dataset.row, +b.dataset.col])")
    assert len(doubtful) >= 2
    lines = page.eval_on_selector_all("#solo-tableau .doubts li", "lis => lis.map(li => li.textContent)")
    r, c = doubtful[0]
    mine = f"Row {r + 1}, col {c + 1}: "
    assert any(line.startswith(mine) for line in lines)
    page.click(f"#solo-tableau .marks g[data-row='{r}'][data-col='{c}']")
    page.click("#choices button[data-type='meadow']")
    page.wait_for_function(f"document.querySelectorAll('#solo-tableau .grid button.doubt').length === {len(doubtful) - 1}",
                           timeout=10000)
    after = page.eval_on_selector_all("#solo-tableau .doubts li", "lis => lis.map(li => li.textContent)")
    assert not any(line.startswith(mine) for line in after) and after


def test_a_blurred_photo_is_told_so_in_the_players_language(server, new_page, tmp_path):
    # A defocused photo read with doubts: the page said what was doubted and nothing of why. Its
    # advice (hold still, focus, light) shows at once, in Czech, in the retake box or the doubts.
    from dataclasses import replace

    from ecoscore.datasets.deck import load_deck
    from ecoscore.datasets.scene import SceneParams, render_scene
    from ecoscore.service import translation
    from ecoscore.vision import advice

    base = SceneParams(long_side=1600, p_multi=0.0, p_cut_off=0.0)
    light = replace(base.light, p_defocus=1.0, defocus_sigma=(2.5, 2.5), p_motion=0.0)  # (read with a doubt on any CPU)
    scene = render_scene(load_deck("standin"), (4242, 5), replace(base, light=light))  # as tests/test_steep.py reads it
    page = new_page(locale="cs-CZ")
    page.goto(server)
    page.wait_for_function("document.documentElement.lang === 'cs'")
    page.set_input_files("#file", write(tmp_path, "blurred.jpg", scene.jpeg))
    page.wait_for_selector("#result:not([hidden]), #retake:not([hidden])", timeout=60000)
    czech = translation.translate(advice.BLURRED(), "cs")
    assert czech != advice.BLURRED()
    shown = page.locator("#retake-advice li").all_text_contents() + page.locator("#solo-tableau .doubts li").all_text_contents()
    assert any(czech.rstrip(".")[1:] in item for item in shown), shown
    shot(page, "blurred-cs")
    assert not page.errors


# ---------------------------------------------------------------- an Italian walk (360 × 740)

WALK = {"width": 360, "height": 740}


def tableau_with_a_card_beside(seed: int = 0, beside: bool = True) -> bytes:
    """A photo of a whole 5 × 4 tableau of the stand-in's faces and one card more in line with its
    second row, just outside the grid: read with no cell in doubt, and the read's own doubt "1
    card in line with the grid but outside its 5 × 4 was left out" (the game is not final).
    ``beside`` false: the tableau alone, read with no doubt at all."""
    import random

    decks = Path(__file__).resolve().parent.parent / "datasets" / "decks" / "standin"
    types = sorted(d.name for d in decks.iterdir() if d.is_dir())
    faces = {t: [Image.open(f).convert("RGB") for f in sorted((decks / t).iterdir())] for t in types}
    rnd, w, gap, margin = random.Random(seed), 120, 6, 100
    h = int(w * 448 / 320)
    photo = Image.new("RGB", (6 * (w + gap) + 2 * margin, 4 * (h + gap) + 2 * margin), (70, 110, 60))
    for r, c in [(r, c) for r in range(4) for c in range(5)] + ([(1, 5)] if beside else []):
        photo.paste(rnd.choice(faces[rnd.choice(types)]).resize((w, h)), (margin + c * (w + gap), margin + r * (h + gap)))
    out = io.BytesIO()
    photo.save(out, "JPEG", quality=92)
    return out.getvalue()


LEFT_OUT = "1 card in line with the grid but outside its 5 × 4 was left out"


def left_out_said(lang: str = "en") -> str:
    """The doubt of ``LEFT_OUT`` as the list of doubts says it where its card is outlined on the photo."""
    return said_in(LEFT_OUT, lang) + " " + catalogue(lang)["ui.left_out_shown"]["one"]


def shown(text: str) -> str:
    """A message of the service as the page shows it: "5 × 4" with no-break spaces, never broken
    at a line's end (the service's English has plain spaces there)."""
    return text.replace("5 × 4", "5\u00a0×\u00a04")


def test_a_room_whose_game_the_service_calls_not_final_names_no_winner(server, new_page, tmp_path):
    # Three players, one photo with a card beside the grid: the service said the game was not
    # final (that read's own doubt, no card in doubt), and the pad showed three plain totals
    # under "Winner: ..." (an Italian walk).
    from playwright.sync_api import expect

    page = new_page(viewport=WALK)
    room_id = new_room(page, server)
    add_to_room(page, "Giulia", write(tmp_path, "giulia.jpg", tableau_with_a_card_beside()))
    expect(page.locator("#room-status")).to_contain_text("Added Giulia's tableau", timeout=30000)
    for name in ("bruno", "chiara"):
        put_grid(server, room_id, name, (EXAMPLES / f"{name}.txt").read_text())
    expect(page.locator("#room-pad")).to_contain_text("chiara", timeout=10000)
    game = get_room(server, room_id)["game"]
    giulia = next(p for p in game["players"] if p["name"] == "Giulia")
    # what the test is about: not final for the read's own doubt, not a card's
    assert not game["final"] and giulia["doubts"] == [LEFT_OUT], giulia["doubts"]
    assert not any(cell["doubts"] for row in giulia["cells"] for cell in row)
    totals = page.locator("#room-pad tr.total td")
    assert totals.nth(0).text_content() == f"{giulia['total']}?"
    assert "left out" in totals.nth(0).get_attribute("title")
    assert [totals.nth(k).text_content() for k in (1, 2)] == [str(p["total"]) for p in game["players"][1:]]  # typed in: sure
    winners = page.text_content("#room-winners")
    assert "Winner" not in winners and re.match(r"Leading(?: together)?: [^.(]+ \(not final\)\. ", winners), winners
    assert winners.endswith("Giulia: the photo or the grid is in doubt, so the total is not final."), winners
    assert page.text_content("#mine .tableau-title").startswith(f"Giulia: {giulia['total']}? — ")
    # in Italian too, as the walk had it
    page.select_option("#lang", "it")
    expect(page.locator("#room-winners")).to_contain_text("In testa", timeout=10000)
    assert "Vince" not in page.text_content("#room-winners")
    assert not page.errors


def test_a_single_read_with_a_doubt_of_the_photo_is_not_shown_as_final(server, new_page, tmp_path):
    # The one-photo page showed "Totale: 45", plain, for a read whose only doubt was a card left
    # out beside the grid (an Italian walk): no correction takes that doubt back.
    from playwright.sync_api import expect

    page = new_page(viewport=WALK)
    upload_solo(page, server, write(tmp_path, "beside.jpg", tableau_with_a_card_beside()))
    assert page.locator("#solo-tableau .grid button.doubt").count() == 0  # no card in doubt
    expect(page.locator("#solo-tableau .doubts li")).to_have_text([left_out_said()])
    expect(page.locator("#total-unsure")).to_be_visible()
    assert "left out" in page.get_attribute("#total-unsure", "title")
    assert pad_values(page, "#pad")["total"].endswith("?")
    expect(page.locator("#unsure")).to_have_text("Not final: the photo or the grid is in doubt (see What to check, below).")
    # a card checked changes nothing of it
    page.click("#solo-tableau .marks g[data-row='0'][data-col='0']")
    page.click("#keep")
    expect(page.locator("#total-unsure")).to_be_visible()
    assert not page.errors


def test_the_cards_left_out_beside_the_grid_are_outlined_on_the_photo(server, new_page, tmp_path):
    # "1 card in line with the grid but outside its 5 × 4 was left out" named no cell: the player
    # could not see which card it meant. The read gives its corners (``left_out``): outlined on the
    # photo, dashed in the doubt's colour, marked "?", named for a screen reader, not a card to tap,
    # and said so in the list of doubts; while the doubt stands (not once the grid is said right),
    # and never for a read without them (an older room's).
    from playwright.sync_api import expect

    page = new_page()
    with page.expect_response("**/api/photo*", timeout=60000) as answer:
        upload_solo(page, server, write(tmp_path, "beside.jpg", tableau_with_a_card_beside()))
    doc = answer.value.json()
    view = "#solo-tableau"
    marks, doubts = page.locator(f"{view} .marks g.left-out"), page.locator(f"{view} .doubts li")
    quads = doc["players"][0]["left_out"]
    assert len(quads) == 1 and doc["players"][0]["doubts"] == [LEFT_OUT], doc["players"][0]  # what the test is about
    expect(marks).to_have_count(1)
    expect(marks).to_have_text("?")
    expect(marks).to_have_attribute("role", "img")
    expect(marks).to_have_attribute("aria-label", "Card left out beside the grid: not scored")
    expect(doubts).to_have_text([left_out_said()])
    # drawn where the card beside the grid's second row lies (tableau_with_a_card_beside's layout)
    w, gap, margin = 120, 6, 100
    h = int(w * 448 / 320)
    corners = page.eval_on_selector(f"{view} .marks g.left-out polygon", "p => [...p.points].map(q => [q.x, q.y])")
    x, y = (sum(q[k] for q in corners) / 4 for k in (0, 1))
    assert margin + 5 * (w + gap) < x < margin + 5 * (w + gap) + w and margin + (h + gap) < y < margin + (h + gap) + h, corners
    style = page.eval_on_selector(f"{view} .marks g.left-out polygon", """p => { const s = getComputedStyle(p);
        return [s.stroke, s.strokeDasharray, getComputedStyle(p.parentNode).pointerEvents]; }""")
    assert style[0] == "rgb(255, 140, 26)" and style[1] not in ("", "none") and style[2] == "none", style  # the doubt's colour, dashed
    # in view at 390 px, and a tap there opens no picker (no card of the grid)
    marks.scroll_into_view_if_needed()
    box = marks.bounding_box()
    assert box["width"] > 20 and box["x"] + box["width"] <= PHONE["width"] + 1, box
    shot(page, "left-out-outlined-en")
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_timeout(300)
    expect(page.locator("#picker")).not_to_have_attribute("open", "")
    # in Czech, as a Czech table reads it
    page.select_option("#lang", "cs")
    expect(marks).to_have_attribute("aria-label", catalogue("cs")["ui.left_out_mark"])
    expect(doubts).to_have_text([left_out_said("cs")])
    page.select_option("#lang", "en")
    # the grid said right settles the doubt: no outline, until Undo brings the doubt back
    page.click(f"{view} .grid-right")
    expect(page.locator(f"{view} .settled")).to_be_visible()
    expect(marks).to_have_count(0)
    page.click(f"{view} .undo")
    expect(marks).to_have_count(1)
    expect(doubts).to_have_text([left_out_said()])
    # kept through a reload (the read restored from the tab's storage)
    page.reload()
    page.wait_for_selector("#result:not([hidden])", timeout=10000)
    expect(marks).to_have_count(1)
    expect(doubts).to_have_text([left_out_said()])
    # two cards left out (the read's answer, a second card's corners a row below): both, said so
    two = json.loads(json.dumps(doc))
    player = two["players"][0]
    player["left_out"].append([[x, y + h + gap] for x, y in quads[0]])
    player["doubts"] = ["2 cards in line with the grid but outside its 5 × 4 were left out"]
    page.route("**/api/photo*", lambda route: route.fulfill(status=200, content_type="application/json", body=json.dumps(two)))
    upload_solo(page, server, write(tmp_path, "two.jpg", tableau_with_a_card_beside()))
    expect(marks).to_have_count(2)
    expect(doubts).to_have_text([shown(said_in(player["doubts"][0], "en")) + " " + catalogue("en")["ui.left_out_shown"]["other"]])
    page.unroute("**/api/photo*")
    # a read without them (as an older room's): the doubt said as it was, nothing outlined
    for p in doc["players"]:
        del p["left_out"]
    page.route("**/api/photo*", lambda route: route.fulfill(status=200, content_type="application/json", body=json.dumps(doc)))
    upload_solo(page, server, write(tmp_path, "older.jpg", tableau_with_a_card_beside()))
    expect(doubts).to_have_text([said_in(LEFT_OUT, "en")])
    expect(page.locator(f"{view} .marks g.cell")).to_have_count(20)
    expect(marks).to_have_count(0)
    assert not page.errors


def solo_room_against_an_empty_bot(page, server) -> str:
    """A solo room started on ``page`` whose bot's grid is empty: any tableau beats it by 30 or more."""
    room_id = new_room(page, server, "solo")
    owner = page.evaluate(f"localStorage.getItem('ecoscore-owner:{room_id}')")
    bot = "\n".join(" ".join(["."] * 5) for _ in range(4))
    req = urllib.request.Request(f"{server}/api/rooms/{room_id}/bot", json.dumps({"grid": bot}).encode(), method="PUT",
                                 headers={"Content-Type": "application/json", "X-Room-Token": owner, "If-Match": '"0"'})
    urllib.request.urlopen(req).close()
    return room_id


def test_a_solo_room_whose_read_has_a_doubt_of_the_photo_is_not_final(server, page, tmp_path):
    # Against the bot as in a game: a read with a card left out beside the grid won "for sure"
    # while the service said the game was not final (an Italian walk, in a room of three).
    from playwright.sync_api import expect

    room_id = solo_room_against_an_empty_bot(page, server)
    add_to_room(page, "Giulia", write(tmp_path, "giulia.jpg", tableau_with_a_card_beside()))
    expect(page.locator("#room-status")).to_contain_text("Added Giulia's tableau", timeout=30000)
    game = get_room(server, room_id)["game"]
    assert not game["final"] and game["solo"]["outcome"] != "lost"
    winners = page.text_content("#room-winners")
    assert winners.endswith("Giulia: the photo or the grid is in doubt, so the total is not final."), winners
    assert page.text_content("#room-pad tr.total td").endswith("?")


def test_a_solo_win_in_doubt_is_said_as_for_now_and_names_the_player_on_a_guests_phone(server, new_page, tmp_path):
    # The pad showed "52?" and every phone read "Hai battuto il bot di 52 punti: vittoria notevole",
    # a win stated as fact, and "you" on a guest's phone too, of Chiara's game (an Italian walk).
    from playwright.sync_api import expect

    page = new_page(viewport=WALK, locale="it-IT")
    room_id = solo_room_against_an_empty_bot(page, server)
    add_to_room(page, "Chiara", write(tmp_path, "chiara.jpg", tableau_with_a_card_beside()))
    page.wait_for_selector("#mine .tableau .marks g", timeout=30000)
    game = get_room(server, room_id)["game"]
    assert not game["final"] and game["solo"]["outcome"] != "lost"
    words, margin = catalogue("it"), game["solo"]["margin"]
    outcome = words[f"ui.outcome.{game['solo']['outcome']}"]
    mine = words["ui.solo_win_now"].format(margin=f"{margin} punti", outcome=outcome)
    expect(page.locator("#room-winners")).to_have_text(re.compile("^" + re.escape(mine)), timeout=10000)
    assert page.text_content("#room-winners").count("definitiv") == 1  # "not final" said once, by the note
    shot(page, "solo-not-final-creator-it")

    guest = new_page(viewport=WALK, locale="it-IT")
    guest.goto(f"{server}/r/{room_id}")
    theirs = words["ui.solo_win_by_now"].format(name="Chiara", margin=f"{margin} punti", outcome=outcome)
    expect(guest.locator("#room-winners")).to_have_text(re.compile("^" + re.escape(theirs)), timeout=10000)
    assert "Hai " not in guest.text_content("#room-winners")
    shot(guest, "solo-not-final-guest-it")
    guest.select_option("#lang", "en")
    expect(guest.locator("#room-winners")).to_have_text(
        re.compile("^" + re.escape(f"For now Chiara leads the bot by {margin} points: a")), timeout=10000)
    shot(guest, "solo-not-final-guest-en")
    assert not page.errors and not guest.errors


def test_a_room_player_says_the_grid_is_right_and_the_photos_doubt_is_settled_until_undone(server, new_page, tmp_path):
    # A card left out beside the grid is a doubt of no cell: no correction, no card kept settled
    # it, and the room's game stayed "not final" (Leading, 45?) until the photo was sent again. The
    # player who compared the grid with the table says so ("The grid is right"), and Undo takes it back.
    from playwright.sync_api import expect

    page = new_page()
    room_id = new_room(page, server)
    add_to_room(page, "Kačka", write(tmp_path, "kacka.jpg", tableau_with_a_card_beside()))
    # (its doubt said in a word: "Ecosistema di X aggiunto." stood alone over a read to check: an Italian walk)
    expect(page.locator("#room-status")).to_have_text("Added Kačka's tableau. Some of it needs checking (see What to check).", timeout=30000)
    page.select_option("#lang", "it")
    expect(page.locator("#room-status")).to_have_text("Ecosistema di Kačka aggiunto. Qualcosa va controllato (vedi Da controllare).")
    page.select_option("#lang", "en")
    put_grid(server, room_id, "bruno", (EXAMPLES / "bruno.txt").read_text())
    put_grid(server, room_id, "chiara", (EXAMPLES / "chiara.txt").read_text())  # (a game of 3-6 waits for its third)
    expect(page.locator("#room-pad")).to_contain_text("chiara", timeout=10000)
    kacka = room_player_when(server, room_id, "Kačka", lambda p: True)
    assert kacka["doubts"] == [LEFT_OUT] and not get_room(server, room_id)["game"]["final"], kacka["doubts"]
    left_out = left_out_said()
    expect(page.locator("#mine .doubts li")).to_have_text([left_out])
    expect(page.locator("#mine .marks g.left-out")).to_have_count(1)  # the card it means, outlined on the photo
    expect(page.locator("#mine .settled")).to_be_hidden()
    button, hint = page.locator("#mine .grid-right"), page.locator("#mine .grid-right-hint")
    expect(button).to_have_text("The grid is right")
    expect(hint).to_have_text("Tells the room you compared every card with your tableau on the table.")
    assert page.text_content("#room-pad tr.total td").endswith("?")
    assert page.text_content("#room-winners").startswith("Leading")
    shot(page, "room-grid-to-check-en")

    button.click()
    kacka = room_player_when(server, room_id, "Kačka", lambda p: p.get("checked") is True)
    assert kacka["doubts"] == [] and kacka["settled"] == [LEFT_OUT] and get_room(server, room_id)["game"]["final"]
    expect(page.locator("#mine .tool-status")).to_have_text("Grid checked: saved for the room.")
    settled = f"Kačka confirmed the grid at the table. Doubts set aside: {LEFT_OUT}."  # (lower case, as the message is written: a Russian walk)
    expect(page.locator("#mine .settled")).to_have_text(settled)
    expect(page.locator("#mine .doubts li")).to_have_count(0)
    expect(page.locator("#mine .doubts-title")).to_be_hidden()
    expect(page.locator("#mine .marks g.left-out")).to_have_count(0)  # settled: no longer outlined
    expect(button).to_be_hidden()
    expect(hint).to_be_hidden()
    expect(page.locator("#mine .undo")).to_be_focused()  # (the button pressed is gone: the focus beside it)
    # the game is final on the page too: a winner, plain totals, and what the check settled said calmly
    expect(page.locator("#room-winners")).to_contain_text(re.compile(r"^(Winners?|Tied for the win): "))
    winners = page.text_content("#room-winners")
    assert winners.endswith(shown(settled)) and "not final" not in winners and "in doubt" not in winners, winners
    assert page.text_content("#room-pad tr.total td") == str(kacka["total"])
    assert page.locator("#room-pad td.unsure").count() == 0
    assert page.text_content("#mine .tableau-title").startswith(f"Kačka: {kacka['total']} points — ")
    shot(page, "room-grid-checked-en")
    # another phone: Kačka's tableau shows what was settled, and offers no button; a read with
    # no doubt at all offers none either
    guest = new_page()
    guest.goto(f"{server}/r/{room_id}")
    guest.click("#room-pad thead button:has-text('Kačka')")
    expect(guest.locator("#others .settled")).to_have_text(settled)
    expect(guest.locator("#others .marks g.cell")).to_have_count(20)
    expect(guest.locator("#others .marks g.left-out")).to_have_count(0)
    expect(guest.locator("#others .grid-right")).to_be_hidden()
    add_to_room(guest, "Eva", write(tmp_path, "eva.jpg", tableau_with_a_card_beside(seed=1, beside=False)))
    expect(guest.locator("#room-status")).to_have_text("Added Eva's tableau.", timeout=30000)
    expect(guest.locator("#mine .grid-right")).to_be_hidden()
    assert guest.locator("#mine .grid button.doubt").count() == 0 and not guest.errors
    # Three players' cards past the deck's count of a type: said as that, on the pad's line (it was
    # said only in a total's title, which no phone shows, and blamed every player's photo or grid);
    # the game's own count, after "Leading: ... (not final).", without a second "Not final" (a Russian walk)
    game = get_room(server, room_id)["game"]
    ours = [d for d in game["deck_issues"] if d.startswith("the game has ")]
    assert ours and not game["final"], game["deck_issues"]
    expect(page.locator("#room-winners")).to_contain_text(ours[0][0].upper() + ours[0][1:] + ".", timeout=10000)
    assert "the photo or the grid" not in page.text_content("#room-winners")
    assert "Not final:" not in page.text_content("#room-winners")
    # in Czech, as a Czech table reads it
    page.select_option("#lang", "cs")
    expect(page.locator("#mine .settled")).to_have_text(f"Kačka: mřížka potvrzena u stolu. Pochybnosti vyřešeny: {said_in(LEFT_OUT, 'cs', first=False)[:-1]}.")
    expect(page.locator("#mine .tool-status")).to_have_text("Mřížka ověřena: uloženo pro místnost.")
    expect(page.locator("#room-winners")).to_contain_text(sentence_cs(ours[0]))
    shot(page, "room-grid-checked-cs")
    page.select_option("#lang", "en")

    # Undo takes it back: the doubt as read, on the service and the page, the game not final
    page.click("#mine .undo")
    room_player_when(server, room_id, "Kačka", lambda p: "checked" not in p and p["doubts"] == [LEFT_OUT])
    expect(page.locator("#mine .tool-status")).to_have_text("“The grid is right” undone: the read's doubts stand again.")
    expect(page.locator("#mine .doubts li")).to_have_text([left_out])
    expect(page.locator("#mine .marks g.left-out")).to_have_count(1)
    expect(page.locator("#mine .settled")).to_be_hidden()
    expect(button).to_be_visible()
    expect(page.locator("#room-winners")).to_contain_text(re.compile(r"^Leading"))
    assert "confirmed the grid" not in page.text_content("#room-winners")
    assert page.text_content("#room-pad tr.total td").endswith("?")
    # checked again, it stays so after a reload, and "Back to what was read" takes it back too
    button.click()
    room_player_when(server, room_id, "Kačka", lambda p: p.get("checked") is True)
    page.reload()
    expect(page.locator("#mine .settled")).to_have_text(settled, timeout=10000)
    expect(page.locator("#mine .grid-right")).to_be_hidden()
    page.click("#mine .revert")
    room_player_when(server, room_id, "Kačka", lambda p: "checked" not in p and p["doubts"] == [LEFT_OUT])
    expect(page.locator("#mine .doubts li")).to_have_text([left_out])
    expect(page.locator("#mine .grid-right")).to_be_visible()
    assert not page.errors


def test_the_settled_line_confirms_the_check_and_leaves_the_retake_advice_out(server, page):
    # "Griglia di Chiara verificata al tavolo: questa foto contiene 4 ecosistemi: … Le carte sono
    # piccole nella foto…: avvicinati…": read as a new problem, and told the whole room how to retake
    # a photo whose grid was checked already (an Italian walk).
    page.goto(server)
    page.select_option("#lang", "it")
    page.wait_for_function("document.documentElement.lang === 'it'")
    multi = "this photo holds 4 tableaux: the one with the most cards was taken as yours (photograph yours alone to be sure)"
    far = "the cards are small in the photo (about 40 px wide): come closer so the tableau fills the frame"
    words = catalogue("it")
    # The photo's several tableaux said as settled, not as "taken as yours (photograph yours alone
    # to be sure)": every phone read "yours" as its own, in parentheses inside the note's (a game night's walk).
    doubts = "; ".join([words["ui.settled_several"]["other"].format(n=4), said_in(LEFT_OUT, "it", first=False)[:-1]])
    said = page.evaluate("ds => settledText('Chiara', ds)", [multi, far, LEFT_OUT])
    assert said == words["ui.settled_by"].format(name="Chiara", doubts=doubts), said
    assert said.startswith("Chiara ha confermato la griglia al tavolo. Dubbi superati: la foto conteneva 4 ecosistemi")
    assert "avvicinati" not in said and "tuo" not in said and "(" not in said  # none nested, none at all (a walk: brackets in brackets)
    assert page.evaluate("ds => settledText(null, ds)", [far]) == words["ui.checked_here"]
    assert not page.errors


def test_the_one_photo_page_says_the_grid_is_right_and_the_photos_doubt_is_settled_until_undone(server, new_page, tmp_path):
    # With no room, a card left out beside the grid kept the one photo's total "35?", "Not final:
    # the photo or the grid is in doubt", for good: nothing but a new photo settled it, even once the
    # player had compared every card with the table. "The grid is right" settles it on the page.
    from playwright.sync_api import expect

    from ecoscore.service import translation

    page = new_page()
    upload_solo(page, server, write(tmp_path, "beside.jpg", tableau_with_a_card_beside()))
    view = "#solo-tableau"
    button, hint, said = page.locator(f"{view} .grid-right"), page.locator(f"{view} .grid-right-hint"), page.locator(f"{view} .tool-status")
    settled, doubts = page.locator(f"{view} .settled"), page.locator(f"{view} .doubts li")
    left_out = left_out_said()
    not_final = "Not final: the photo or the grid is in doubt (see What to check, below)."

    def in_doubt():
        expect(doubts).to_have_text([left_out])
        expect(settled).to_be_hidden()
        expect(button).to_be_visible()
        expect(page.locator("#total-unsure")).to_be_visible()
        expect(page.locator("#unsure")).to_have_text(not_final)
        assert pad_values(page, "#pad")["total"] == page.text_content("#total") + "?"

    def final():
        expect(settled).to_have_text(f"Grid confirmed at the table. Doubts set aside: {LEFT_OUT}.")
        expect(doubts).to_have_count(0)
        expect(page.locator(f"{view} .doubts-title")).to_be_hidden()
        expect(button).to_be_hidden()
        expect(hint).to_be_hidden()
        expect(page.locator("#total-unsure")).to_be_hidden()
        expect(page.locator("#unsure")).to_be_hidden()
        total = page.text_content("#total")
        assert "?" not in total and pad_values(page, "#pad")["total"] == total
        assert page.locator("#pad td.unsure").count() == 0 and page.get_attribute("#pad tr.total td", "title") is None

    in_doubt()
    expect(button).to_have_text("The grid is right")
    # (it said "the doubts are settled and the total is final" before the press: an Italian walk)
    expect(hint).to_have_text("If you have compared every card with your tableau on the table, press it: the read's doubts are then set aside.")
    shot(page, "solo-grid-to-check-en")
    page.select_option("#lang", "cs")  # what it does, in Czech as a Czech table reads it
    expect(button).to_have_text("Mřížka je správně")
    expect(hint).to_have_text("Pokud jste porovnali každou kartu se svým ekosystémem na stole, stiskněte toto tlačítko: pochybnosti čtení se pak považují za vyřešené.")
    shot(page, "solo-grid-to-check-cs")
    page.select_option("#lang", "it")
    expect(hint).to_have_text("Se hai confrontato ogni carta con il tuo ecosistema sul tavolo, tocca qui: i dubbi della lettura si considerano superati.")
    shot(page, "solo-grid-to-check-it")
    page.select_option("#lang", "en")

    button.click()
    expect(said).to_have_text("Grid checked.")  # settled here: no room to save it for
    final()
    expect(page.locator(f"{view} .undo")).to_be_focused()  # (the button pressed is gone: the focus beside it)
    shot(page, "solo-grid-checked-en")
    # in Italian, as the walk had it
    page.select_option("#lang", "it")
    italian = translation.translate(LEFT_OUT, "it")
    expect(settled).to_have_text(f"Griglia confermata al tavolo. Dubbi superati: {italian}.")
    expect(said).to_have_text("Griglia verificata.")
    shot(page, "solo-grid-checked-it")
    page.select_option("#lang", "en")

    # kept through a reload, and Undo (its step kept too) brings the doubt back
    page.reload()
    page.wait_for_selector("#result:not([hidden])", timeout=10000)
    final()
    page.click(f"{view} .undo")
    expect(said).to_have_text("“The grid is right” undone: the read's doubts stand again.")  # its step kept too
    in_doubt()
    # checked again, "Back to what was read" takes it back too
    button.click()
    final()
    page.click(f"{view} .revert")
    expect(said).to_have_text("Back to the grid as it was read.")
    in_doubt()

    # a read with nothing in doubt offers nothing to settle
    upload_solo(page, server, write(tmp_path, "alone.jpg", tableau_with_a_card_beside(seed=1, beside=False)))
    expect(doubts).to_have_count(0)
    assert page.locator(f"{view} .grid button.doubt").count() == 0
    expect(button).to_be_hidden()
    expect(hint).to_be_hidden()
    expect(page.locator("#total-unsure")).to_be_hidden()
    assert not page.errors


def test_each_tableau_of_one_photo_keeps_its_own_grid_is_right(server, page, reader, tmp_path):
    # A photo of two tableaux, each with a card left beside its grid: the grid said right on one is
    # that one's alone, kept while the other is shown and through a reload. A card in doubt is
    # looked at first: "The grid is right" is offered once it is kept (one tap kept every card
    # in doubt, unlooked at, and the total said final).
    from playwright.sync_api import expect

    a, b = (Image.open(io.BytesIO(tableau_with_a_card_beside(seed))) for seed in (0, 1))
    photo = Image.new("RGB", (a.width + b.width + 200, a.height), (70, 110, 60))
    photo.paste(a, (0, 0))
    photo.paste(b, (a.width + 200, 0))
    img = cv2.cvtColor(np.asarray(photo), cv2.COLOR_RGB2BGR)
    read = reader.read(cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 92])[1].tobytes())
    assert [t.doubts for t in read.tableaux] == [[LEFT_OUT], [LEFT_OUT]]  # what the test is about
    q = read.tableaux[0].cells[0].quad.astype(np.float32)  # (as helpers.spoil does: a card of the first in doubt)
    mask = np.zeros(img.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, (q.mean(0) + (q - q.mean(0)) * 0.7).astype(np.int32), 255)
    img[mask > 0] = np.random.default_rng(0).integers(0, 255, img.shape, dtype=np.uint8)[mask > 0]
    upload_solo(page, server, write(tmp_path, "two.jpg", cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 92])[1].tobytes()))
    view, other = "#solo-tableau", page.locator("#other-tableau")
    button, settled, doubtful = page.locator(f"{view} .grid-right"), page.locator(f"{view} .settled"), page.locator(f"{view} .grid button.doubt")
    expect(page.locator("#which-shown")).to_have_text(re.compile("Tableau [12] of 2 shown."))
    if doubtful.count() == 0:  # (the spoilt card's tableau first)
        other.click()
    expect(doubtful).not_to_have_count(0)
    expect(button).to_be_hidden()  # the card in doubt looked at first
    r, c = doubtful.first.get_attribute("data-row"), doubtful.first.get_attribute("data-col")
    page.click(f"{view} .grid button[data-row='{r}'][data-col='{c}']")
    page.click(f"{view} .change")
    page.wait_for_selector("#picker[open]")
    page.click("#keep")
    expect(doubtful).to_have_count(0)
    expect(button).to_be_visible()
    expect(page.locator("#total-unsure")).to_be_visible()  # the photo's own doubt: not final yet
    first = page.text_content("#which-shown")
    button.click()
    expect(settled).to_have_text(f"Grid confirmed at the table. Doubts set aside: {LEFT_OUT}.")
    expect(page.locator("#total-unsure")).to_be_hidden()
    other.click()
    expect(page.locator("#which-shown")).not_to_have_text(first)
    expect(settled).to_be_hidden()
    expect(button).to_be_visible()  # (no card of this one in doubt: offered at once)
    expect(page.locator("#total-unsure")).to_be_visible()
    second = page.text_content("#which-shown")
    page.reload()
    expect(page.locator("#which-shown")).to_have_text(second, timeout=30000)
    expect(button).to_be_visible()
    other.click()
    expect(page.locator("#which-shown")).to_have_text(first)
    expect(settled).to_have_text(f"Grid confirmed at the table. Doubts set aside: {LEFT_OUT}.")
    expect(button).to_be_hidden()
    expect(page.locator("#total-unsure")).to_be_hidden()
    assert "?" not in pad_values(page, "#pad")["total"]
    assert not page.errors


def sentence_cs(doubt: str) -> str:
    """A read's doubt as the page says it in Czech: translated as the service does, a sentence."""
    from ecoscore.service import translation

    text = translation.translate(doubt, "cs")
    return text[:1].upper() + text[1:] + ("" if re.search(r"[.!?]\Z", text) else ".")


def catalogue(lang: str) -> dict:
    return json.loads((STATIC / "i18n" / f"{lang}.json").read_text())


@pytest.mark.parametrize("where, locale", [("solo", "it-IT"), ("room", "it-IT"), ("solo", "cs-CZ"), ("room", "ru-RU")])
def test_a_correction_that_fails_offline_is_said_beside_the_tableau_in_view(server, new_page, photo_set, tmp_path, where, locale):
    # Offline, a card tapped and changed was taken back, and why was said on the page's status
    # line, off the screen: 257 px above in solo, 816 px in a room (an Italian walk at 360 × 740).
    from playwright.sync_api import expect

    lang = locale[:2]
    page = new_page(viewport=WALK, locale=locale)
    if where == "solo":
        upload_solo(page, server, write(tmp_path, "p.jpg", photo_set[2].jpeg))
        root = "#solo-tableau"
    else:
        new_room(page, server)
        add_to_room(page, "Giulia", write(tmp_path, "giulia.jpg", photo_set[2].jpeg))
        page.wait_for_selector("#mine .tableau .marks g", timeout=30000)
        root = "#mine"
    page.wait_for_function(f"document.documentElement.lang === '{lang}'")
    cell = page.locator(f"{root} .grid button[data-row='3'][data-col='2']")  # the player at the tableau's grid
    cell.evaluate("b => b.scrollIntoView({ block: 'center' })")
    before = cell.text_content()
    page.context.set_offline(True)
    cell.click()
    page.click(f"{root} .change")
    page.wait_for_selector("#picker[open]")
    page.wait_for_timeout(500)  # (the picker takes no tap at once)
    choice = "bee" if cell.get_attribute("data-type") != "bee" else "bear"
    page.click(f"#choices button[data-type='{choice}']")
    said = page.get_by_text(catalogue(lang)["ui.network_error_api"])
    expect(said).to_have_count(1, timeout=10000)
    expect(cell).to_have_text(before)  # taken back
    in_view = "e => { const r = e.getBoundingClientRect(); return r.height > 0 && r.top >= 0 && r.bottom <= innerHeight; }"
    assert said.evaluate(in_view), said.bounding_box()
    assert said.evaluate("(e, root) => document.querySelector(root).contains(e)", root)  # beside the tableau
    page.context.set_offline(False)
    expect(said).to_have_count(0, timeout=10000)  # back online: it goes
    assert not page.errors


def test_an_error_of_one_clause_is_shown_as_a_sentence(server, new_page, tmp_path):
    # "non è un'immagine (si attende JPEG, PNG, WebP o HEIC)", "il file è vuoto", "la stanza «x»
    # non esiste": lower case, no full stop, beside longer errors written as sentences (an Italian walk).
    from playwright.sync_api import expect

    page = new_page(viewport=WALK, locale="it-IT")
    page.goto(server)
    page.wait_for_function("document.documentElement.lang === 'it'")
    status = page.locator("#status")
    page.set_input_files("#file", write(tmp_path, "note.jpg", b"not a photo at all"))
    expect(status).to_have_text("Non è un'immagine (si attende JPEG, PNG, WebP o HEIC).", timeout=20000)
    page.set_input_files("#file", write(tmp_path, "vuota.jpg", b""))
    expect(status).to_have_text("Il file è vuoto.", timeout=20000)
    page.goto(f"{server}/r/x")
    expect(page.locator("#room-status")).to_have_text("La stanza «x» non esiste.", timeout=10000)
    # ... and one that ends in a stop, or a colon, gets none more (the page's own)
    assert page.evaluate("[clauses('a b.'), clauses('a b:'), clauses('a b?'), clauses('a; b')]") == ["A b.", "A b:", "A b?", "A. B."]
    assert not page.errors


def test_a_leave_that_did_not_happen_leaves_errors_said(server, new_page, tmp_path):
    # A page that began to leave and stayed (a link that downloads, a leave cancelled) kept every
    # later failure unsaid, as if it were going: a refused photo said nothing (a helper's note).
    from playwright.sync_api import expect

    page = new_page(viewport=WALK)
    page.goto(server)
    page.evaluate("dispatchEvent(new Event('beforeunload'))")  # a leave begun, and not made
    page.set_input_files("#file", write(tmp_path, "note.jpg", b"not a photo at all"))  # the page used again
    expect(page.locator("#status")).to_have_text("Not an image (JPEG, PNG, WebP or HEIC expected).", timeout=20000)
    assert not page.errors


@pytest.mark.parametrize("mode, others", [("two-player", ["bruno"]), ("solo", []),
                                          ("game", ["bruno", "Anna", "Chiara", "Dario", "Elena"])])
def test_a_full_room_says_so_before_the_file_chooser_opens(server, new_page, photo_set, tmp_path, mode, others):
    # A full two-player room still offered "Add my tableau": the refusal ("a two-player room
    # seats 2: it is full") came only after the whole upload (an Italian walk); so did a game
    # room's to its seventh player. A player of it may still retake their photo.
    from playwright.sync_api import expect

    page = new_page(viewport=WALK, locale="it-IT")
    room_id = new_room(page, server, mode)
    add_to_room(page, "Giulia", write(tmp_path, "giulia.jpg", photo_set[2].jpeg))
    page.wait_for_selector("#mine .tableau", timeout=30000)
    for name in others:
        put_grid(server, room_id, name, (EXAMPLES / "bruno.txt").read_text())
    expect(page.locator("#room-pad")).to_contain_text(others[-1] if others else "Giulia", timeout=10000)
    chosen = []
    page.on("filechooser", lambda chooser: chosen.append(chooser))
    page.fill("#player-name", "Marco")
    page.click("#add-photo")
    # the service's refusal, in Italian ("una stanza per due giocatori ha 2 posti: è piena"), as a sentence
    full = catalogue("it")[{"two-player": "api.two_player_full", "solo": "api.solo_full", "game": "api.room_full"}[mode]
                           ].format(n=len(others) + 1)
    expect(page.locator("#room-status")).to_have_text(full[0].upper() + full[1:] + ".")
    page.wait_for_timeout(500)
    assert chosen == []  # the file chooser never opened
    page.fill("#player-name", "Giulia")  # her own seat: asked whether to replace, as before
    page.click("#add-photo")
    expect(page.locator("#confirm")).to_have_attribute("open", "")
    assert not page.errors


def test_the_bots_grid_from_a_photo_that_is_no_tableau_is_refused_without_the_files_name(server, new_page):
    # "icon-512: No tableau found: ...": the photo's file name before the refusal (an Italian walk;
    # the one-photo page leaves it out already).
    from playwright.sync_api import expect

    page = new_page(viewport=WALK, locale="it-IT")
    new_room(page, server, "solo")
    page.wait_for_function("document.documentElement.lang === 'it'")
    page.set_input_files("#bot-file", str(STATIC / "icon-512.png"))
    said = page.locator("#bot-status")
    expect(said).to_have_class(re.compile("error"), timeout=60000)
    text = said.text_content()
    assert "icon-512" not in text and text.startswith("Nessun"), text  # "Nessun ecosistema trovato: ..."
    assert not page.errors


def test_the_bots_grid_read_from_a_photo_is_shown_from_its_start(server, new_page, photo_set, tmp_path):
    # After "Bot's grid from a photo" its box stayed scrolled sideways, its lines read from the
    # middle ("cello cervo prato ...": an Italian walk at 360 px; a line a row, not wrapped).
    from playwright.sync_api import expect

    page = new_page(viewport=WALK, locale="it-IT")
    new_room(page, server, "solo")
    page.wait_for_function("document.documentElement.lang === 'it'")
    box = page.locator("#bot-grid")
    for k, photo in enumerate((photo_set[3], photo_set[4])):
        before = box.input_value()
        page.set_input_files("#bot-file", write(tmp_path, f"bot{k}.jpg", photo.jpeg))
        page.wait_for_function(f"document.querySelector('#bot-status').textContent === {json.dumps(catalogue('it')['ui.bot_read'])}"
                               f" && document.querySelector('#bot-grid').value !== {json.dumps(before)}", timeout=60000)
        assert box.evaluate("b => b.scrollWidth > b.clientWidth")  # (its lines are wider than the box: else this proves nothing)
        assert box.evaluate("b => [b.scrollLeft, b.scrollTop]") == [0, 0]
        box.evaluate("b => { b.scrollLeft = b.scrollWidth; }")  # read to a line's end, as a player swipes it
        assert box.evaluate("b => b.scrollLeft") > 0
    page.select_option("#lang", "en")  # its names said anew: from the start too
    expect(box).to_have_value(re.compile(r"^(rabbit|trout|fox|bear|dragonfly|bee|eagle|wolf|deer|stream|meadow|\.) "), timeout=10000)
    assert box.evaluate("b => [b.scrollLeft, b.scrollTop]") == [0, 0]
    assert not page.errors


def test_a_cell_cut_by_the_frame_is_unknown_while_a_new_decks_cards_are_named(server, new_page, photo_set, tmp_path):
    # Naming a new deck's cards, the cells the frame cut showed "vuota" (empty), where a read of
    # the same photo shows "ignota" (unknown): nothing was read there (an Italian walk).
    from playwright.sync_api import expect

    from ecoscore.service.routes.photos import for_the_page
    from ecoscore.vision.refusals import not_this_deck

    scene = photo_set[1]
    image = cv2.imdecode(np.frombuffer(scene.jpeg, np.uint8), cv2.IMREAD_COLOR)
    xs = [x for t in scene.truth["tableaux"] for cell in t["cells"] for x in np.array(cell["corners"])[:, 0]]
    cut = int(max(xs) - 0.15 * (max(xs) - min(xs)))  # the last column's cards partly out of the frame
    path = write(tmp_path, "cut.jpg", cv2.imencode(".jpg", image[:, :cut])[1].tobytes())
    page = new_page(viewport=WALK, locale="it-IT")
    upload_solo(page, server, path)  # read: its cells out of view are unknown
    words = catalogue("it")
    unknown = {key for key, text in labels(page).items() if text.startswith(words["ui.unknown_cell"])}
    assert unknown, labels(page)
    # The player's own deck (the page reads none of its cards): its cells laid out to name.
    page.route("**/api/photo*", lambda route: route.fulfill(status=422, content_type="application/json", body=json.dumps(
        {"detail": f"cut: {for_the_page(not_this_deck(17))}", "code": "not_this_deck"})))
    page.set_input_files("#file", path)
    expect(page.locator("#teach")).to_be_visible(timeout=30000)
    page.click("#teach-start")
    page.wait_for_function("solo.teaching && document.querySelector('#result').hidden === false", timeout=60000)
    named = labels(page)
    assert {key for key, text in named.items() if text == words["ui.unknown_cell"]} == unknown, named
    assert not any(text == words["card.empty"] for key, text in named.items() if key in unknown), named
    r, c = sorted(unknown)[0]
    page.click(f"#solo-tableau .marks g[data-row='{r}'][data-col='{c}']")  # what it is, said as a read says it
    page.wait_for_selector("#picker[open]")
    expect(page.locator("#picker-cell")).to_have_text(words["ui.picker_unknown"].format(row=r + 1, col=c + 1))
    # ... and no choice marked as what it is: "vuota" outlined read as its value (an Italian walk)
    assert page.locator("#choices button.current").count() == 0
    page.click("#picker-cancel")
    # Every card in view named: the total shows, and is not final while the cells cut are unknown
    # ("Totale: 36", final-looking, for a tableau of 43: a Russian walk).
    page.click("#solo-tableau .review")
    for _ in range(20):
        if not page.evaluate("document.querySelector('#picker').open"):
            break
        page.wait_for_timeout(400)  # (the picker takes no tap at once: PICK_GUARD_MS)
        page.click("#choices button[data-type='meadow']")
        page.wait_for_timeout(300)
    expect(page.locator("#result h2.total")).to_be_visible(timeout=10000)
    expect(page.locator("#total-unsure")).to_be_visible()
    expect(page.locator("#unsure")).to_have_text(words["ui.read_unsure"])
    assert "?" in page.text_content("#pad")
    # ... and final once the player names those too, as they lie on the table
    for r, c in sorted(unknown):
        page.click(f"#solo-tableau .marks g[data-row='{r}'][data-col='{c}']")
        page.wait_for_selector("#picker[open]")
        page.wait_for_timeout(400)
        page.click("#choices button[data-type='meadow']")
        page.wait_for_function("!document.querySelector('#picker').open")
    expect(page.locator("#total-unsure")).to_be_hidden(timeout=10000)
    assert not page.errors


def test_solo_against_the_bot_with_cards_in_doubt_says_not_final_once(server, new_page, photo_set, reader, tmp_path):
    # "You beat the bot by 49 points: win. (Not final: some cards are in doubt.) Giulia: 6 cards
    # are in doubt, so the total is not final.": said twice (an Italian walk).
    from playwright.sync_api import expect

    page = new_page(viewport=WALK, locale="it-IT")
    solo_room_against_an_empty_bot(page, server)
    add_to_room(page, "Giulia", write(tmp_path, "giulia.jpg", spoil(photo_set[2].jpeg, reader, 3)))
    page.wait_for_selector("#mine .tableau .marks g", timeout=30000)
    n = page.locator("#mine .grid button.doubt").count()
    assert n >= 2
    words = catalogue("it")
    expect(page.locator("#room-winners")).to_have_text(re.compile(re.escape(words["ui.pad_unsure"]["other"].format(name="Giulia", n=n)) + "$"),
                                                       timeout=10000)
    winners = page.text_content("#room-winners")
    assert winners.startswith(words["ui.solo_win_now"].split("{")[0]) and winners.count("definitiv") == 1, winners
    assert not page.errors


@pytest.mark.parametrize("streams, wolves", [("-1", "0"), ("2.5", "0"), ("3", "-2")])
def test_a_neutral_pile_out_of_its_range_says_the_range_in_whole_numbers(server, new_page, streams, wolves):
    # Given -1 or 2.5, the page's own check said "at most 20 streams and 12 wolves": true, and no
    # help (an Italian walk). It says the range, and that the numbers are whole.
    from playwright.sync_api import expect

    page = new_page(viewport=WALK, locale="it-IT")
    room_id = new_room(page, server, "two-player")
    page.wait_for_function("document.documentElement.lang === 'it'")
    page.fill("#neutral-streams", streams)
    page.fill("#neutral-wolves", wolves)
    page.click("#save-neutral")
    words = catalogue("it")
    said = words["ui.neutral_range"].format(what=words["ui.neutral"], streams=20, wolves=12)
    expect(page.locator("#room-status")).to_have_text(said[0].upper() + said[1:])
    assert "0" in said and "20" in said and "12" in said
    assert get_room(server, room_id)["neutral"] == [0, 0]  # nothing sent
    assert not page.errors


# ---------------------------------------------------------------- a Russian walk (390 × 844)

def said_in(doubt: str, lang: str, first: bool = True) -> str:
    """A read's doubt as the page says it in ``lang``: translated as the service does, a sentence
    (``first``), or lower case as it follows a line's colon."""
    from ecoscore.service import translation

    text = translation.translate(doubt, lang)
    return (text[:1].upper() + text[1:] if first else text) + ("" if re.search(r"[.!?]\Z", text) else ".")


def grid_text(grid) -> str:
    return "\n".join(" ".join(cell or "." for cell in row) for row in grid)


def test_a_tableau_photographed_twice_stays_in_doubt_after_the_grid_is_right(server, new_page, tmp_path):
    # Петя's read held "the same 20 cards in the same places as dima's tableau: one tableau
    # photographed twice?", which no check at the table settles (the service keeps it after
    # "The grid is right"). The page hid it: What to check and the button gone, "Петя's grid
    # checked at the table", and the total still "?" with no reason anywhere (a Russian walk).
    # It stays a doubt, and alone it offers no button. The settled line says the doubt after its
    # colon in lower case, and the button's hint is said under the button, not under Undo.
    from playwright.sync_api import expect

    page = new_page(locale="ru-RU")
    room_id = new_room(page, server)
    add_to_room(page, "Петя", write(tmp_path, "petya.jpg", tableau_with_a_card_beside()))
    page.wait_for_selector("#mine .tableau .marks g", timeout=30000)
    petya = room_player_when(server, room_id, "Петя", lambda p: True)
    put_grid(server, room_id, "dima", grid_text(petya["grid"]))  # the same tableau, for a second player
    twin = ("the same 20 cards in the same places as dima's tableau: one tableau photographed twice? "
            "Photograph each player's own tableau")
    petya = room_player_when(server, room_id, "Петя", lambda p: twin in p["doubts"])
    assert petya["doubts"] == [LEFT_OUT, twin], petya["doubts"]  # what the test is about
    mine, button, hint = page.locator("#mine"), page.locator("#mine .grid-right"), page.locator("#mine .grid-right-hint")
    expect(mine.locator(".doubts li")).to_have_text([left_out_said("ru"), said_in(twin, "ru")], timeout=10000)
    expect(button).to_be_visible()  # the card beside the grid is the check's to settle
    words = catalogue("ru")
    expect(hint).to_have_text(words["ui.grid_right_hint"])
    # said under the button it describes, above Undo and Back to what was read (it sat under those)
    b, h, u = (x.bounding_box() for x in (button, hint, mine.locator(".undo")))
    assert b["y"] + b["height"] <= h["y"] and h["y"] + h["height"] <= u["y"], (b, h, u)

    button.click()
    room_player_when(server, room_id, "Петя", lambda p: p.get("checked") is True and p["settled"] == [LEFT_OUT] and p["doubts"] == [twin])
    expect(mine.locator(".tool-status")).to_have_text(words["ui.grid_checked_saved"])
    # the twin is still a doubt, said as one; the settled line lists what the check settled, after
    # its colon in lower case
    expect(mine.locator(".doubts li")).to_have_text([said_in(twin, "ru")])
    expect(mine.locator(".doubts-title")).to_be_visible()
    settled = words["ui.settled_by"].format(name="Петя", doubts=said_in(LEFT_OUT, "ru", first=False)[:-1])
    expect(mine.locator(".settled")).to_have_text(settled)
    assert said_in(LEFT_OUT, "ru", first=False).startswith("рядом с сеткой (вне 5\u00a0×\u00a04) лежит ещё 1 карта")
    # (the walk's other Russian: cards beside every tableau, a grid typed of the wrong shape, the pad's list)
    loose = "5 cards lie side by side outside every tableau read: if they are a player's tableau, it was not read (photograph it alone, or closer)"
    assert page.evaluate("m => I18N.message(m)", loose).startswith("рядом лежат ещё 5 карт, не входящих ни в одну экосистему: ")
    shape = "a tableau is 4 rows of 5 cards (or 5 rows of 4); got 3 rows, holding 5, 5, 4 cards"
    assert page.evaluate("m => I18N.message(m)", shape) == "сетка — 4 строки по 5 карт (или 5 строк по 4); введено строк: 3 (карт в них: 5, 5, 4)"
    assert page.evaluate("I18N.t('ui.pad_unsure_entry', { name: 'Алёна', n: 1 })") == "Алёна — 1"
    expect(button).to_be_hidden()
    total = room_player_when(server, room_id, "Петя", lambda p: True)["total"]
    expect(mine.locator(".tableau-title")).to_have_text(re.compile(rf"^Петя: {total}\? — "))
    expect(page.locator("#room-pad tr.total td").first).to_have_text(f"{total}?")
    # (dima's typed grid is said to be Петя's tableau too)
    expect(page.locator("#room-winners")).to_contain_text(words["ui.pad_read_unsure"]["few"].format(names="Петя и dima"))
    shot(page, "room-twin-checked-ru")
    page.select_option("#lang", "en")
    expect(mine.locator(".doubts li")).to_have_text([twin[0].upper() + twin[1:] + "."])
    expect(mine.locator(".settled")).to_have_text(f"Петя confirmed the grid at the table. Doubts set aside: {LEFT_OUT}.")
    shot(page, "room-twin-checked-en")

    # a photo whose only doubt is the twin: nothing for the button to settle, so none offered
    guest = new_page(locale="ru-RU")
    guest.goto(f"{server}/r/{room_id}")
    add_to_room(guest, "Ева", write(tmp_path, "eva.jpg", tableau_with_a_card_beside(seed=1, beside=False)))
    guest.wait_for_selector("#mine .tableau .marks g", timeout=30000)
    eva = room_player_when(server, room_id, "Ева", lambda p: True)
    put_grid(server, room_id, "olga", grid_text(eva["grid"]))
    twin_eva = twin.replace("dima's", "olga's")
    room_player_when(server, room_id, "Ева", lambda p: p["doubts"] == [twin_eva])
    expect(guest.locator("#mine .doubts li")).to_have_text([said_in(twin_eva, "ru")], timeout=10000)
    assert guest.locator("#mine .grid button.doubt").count() == 0
    expect(guest.locator("#mine .grid-right")).to_be_hidden()
    expect(guest.locator("#mine .check-whole")).to_be_hidden()
    expect(guest.locator("#mine .tableau-title")).to_have_text(re.compile(rf"^Ева: {eva['total']}\? — "))
    assert not page.errors and not guest.errors


def owners_write(server, page, room_id, what, body, method="PUT"):
    """A room-wide write the room's creator makes (``page`` holds its token)."""
    owner = page.evaluate(f"localStorage.getItem('ecoscore-owner:{room_id}')")
    version = get_room(server, room_id)["version"]
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(f"{server}/api/rooms/{room_id}/{what}", data, method=method,
                                 headers={"Content-Type": "application/json", "X-Room-Token": owner, "If-Match": f'"{version}"'})
    urllib.request.urlopen(req).close()


@pytest.mark.parametrize("mode", ["two-player", "solo"])
def test_a_room_waiting_for_its_neutral_pile_or_bot_marks_the_players_own_total_too(server, new_page, tmp_path, mode):
    # Before the neutral pile was given (or the bot's grid), the pad said "51?" and the player's own
    # tableau "Алёна: 51 очко — ваша экосистема", plain; a guest's read-only pile showed 0 and 0 under
    # "the room's creator still has to give them"; and against the bot the biodiversity note said
    # "bot: Бот не получает…", the English name where the pad's column says «бот» (a Russian walk).
    from playwright.sync_api import expect

    words = catalogue("ru")
    page = new_page(locale="ru-RU")
    room_id = new_room(page, server, mode)
    add_to_room(page, "Алёна", write(tmp_path, "alena.jpg", tableau_with_a_card_beside(seed=1, beside=False)))
    page.wait_for_selector("#mine .tableau .marks g", timeout=30000)
    if mode == "two-player":  # the duel's second player (with one so far, the room waits for them first)
        assert get_room(server, room_id)["waiting_for"] == "players"
        # no winner of one; the duel's other player awaited, not "the other players'" (a walk, in
        # Czech), and its neutral pile too (said only once the second player came: a game night's walk)
        expect(page.locator("#room-winners")).to_have_text(f"{words['ui.waiting_second']} {words['ui.neutral_needed']}", timeout=10000)
        for box in ("#neutral-streams", "#neutral-wolves"):  # not given: not 0 and 0 (they were, with one player)
            expect(page.locator(box)).to_have_value("")
            expect(page.locator(box)).to_have_attribute("placeholder", "—")
        put_grid(server, room_id, "bob", (EXAMPLES / "bruno.txt").read_text())
    doc = get_room(server, room_id)
    assert doc["waiting_for"] == {"two-player": "neutral", "solo": "bot"}[mode]  # what the test is about
    if mode == "two-player":  # a stream's place said not final before the pile is given ("1st place, 8 points": a walk)
        grid = next(p for p in doc["game"]["players"] if p["name"] == "Алёна")["grid"]
        r, c = next((r, c) for r, row in enumerate(grid) for c, card in enumerate(row) if card == "stream")
        page.click(f"#mine .grid button[data-row='{r}'][data-col='{c}']")
        expect(page.locator("#mine .card-explain-text")).to_contain_text(words["ui.explain_pile_waiting"])
    total = doc["game"]["players"][0]["total"]
    title = page.locator("#mine .tableau-title")
    expect(page.locator("#room-pad tr.total td").first).to_have_text(f"{total}?")
    expect(title).to_have_text(re.compile(rf"^Алёна: {total}\? — "))
    if mode == "two-player":
        shot(page, "room-neutral-waiting-ru")
        guest = new_page(locale="ru-RU")
        guest.goto(f"{server}/r/{room_id}")
        expect(guest.locator("#room-winners")).to_contain_text(words["ui.neutral_needed_guest"], timeout=10000)
        for box in ("#neutral-streams", "#neutral-wolves"):
            expect(guest.locator(box)).to_have_value("")
            expect(guest.locator(box)).to_have_attribute("placeholder", "—")
        shot(guest, "room-neutral-waiting-guest-ru")
        page.select_option("#lang", "en")
        expect(title).to_have_text(re.compile(rf"^Алёна: {total}\? — your tableau"))
        shot(page, "room-neutral-waiting-en")
        page.select_option("#lang", "ru")
        owners_write(server, page, room_id, "neutral", {"streams": 3, "wolves": 2})
        for box, value in (("#neutral-streams", "3"), ("#neutral-wolves", "2")):
            expect(guest.locator(box)).to_have_value(value, timeout=10000)
        # The pile said under the pad and beside a stream's or a wolf's place ("2nd place" with no
        # one shown 1st, the pile only in its boxes: a game night's walk).
        pile = words["ui.pad_neutral"].format(what=words["ui.neutral"], streams=3, wolves=2)
        expect(guest.locator("#room-winners")).to_contain_text(pile, timeout=10000)
        guest.get_by_role("button", name=words["ui.view_read"].format(name="Алёна")).click()
        grid = next(p for p in get_room(server, room_id)["game"]["players"] if p["name"] == "Алёна")["grid"]
        r, c = next((r, c) for r, row in enumerate(grid) for c, card in enumerate(row) if card == "stream")
        guest.click(f"#others .marks g[data-row='{r}'][data-col='{c}']")  # on the photo: its explanation brought into view
        explain = guest.locator("#others .card-explain-text")
        expect(explain).to_contain_text(words["ui.explain_pile"].format(what=words["ui.streams"], n=3))
        expect(explain).to_be_in_viewport()
        assert words["ui.explain_pile_waiting"] not in explain.text_content()
        # The guest's boxes are the creator's to fill, and said so
        expect(guest.locator("#neutral-hint")).to_have_text(words["ui.neutral_hint_guest"])
        expect(page.locator("#neutral-hint")).to_have_text(words["ui.neutral_hint"])
        assert not guest.errors
    else:
        owners_write(server, page, room_id, "bot", {"grid": "\n".join(" ".join(["."] * 5) for _ in range(4))})
    doc = get_room(server, room_id)
    assert doc["waiting_for"] is None
    total = next(p for p in doc["game"]["players"] if p["name"] == "Алёна")["total"]
    expect(title).to_have_text(re.compile(rf"^Алёна: {total} очк\S* — "), timeout=10000)  # final now: plain
    if mode == "solo":
        page.click("#room-pad tbody button.link")  # biodiversity
        bio = page.locator("#room-bio")
        expect(bio).to_contain_text(f"{words['ui.bot']}: {words['ui.bio_bot']}")
        assert "bot:" not in bio.text_content()
    assert not page.errors


def test_a_deck_count_exceeded_is_said_once_for_the_game_and_marks_every_total(server, new_page, tmp_path):
    # Eight players (six now: a game room's seats), six of them (four) with 9 eagles: the pad's line said "Лидирует: … (не окончательно).
    # Не окончательно: у boris карт «орёл»: 9, …; у vera …; …; в игре …": "not final" twice, every
    # player's count and the game's, "ошибка распознавания или вторая колода" seven times over some
    # 25 lines of a phone, and each name undeclined. And a total with no doubt of its own was plain
    # while another player had one, "?" once none had (a Russian walk). The game's own count is
    # said, once; every total is "?".
    from playwright.sync_api import expect

    from ecoscore.service import i18n, translation

    page = new_page(locale="ru-RU")
    room_id = new_room(page, server)
    add_to_room(page, "Алёна", write(tmp_path, "alena.jpg", tableau_with_a_card_beside()))  # a doubt of her own
    page.wait_for_selector("#mine .tableau .marks g", timeout=30000)
    others = "MD MD MD MD MD MD BE BE TR TR FX".split()
    for k, name in enumerate(("boris", "vera", "gleb", "dasha")):  # (a game room seats six)
        cards = ["EG"] * 9 + others[k:] + others[:k]  # each laid otherwise (the same tableau twice is a doubt of its own)
        put_grid(server, room_id, name, "\n".join(" ".join(cards[r * 5:r * 5 + 5]) for r in range(4)))
    put_grid(server, room_id, "ivan", (EXAMPLES / "bruno.txt").read_text())  # no doubt, no count of his own past a deck
    expect(page.locator("#room-pad")).to_contain_text("ivan", timeout=10000)
    game = get_room(server, room_id)["game"]
    ours = [d for d in game["deck_issues"] if d.startswith("the game has ")]
    assert not game["final"] and ours and len(game["deck_issues"]) > len(ours), game["deck_issues"]  # what the test is about
    ivan = next(p for p in game["players"] if p["name"] == "ivan")
    assert not ivan["deck_issues"] and not ivan.get("doubts")
    totals = page.locator("#room-pad tr.total td")
    expect(totals).to_have_count(6)
    assert all(td.endswith("?") for td in totals.all_text_contents()), totals.all_text_contents()
    words = catalogue("ru")
    winners = page.text_content("#room-winners")
    assert winners.count("не окончательно") == 1 and words["ui.pad_deck_issues"].split(":")[0] not in winners, winners
    # the cause said once for every type (it came once a type: an Italian walk), each count in its plural
    assert len(ours) > 1 and winners.count("ошибка распознавания или вторая колода") == 1, winners
    for issue in ours:
        n, card, deck = re.fullmatch(r"the game has (\d+) (\w+) cards but a deck holds only (\d+): .*", issue).groups()
        entry = words["ui.deck_over_entry"][i18n.plural_category("ru", int(n))]
        assert entry.format(n=n, card=words[f"card.{card}"], deck=deck) in winners, winners
    # a player's own count past a deck's, in Russian: the name needs no declension, the count its plural
    boris = "boris has 9 eagle cards but a deck holds only 8: a misread card or a second deck"
    assert boris in game["deck_issues"]
    russian = "boris: 9 карт «орёл», а в колоде всего 8: ошибка распознавания или вторая колода"
    assert translation.translate(boris, "ru") == russian and page.evaluate("m => I18N.message(m)", boris) == russian
    assert page.evaluate("m => I18N.message(m)", "the game has 54 eagle cards but a deck holds only 8: a misread card or a "
                                                  "second deck").startswith("в игре 54 карты «орёл», а в колоде всего 8")
    shot(page, "room-deck-exceeded-ru")
    page.select_option("#lang", "en")
    expect(page.locator("#room-winners")).to_contain_text(": a misread card or a second deck.", timeout=10000)
    winners = page.text_content("#room-winners")
    assert "Not final:" not in winners and winners.count("not final") == 2, winners  # (Leading's, and Алёна's photo)
    assert winners.count("a misread card or a second deck") == 1 and "The game has " in winners, winners
    shot(page, "room-deck-exceeded-en")
    assert not page.errors


def test_a_full_room_opened_by_a_phone_with_no_seat_says_so_at_once(server, new_page):
    # A seventh phone (a ninth, when a game room seated 8) opening a full room saw the name box and "Add my tableau (photo)" as if it could
    # join, and was told the room is full only once it had tapped (a Russian walk). A phone holding
    # a seat still retakes its photo; a seat freed, the others may join again.
    from playwright.sync_api import expect

    words = catalogue("ru")
    page = new_page(locale="ru-RU")
    room_id = new_room(page, server)
    invitation = ("#qr", "#room-link", "#share")
    for what in invitation:  # (a room with seats free invites)
        expect(page.locator(what)).to_be_visible()
    tokens = {name: put_grid(server, room_id, name, (EXAMPLES / "bruno.txt").read_text())["token"]
              for name in ("anna", "boris", "vera", "gleb", "dasha", "ivan")}
    assert get_room(server, room_id)["seats"] == len(tokens)
    full = words["api.room_full"].format(n=6)
    ninth = new_page(locale="ru-RU")
    ninth.goto(f"{server}/r/{room_id}")
    expect(ninth.locator("#room-status")).to_have_text(full[0].upper() + full[1:] + ".", timeout=10000)
    expect(ninth.locator("#join")).to_be_hidden()
    expect(ninth.locator("#add-photo")).to_be_hidden()
    # no QR code or Share that invite no one (they stayed, the name box gone); the room's code stays its name
    for what in invitation:
        expect(ninth.locator(what)).to_be_hidden()
    expect(ninth.locator("#room-code")).to_have_text(room_id)
    expect(ninth.locator("#room-seated")).to_be_hidden()  # (its status says the room is full)
    shot(ninth, "room-full-ninth-ru")
    ninth.select_option("#lang", "en")
    expect(ninth.locator("#room-status")).to_have_text("The room is full: at most 6 players.")
    shot(ninth, "room-full-ninth-en")
    # the phone that holds anna's seat: its box, to retake her photo
    expect(page.locator("#join")).to_be_hidden(timeout=10000)  # (the creator's phone holds no seat either)
    expect(page.locator("#room-view .share")).to_be_hidden()
    page.evaluate(f"localStorage.setItem('ecoscore:{room_id}:anna', {json.dumps(tokens['anna'])})")
    page.reload()
    expect(page.locator("#player-name")).to_have_value("anna", timeout=10000)
    expect(page.locator("#add-photo")).to_be_visible()
    assert page.text_content("#room-status") == ""
    expect(page.locator("#room-view .share")).to_be_hidden()  # (a seat of it here: still no one to invite)
    # said why (the code and Share gone from every phone looked like a fault: a Russian walk)
    expect(page.locator("#room-seated")).to_have_text("Все места в этой комнате заняты: её код и ссылка больше не показываются.")
    # a seat freed: the ninth phone may join, and the word goes; the room invites again
    owners_write(server, page, room_id, "players/ivan", None, method="DELETE")
    expect(ninth.locator("#add-photo")).to_be_visible(timeout=10000)
    expect(ninth.locator("#room-status")).to_have_text("")
    for what in invitation:
        expect(ninth.locator(what)).to_be_visible()
        expect(page.locator(what)).to_be_visible(timeout=10000)
    expect(page.locator("#room-seated")).to_be_hidden()
    # a two-player room too, once its two seats are taken
    two = new_room(page, server, "two-player")
    expect(page.locator("#share")).to_be_visible()
    for name in ("anna", "boris"):
        put_grid(server, two, name, (EXAMPLES / "bruno.txt").read_text())
    expect(page.locator("#room-view .share")).to_be_hidden(timeout=10000)
    assert not page.errors and not ninth.errors


# ---------------------------------------------------------------- an Italian walk's follow-up (and a few others)

def bot_grid_for(player_grid, wanted, seed: int = 0) -> list[list[str | None]]:
    """A bot's grid (rows of type names) whose margin against ``player_grid`` (rows of type names, or
    None) the scorer finds ``wanted``: the player's own grid with a few cells changed, tried in turn."""
    import random

    from ecoscore.scoring import score_game

    rnd, types = random.Random(seed), [*CardType, None]
    player = Tableau([CardType(c) if c else None for row in player_grid for c in row])
    for _ in range(50000):
        bot = list(player.cells)
        for _ in range(rnd.randint(0, 8)):
            bot[rnd.randrange(20)] = rnd.choice(types)
        if wanted(score_game([("p", player)], bot=Tableau(bot)).solo.margin):
            return [[c.value if c else None for c in bot[r * 5:r * 5 + 5]] for r in range(4)]
    raise AssertionError("no such bot's grid found")


def test_a_solo_loss_or_tie_in_doubt_is_said_as_for_now_like_a_win(server, new_page, tmp_path):
    # A read in doubt (a card left out beside the grid: the service says the game is not final):
    # a win was said "for now", a loss or a tie as settled ("Il bot è avanti di 12 punti", "Pareggio
    # con il bot") over a pad showing "41?" (an Italian walk). Each is said for now, on the player's
    # phone ("you") and on a guest's, in every language.
    from playwright.sync_api import expect

    from ecoscore.service import i18n

    page = new_page(viewport=WALK)
    room_id = solo_room_against_an_empty_bot(page, server)
    add_to_room(page, "Chiara", write(tmp_path, "chiara.jpg", tableau_with_a_card_beside()))
    page.wait_for_selector("#mine .tableau .marks g", timeout=30000)
    guest = new_page(viewport=WALK)
    guest.goto(f"{server}/r/{room_id}")
    grid = get_room(server, room_id)["game"]["players"][0]["grid"]
    outcomes = (("tied", lambda m: m == 0), ("lost", lambda m: 0 < m < 30), ("lost_behind", lambda m: m < 0))
    for what, wanted in outcomes:
        owners_write(server, page, room_id, "bot", {"grid": grid_text(bot_grid_for(grid, wanted))})
        game = get_room(server, room_id)["game"]
        assert not game["final"] and wanted(game["solo"]["margin"]), (what, game["solo"])  # what the test is about
        margin = abs(game["solo"]["margin"])
        for lang in ("en", "it", "cs", "ru"):
            words = catalogue(lang)
            points = words["ui.points"]
            if isinstance(points, dict):
                points = points[i18n.plural_category(lang, margin)]
            points = points.format(n=margin)
            for phone, you in ((page, True), (guest, False)):
                phone.select_option("#lang", lang)
                key = f"ui.solo_{what}" if what == "lost_behind" or you else f"ui.solo_{what}_by"
                said = words[f"{key}_now"].format(name="Chiara", margin=points)
                expect(phone.locator("#room-winners")).to_have_text(re.compile("^" + re.escape(said)), timeout=10000)
                assert not phone.text_content("#room-winners").startswith(words[key].format(name="Chiara", margin=points))
        shot(page, f"solo-{what}-not-final-ru")
    assert not page.errors and not guest.errors


def test_the_review_is_stopped_with_interrompi_and_a_doubtful_cells_label_says_its_doubt_once(server, new_page, photo_set,
                                                                                                reader, tmp_path):
    # The picker's button that ends a review read "Basta" (Enough), where Italian apps say
    # "Interrompi"; and a screen reader heard a doubtful cell as "incerta: lettura incerta: ape 61%"
    # (doubtful: low confidence: ...), the doubt said twice (an Italian walk). Said once, in every
    # language: the doubt's own words where they say it, else the word "doubtful" before them.
    from playwright.sync_api import expect

    page = new_page(viewport=WALK, locale="it-IT")
    upload_solo(page, server, write(tmp_path, "p.jpg", spoil(photo_set[2].jpeg, reader, 3)))
    page.click("#solo-tableau .review")
    page.wait_for_selector("#picker[open]")
    expect(page.locator("#picker-cancel")).to_have_text("Interrompi")
    page.click("#picker-cancel")  # it stops the review there
    expect(page.locator("#picker")).not_to_have_attribute("open", "")
    page.click("#solo-tableau .marks g.doubt >> nth=0")  # a card tapped outside a review: cancelled, not stopped
    expect(page.locator("#picker-cancel")).to_have_text("Annulla")
    page.click("#picker-cancel")
    # Czech and Russian said "finish" ("Skončit", "Закончить") of a review stopped halfway: "interrupt", as the Italian
    for lang, stop in (("cs", "Přerušit"), ("ru", "Прервать")):
        page.select_option("#lang", lang)
        page.wait_for_function(f"document.documentElement.lang === '{lang}'")
        page.click("#solo-tableau .review")
        page.wait_for_selector("#picker[open]")
        expect(page.locator("#picker-cancel")).to_have_text(stop)
        page.click("#picker-cancel")
        expect(page.locator("#picker")).not_to_have_attribute("open", "")
    page.select_option("#lang", "it")
    doubts = page.eval_on_selector_all("#solo-tableau .grid button.doubt", "bs => bs.map(b => [b.dataset.row, b.dataset.col])")
    assert len(doubts) >= 2
    low = 0
    for lang in ("it", "en", "cs", "ru"):
        page.select_option("#lang", lang)
        page.wait_for_function(f"document.documentElement.lang === '{lang}'")
        words = catalogue(lang)
        marker = words["ui.cell_label_doubt"].split("; ")[-1].split(":")[0]  # "incerta", "doubtful"
        head = words["api.low_confidence"].split(":")[0]  # "lettura incerta", "low confidence"
        for r, c in doubts:
            label = page.get_attribute(f"#solo-tableau .grid button[data-row='{r}'][data-col='{c}']", "aria-label")
            assert f"{marker}: {head}" not in label, label
            if head in label:
                low += 1
                assert label.count(head) == 1, label
            else:  # another doubt: said to be one
                assert f"; {marker}: " in label, label
    assert low  # (a doubt of low confidence was there to say: else this proves nothing)
    assert not page.errors


def test_back_to_what_was_read_is_offered_only_while_there_is_something_to_go_back_to(server, page, photo_set, reader,
                                                                                     tmp_path):
    # Once the grid was back as read, "Back to what was read" stayed enabled, with nothing left to
    # take back (a walk): it is enabled while the grid, or a card kept, differs from the read.
    from playwright.sync_api import expect

    upload_solo(page, server, write(tmp_path, "p.jpg", spoil(photo_set[2].jpeg, reader, 3)))
    revert, undo = page.locator("#solo-tableau .revert"), page.locator("#solo-tableau .undo")
    expect(revert).to_be_disabled()
    first = page.text_content("#total")
    page.click("#solo-tableau .marks g:not(.doubt) >> nth=0")
    page.click("#choices button:not(.current) >> nth=0")
    expect(page.locator("#status")).to_have_text("Score updated with your correction.", timeout=10000)
    expect(revert).to_be_enabled()
    revert.click()
    expect(page.locator("#solo-tableau .tool-status")).to_have_text("Back to the grid as it was read.", timeout=10000)
    expect(page.locator("#total")).to_have_text(first)
    expect(revert).to_be_disabled()
    assert page.evaluate("document.activeElement.closest('.grid') !== null")  # the focus on the grid, not lost
    undo.click()  # the correction is back: so is the way back from it
    expect(page.locator("#solo-tableau .tool-status")).to_have_text("“Back to what was read” undone: your corrections are back.",
                                                                     timeout=10000)
    expect(revert).to_be_enabled()
    revert.click()
    expect(revert).to_be_disabled(timeout=10000)
    # A doubtful card kept as read is something to go back from too; Undo's word names it (it said
    # "Last change undone." of a card kept, which changed no card: a walk).
    cell = page.locator("#solo-tableau .marks g.doubt >> nth=0")
    r, c = int(cell.get_attribute("data-row")), int(cell.get_attribute("data-col"))
    cell.click()
    page.click("#keep")
    expect(revert).to_be_enabled()
    undo.click()
    said = catalogue("en")["ui.undone_keep"].format(row=r + 1, col=c + 1)
    expect(page.locator("#solo-tableau .tool-status")).to_have_text(said)
    assert said == f"“Keep as read” undone for the card at row {r + 1}, column {c + 1}."
    expect(revert).to_be_disabled()
    page.select_option("#lang", "it")
    expect(page.locator("#solo-tableau .tool-status")).to_have_text(f"«Lascia così» annullato per la carta in riga {r + 1}, "
                                                                   f"colonna {c + 1}.")
    assert not page.errors


@pytest.mark.parametrize("width", [320, 360])
def test_biodiversita_is_never_hyphenated_on_the_pad(server, new_page, tmp_path, width):
    # The pad's row "biodiversità" broke as "bio-diversità" at the line's end (an Italian walk):
    # whole, at 320 and 360 px, on the one-photo page and in a room of three, and neither page
    # scrolls sideways for it.
    page = new_page(viewport={"width": width, "height": 740}, locale="it-IT")
    upload_solo(page, server, write(tmp_path, "p.jpg", tableau_with_a_card_beside(seed=1, beside=False)))
    lines = """table => {
        const th = [...document.querySelectorAll(table + ' tbody th')].find(h => /biodiv/.test(h.textContent.replace(/\u00ad/g, '')));
        const range = document.createRange(); range.selectNodeContents(th.querySelector('button') || th);  // its words' lines
        return [th.textContent, new Set([...range.getClientRects()].map(r => Math.round(r.top))).size,
                getComputedStyle(th.querySelector('button') || th).hyphens]; }"""
    text, count, hyphens = page.evaluate(lines, "#pad")
    assert text == "biodiversità" and count == 1 and hyphens in ("manual", "none"), (text, count, hyphens)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    room_id = new_room(page, server)
    for name in ("Giulia", "Chiara", "Marco"):
        put_grid(server, room_id, name, (EXAMPLES / "alice.txt").read_text())
    page.wait_for_function("document.querySelectorAll('#room-pad thead th').length === 4", timeout=10000)
    text, count, hyphens = page.evaluate(lines, "#room-pad")
    assert text == "biodiversità" and count == 1 and hyphens in ("manual", "none"), (text, count, hyphens)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    shot(page, f"room-pad-it-{width}")
    assert not page.errors


@pytest.mark.parametrize("width", [320, 360, 390])
def test_the_neutral_piles_boxes_sit_tidy_on_a_phone(server, new_page, width):
    # At 360 px the room's neutral pile wrapped as "Giocatore neutrale: ruscelli [ ]" over "lupi [ ]
    # Salva": the two numbers of one pile on two lines (an Italian walk). Its title on a line of
    # its own, the two boxes side by side, each beside its word, Save after them: in every language.
    for locale in ("it-IT", "en-US", "cs-CZ", "ru-RU"):
        page = new_page(viewport={"width": width, "height": 740}, locale=locale)
        new_room(page, server, "two-player")
        page.wait_for_function(f"document.documentElement.lang === '{locale[:2]}'")
        page.wait_for_selector("#neutral-box:not([hidden])")
        box = page.evaluate("""() => { const box = document.querySelector('#neutral-box').getBoundingClientRect();
            const at = (el) => { const r = el.getBoundingClientRect(); return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, height: r.height }; };
            const [title, streams, wolves, save] = [...document.querySelector('#neutral-box').children].map(at);
            const inputs = [...document.querySelectorAll('#neutral-box input')].map(at);
            return { box: at(document.querySelector('#neutral-box')), title, streams, wolves, save, inputs,
                     width: document.documentElement.scrollWidth }; }""")
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.locator("#neutral-box").screenshot(path=str(SHOTS / f"neutral-pile-{locale[:2]}-{width}.png"))
        title, streams, wolves, save = box["title"], box["streams"], box["wolves"], box["save"]
        assert title["bottom"] <= streams["top"] + 1, (locale, box)  # the title a line of its own
        assert abs(streams["top"] - wolves["top"]) < 2, (locale, box)  # the pile's two numbers side by side
        for label, field in zip((streams, wolves), box["inputs"]):
            assert label["height"] < 1.5 * field["height"], (locale, box)  # each word beside its box, on one line
        assert save["left"] > wolves["right"] or save["top"] >= wolves["bottom"] - 1, (locale, box)  # Save after them
        assert max(r["right"] for r in (title, streams, wolves, save)) <= box["box"]["right"] + 0.5 and box["width"] <= width
        assert not page.errors


def test_a_solo_room_invites_no_one_but_offers_its_code_to_add_the_tableau_from_a_phone(server, new_page):
    # A solo room offered "Share" with "Add your Ecosystem tableau to our game", as a game room
    # does: no one else joins a game against the bot (an Italian walk). Its code and link stay,
    # said for what they are there (the room set up on a computer, the tableau photographed with
    # a phone), until its one seat is taken; a game room still invites.
    from playwright.sync_api import expect

    page = new_page(locale="it-IT")
    room_id = new_room(page, server, "solo")
    words = catalogue("it")
    expect(page.locator("#qr")).to_be_visible()
    expect(page.locator("#share")).to_be_hidden()
    expect(page.locator("#share-solo")).to_have_text(words["ui.share_solo"])
    page.select_option("#lang", "en")
    expect(page.locator("#share-solo")).to_have_text(catalogue("en")["ui.share_solo"])
    put_grid(server, room_id, "Giulia", (EXAMPLES / "alice.txt").read_text())
    expect(page.locator("#room-view .share")).to_be_hidden(timeout=10000)
    game = new_page(locale="it-IT")
    new_room(game, server)
    expect(game.locator("#share")).to_be_visible()
    expect(game.locator("#share-solo")).to_be_hidden()
    assert not page.errors and not game.errors


def deck_over_entries(words: dict, lang: str, counts) -> list[str]:
    """Each (n, card, deck) count as the catalogue ``words`` of ``lang`` says it in a list."""
    from ecoscore.service import i18n

    entries = []
    for n, card, deck in counts:
        entry = words["ui.deck_over_entry"]
        entry = entry[i18n.plural_category(lang, int(n))] if isinstance(entry, dict) else entry
        entries.append(entry.format(n=n, card=words[f"card.{card}"], deck=deck))
    return entries


def test_a_game_over_a_decks_count_of_several_types_says_a_misread_card_or_a_second_deck_once(server, new_page, tmp_path):
    # "La partita ha 11 carte coniglio ma un mazzo ne ha solo 8: una carta letta male o un secondo
    # mazzo. La partita ha 21 carte ruscello ma un mazzo ne ha solo 20: una carta letta male o un
    # secondo mazzo": the cause said once a type (an Italian walk). Said once, the types listed as
    # the language lists them, each count in its plural; one type alone is said as it was.
    from playwright.sync_api import expect


    page = new_page(viewport=WALK)
    room_id = new_room(page, server)
    add_to_room(page, "Giulia", write(tmp_path, "giulia.jpg", tableau_with_a_card_beside(seed=1, beside=False)))
    page.wait_for_selector("#mine .tableau .marks g", timeout=30000)
    put_grid(server, room_id, "bruno", "RB RB RB RB RB\nRB RB RB RB ST\nST ST ST ST ST\nST ST ST ST ST")  # 9 rabbits
    put_grid(server, room_id, "chiara", "ST ST ST ST ST\nST ST ST ST ST\nST MD MD MD MD\nMD MD MD MD MD")  # 11 streams
    expect(page.locator("#room-pad")).to_contain_text("chiara", timeout=10000)
    game = get_room(server, room_id)["game"]
    ours = [re.fullmatch(r"the game has (\d+) (\w+) cards but a deck holds only (\d+): a misread card or a second deck", d)
            for d in game["deck_issues"]]
    ours = [m.groups() for m in ours if m]
    assert not game["final"] and len(ours) >= 2, game["deck_issues"]  # what the test is about
    joiner = {"en": " and ", "it": " e ", "cs": " a ", "ru": " и "}
    for lang in ("en", "it", "cs", "ru"):
        page.select_option("#lang", lang)
        words = catalogue(lang)
        entries = deck_over_entries(words, lang, ours)
        # as Intl.ListFormat lists them ("A, B, and C" in English, "A, B e C" in Italian)
        listed = ", ".join(entries[:-1]) + ("," if lang == "en" and len(entries) > 2 else "") + joiner[lang] + entries[-1]
        said = words["ui.deck_over_game"].format(list=listed)
        said = said[0].upper() + said[1:] + ("" if said.endswith(("?", ".")) else ".")
        expect(page.locator("#room-winners")).to_contain_text(said, timeout=10000)
        cause = words["api.deck_issue_game"]
        cause = (cause["other"] if isinstance(cause, dict) else cause).rsplit(": ", 1)[1]
        assert page.text_content("#room-winners").count(cause) == 1, page.text_content("#room-winners")
        shot(page, f"room-deck-several-{lang}")
    page.select_option("#lang", "en")
    expect(page.locator("#room-winners")).to_contain_text(
        f"The game has {ours[0][0]} {ours[0][1]} cards (a deck holds {ours[0][2]}) and {ours[1][0]} {ours[1][1]} cards")
    # one type alone: said as before
    owners_write(server, page, room_id, "players/chiara", None, method="DELETE")
    game = get_room(server, room_id)["game"]
    (alone,) = [d for d in game["deck_issues"] if d.startswith("the game has ")]
    expect(page.locator("#room-winners")).to_contain_text(alone[0].upper() + alone[1:] + ".", timeout=10000)
    assert not page.errors


def test_a_players_deck_counts_of_several_types_are_said_once_in_what_to_check(server, new_page):
    # "Giulia has 9 rabbit cards but a deck holds only 8: a misread card or a second deck. Giulia has
    # 9 eagle cards but a deck holds only 8: a misread card or a second deck": a player's own counts
    # were said a type at a time, the cause once a type, under their tableau (and on the pad's line
    # and total, where the game's own were said in one sentence already). Said once, the types
    # listed as the language lists them.
    from playwright.sync_api import expect


    page = new_page()
    room_id = new_room(page, server)
    res = put_grid(server, room_id, "Giulia", "RB RB RB RB RB\nRB RB RB RB EG\nEG EG EG EG EG\nEG EG EG MD MD")
    page.evaluate("([k, token]) => localStorage.setItem(k, token)", [f"ecoscore:{room_id}:{res['name']}", res["token"]])
    page.reload()  # this phone holds Giulia's seat: her tableau is its own, with its "What to check"
    (player,) = res["room"]["game"]["players"]
    counts = [re.fullmatch(r"Giulia has (\d+) (\w+) cards but a deck holds only (\d+): a misread card or a second deck", d)
              for d in player["deck_issues"]]
    assert len(counts) == 2 and all(counts), player["deck_issues"]  # what the test is about
    counts = [m.groups() for m in counts]
    joiner = {"en": " and ", "it": " e ", "cs": " a ", "ru": " и "}
    listed = page.locator("#mine .doubts li")
    for lang in ("en", "it", "cs", "ru"):
        page.select_option("#lang", lang)
        page.wait_for_function(f"document.documentElement.lang === '{lang}'")
        words = catalogue(lang)
        entries = deck_over_entries(words, lang, counts)
        said = words["ui.deck_over_player"].format(name="Giulia", list=joiner[lang].join(entries))
        said = said + ("" if said.endswith(("?", ".")) else ".")
        expect(listed).to_have_text([said], timeout=10000)  # one line, not one a type
        cause = words["ui.deck_over_player"].rsplit(": ", 1)[1]
        assert page.text_content("#room-winners").count(cause) == 1, page.text_content("#room-winners")  # the pad's line too
        title = page.get_attribute("#room-pad tr.total td", "title").replace("\xa0", " ")  # (Czech's list: "a\xa09×")
        assert title.count(cause) == 1 and said in title, title  # and the total's title
    assert not page.errors


def test_5_by_4_is_never_broken_at_a_lines_end(server, new_page, tmp_path):
    # "outside its 5 × 4" broke as "5 ×" | "4" at a line's end (a walk). The service's English says
    # it with plain spaces (the catalogue's English must match it): the page shows it with no-break
    # spaces, in every language.
    from playwright.sync_api import expect

    page = new_page(viewport=WALK)
    upload_solo(page, server, write(tmp_path, "beside.jpg", tableau_with_a_card_beside()))
    doubt = page.locator("#solo-tableau .doubts li")
    expect(doubt).to_have_count(1)
    for lang in ("en", "it", "cs", "ru"):
        page.select_option("#lang", lang)
        page.wait_for_function(f"document.documentElement.lang === '{lang}'")
        for text in (doubt.text_content(), page.get_attribute("#total-unsure", "title")):
            assert "5\u00a0×\u00a04" in text and "5 × 4" not in text, (lang, text)
    assert not page.errors


def _shown_part(page) -> dict:
    """The photo's part in view (the marks' viewBox), the photo's size, and each cell's width on
    the screen, in CSS pixels."""
    return page.evaluate("""() => {
        const view = document.querySelector('#solo-tableau'), svg = view.querySelector('.marks');
        const [x, y, w, h] = svg.getAttribute('viewBox').split(' ').map(Number);
        const cells = [...svg.querySelectorAll('g.cell polygon')].map((p) => p.getBoundingClientRect().width);
        const img = view.querySelector('.photo-img').getBoundingClientRect(), box = view.querySelector('.photo-box').getBoundingClientRect();
        return { part: [x, y, w, h], size: solo.view.read.size, narrowest: Math.min(...cells),
                 imageScale: img.width / solo.view.read.size[0], marksScale: box.width / w,
                 imageLeft: img.left - box.left, marksLeft: -x * box.width / w };
    }""")


def test_a_tableau_filling_little_of_its_photo_is_shown_cut_to_it_its_cells_big_enough_to_tap(server, new_page, tmp_path):
    # A whole game's photo at 360 px showed the shown tableau's cells 12 px wide: their labels
    # unreadable, too small to tap (a walk). The tableau is shown cut to it, a margin round it;
    # the image and the marks drawn to the same scale and place, so a tap lands on its card.
    from playwright.sync_api import expect

    from ecoscore.datasets.deck import load_deck
    from ecoscore.datasets.effects import LightParams
    from ecoscore.datasets.scene import SceneParams, render_scene

    params = SceneParams(long_side=2400, p_multi=1.0, tableaux=(4, 4), p_cut_off=0.0, p_hole=0.0, fill=(0.85, 0.95),
                         elevation_deg=(70, 90), loose_cards=(0, 0), light=LightParams(p_motion=0.0, p_defocus=0.0))
    scene = render_scene(load_deck("standin"), (52, 0), params)
    page = new_page(viewport=WALK)
    upload_solo(page, server, write(tmp_path, "game.jpg", scene.jpeg))
    # four tableaux of 20 cards: no "showing the one with the most cards" (a choice that was none)
    expect(page.locator("#status")).to_have_text("4 tableaux found.")
    expect(page.locator("#which-shown")).to_have_text("Tableau 1 of 4 shown.")
    for k in (1, 2):
        shown = _shown_part(page)
        (x, y, w, h), (pw, ph) = shown["part"], shown["size"]
        assert w * h < 0.4 * pw * ph and 0 <= x and 0 <= y and x + w <= pw + 1 and y + h <= ph + 1, shown
        assert shown["narrowest"] >= 28, shown  # at 360 px: a finger's width, not 12 px
        assert abs(shown["imageScale"] - shown["marksScale"]) < 0.01 * shown["marksScale"], shown
        assert abs(shown["imageLeft"] - shown["marksLeft"]) < 2, shown
        page.click("#other-tableau")
        expect(page.locator("#which-shown")).to_have_text(f"Tableau {k + 1} of 4 shown.")
    # Which of the photo's tableaux it is: the whole photo, small, the tableau outlined on it at
    # its corner cells' outer corners.
    where = page.locator("#solo-tableau .where")
    expect(where).to_be_visible()
    outline = page.evaluate("""() => {
        const view = solo.view, cells = view.read.cells, last = cells.length - 1, end = cells[0].length - 1;
        const drawn = view.q('.overview polygon').getAttribute('points');
        return [drawn, [cells[0][0].quad[0], cells[0][end].quad[1], cells[last][end].quad[2], cells[last][0].quad[3]].map((p) => p.join(',')).join(' ')];
    }""")
    assert outline[0] == outline[1], outline
    # Scored as one game, the column of the tableau shown below is marked.
    page.click("#as-game")
    expect(page.locator("#game-pad thead th.shown")).to_have_text("3")
    assert page.locator("#game-pad td.shown").count() == 11 + 2  # its 11 types, biodiversity and total
    # A stream's or a wolf's explanation says its place in the game too, as the game's pad has it (it
    # gave the tableau's places scored alone under the game's pad: "1st place, 12 points" beside 8, a walk).
    grid = page.evaluate("solo.view.grid")
    r, c, kind = next((r, c, card) for r, row in enumerate(grid) for c, card in enumerate(row) if card in ("wolf", "stream"))
    game_points = page.evaluate(f"""() => [...document.querySelectorAll('#game-pad tbody tr')]
        .find((tr) => tr.cells[0].textContent === '{kind}').querySelector('td.shown').textContent""")
    page.click(f"#solo-tableau .grid button[data-row='{r}'][data-col='{c}']")
    said = page.locator("#solo-tableau .card-explain-text")
    expect(said).to_contain_text(re.compile(rf"Scored as one game with the photo's other tableaux: \d+(st|nd|rd|th) place, {game_points} points?\."))
    expect(said).to_be_in_viewport()

    page.click("#solo-tableau .marks g[data-row='1'][data-col='2']")
    expect(page.locator("#picker")).to_be_visible()
    expect(page.locator("#picker")).to_contain_text("Row 2, column 3")


def test_a_tableau_across_half_a_landscape_photo_is_shown_cut_to_it(server, new_page, tmp_path):
    # A 16:9 photo whose tableau crossed half its width, the table above and below it, was shown
    # whole (its box filled more than 0.4 of the photo): at 320 px its cards were 21 px wide, most
    # of their labels too small to draw (a walk). Cut to the tableau, they are drawn larger.
    from ecoscore.datasets.deck import load_deck
    from ecoscore.datasets.effects import LightParams
    from ecoscore.datasets.scene import SceneParams, render_scene

    params = SceneParams(long_side=1600, aspects=(16 / 9,), p_portrait=0.0, p_multi=0.0, p_cut_off=0.0, p_hole=0.0,
                         fill=(0.42, 0.46), elevation_deg=(85, 90), loose_cards=(0, 0),
                         light=LightParams(p_motion=0.0, p_defocus=0.0))
    scene = render_scene(load_deck("standin"), (53, 0), params)
    xs = [x for cell in scene.truth["tableaux"][0]["cells"] for x in np.array(cell["corners"])[:, 0]]
    assert (max(xs) - min(xs)) / 1600 < 0.65 / (1 + 2 * 0.12)  # what the test is about: across less than FRAME_ACROSS, margins and all
    page = new_page(viewport={"width": 320, "height": 640})
    upload_solo(page, server, write(tmp_path, "wide.jpg", scene.jpeg))
    shown = _shown_part(page)
    w, pw = shown["part"][2], shown["size"][0]
    assert w < 0.65 * pw and shown["narrowest"] >= 30, shown
    assert page.locator("#solo-tableau .where").is_visible()  # which part of the photo it is
    assert not page.errors


def test_on_a_phone_turned_the_photo_fits_the_screens_height_its_marks_on_its_cards(server, new_page, tmp_path, photo_set):
    # At 640 x 320 a square photo was shown 608 px high: scrolled through to see the tableau (a walk).
    page = new_page(viewport={"width": 640, "height": 320})
    upload_solo(page, server, write(tmp_path, "one.jpg", photo_set[0].jpeg))
    shown = _shown_part(page)
    width, height = page.evaluate("(({ width, height }) => [width, height])(document.querySelector('#solo-tableau .photo-img').getBoundingClientRect())")
    assert height <= 0.7 * 320 + 1, height
    pw, ph = shown["size"]
    assert abs(width / height - pw / ph) < 0.02 * pw / ph, (width, height, shown)  # the photo itself, not letterboxed in its box
    assert abs(shown["imageScale"] - shown["marksScale"]) < 0.01 * shown["marksScale"], shown
    assert abs(shown["imageLeft"] - shown["marksLeft"]) < 2, shown
    assert not page.errors


def test_a_tableau_filling_its_photo_is_shown_whole(server, page, tmp_path, photo_set):
    upload_solo(page, server, write(tmp_path, "one.jpg", photo_set[0].jpeg))
    shown = _shown_part(page)
    assert shown["part"] == [0, 0, *shown["size"]], shown
    assert not page.locator("#solo-tableau .photo-box.zoomed").count()
    assert page.locator("#solo-tableau .where").is_hidden()


def test_of_two_tableaux_holding_unlike_numbers_of_cards_the_one_with_more_is_shown_and_said_so(server, page, tmp_path):
    from playwright.sync_api import expect

    from ecoscore.datasets.deck import load_deck
    from ecoscore.datasets.scene import SceneParams, render_scene

    params = SceneParams(long_side=2000, p_multi=1.0, tableaux=(2, 2), p_cut_off=0.0, p_hole=1.0, elevation_deg=(70, 90),
                         loose_cards=(0, 0))
    scene = render_scene(load_deck("standin"), (67, 0), params)
    counts = [sum(c["type"] is not None for c in t["cells"]) for t in scene.truth["tableaux"]]
    assert sorted(counts) == [15, 19]
    upload_solo(page, server, write(tmp_path, "two.jpg", scene.jpeg))
    expect(page.locator("#status")).to_have_text("2 tableaux found; showing the one with the most cards.")
    assert page.evaluate("solo.view.grid.flat().filter(Boolean).length") == 19
