"""The phone page driven in real headless Chromium (Debian's), against a live server."""
import shutil
import socket
import threading
import time

import pytest
import uvicorn
from conftest import needs_models
from helpers import EXAMPLES

from ecoscore.scoring import CardType, Tableau, score_tableau
from ecoscore.service.app import Settings, create_app

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [needs_models, pytest.mark.browser, pytest.mark.slow, pytest.mark.skipif(not CHROMIUM, reason="chromium is not installed")]
# Chromium on this machine: no sandbox as root, and no background calls to Google's hosts.
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]


@pytest.fixture()
def server(tmp_path, reader):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    app = create_app(Settings(db_url=f"sqlite:///{tmp_path / 'db.sqlite3'}"), reader=reader)
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    while not srv.started:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(10)


def expect(locator):
    # Playwright's expect polls without eval: wait_for_function's string predicates are eval'd in
    # the page, which the service's Content-Security-Policy (script-src 'self') rightly refuses.
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(locator)


@pytest.fixture()
def page():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        context = browser.new_context(viewport={"width": 412, "height": 915}, is_mobile=True, has_touch=True)
        page = context.new_page()
        refused = []  # the page must keep to the service's Content-Security-Policy
        page.on("console", lambda m: refused.append(m.text) if "Content Security Policy" in m.text else None)
        yield page
        browser.close()
        assert not refused, refused


def test_upload_see_score_correct_a_cell(server, page, photo_set, reader, tmp_path):
    scene = photo_set[0]
    path = tmp_path / "tableau.jpg"
    path.write_bytes(scene.jpeg)
    read = reader.read(scene.jpeg).tableaux[0].tableau
    page.goto(server)
    page.set_input_files("#file", str(path))
    page.wait_for_selector("#result:not([hidden])", timeout=20000)
    assert int(page.text_content("#total")) == score_tableau(read).total
    assert page.eval_on_selector("#overlay", "img => img.complete && img.naturalWidth > 0")
    # correct the first cell to a wolf (or a fox if it is one) and see the score change
    new_type = CardType.FOX if read.cells[0] is CardType.WOLF else CardType.WOLF
    expected = score_tableau(Tableau([new_type, *read.cells[1:]])).total
    page.click("#grid button >> nth=0")
    page.click(f"#choices button:text-is('{new_type.value}')")
    expect(page.locator("#total")).to_have_text(str(expected), timeout=10000)
    assert page.text_content("#status") == "Score updated with your correction."
    assert page.text_content("#grid button >> nth=0").startswith(new_type.value)


def test_room_three_players_live(server, page, photo_set, tmp_path):
    import json
    import urllib.request

    path = tmp_path / "mine.jpg"
    path.write_bytes(photo_set[1].jpeg)
    page.goto(server)
    page.select_option("#mode", "game")
    page.click("#new-room")
    page.wait_for_url("**/r/*")
    room_id = page.url.rsplit("/", 1)[1]
    assert page.eval_on_selector("#qr", "img => img.complete && img.naturalWidth > 0") is not None
    page.fill("#player-name", "Ann")
    page.set_input_files("#room-photo", str(path))
    expect(page.locator("#room-pad")).to_contain_text("Ann", timeout=20000)
    # two more players join from their own phones (the API), and show up live
    for name in ("bruno", "chiara"):
        body = json.dumps({"grid": (EXAMPLES / f"{name}.txt").read_text()}).encode()
        request = urllib.request.Request(f"{server}/api/rooms/{room_id}/players/{name}/grid", body, method="PUT",
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request) as response:
            assert response.status == 200
    expect(page.locator("#room-pad")).to_contain_text("chiara", timeout=10000)
    headers = page.eval_on_selector_all("#room-pad tr:first-child th", "ths => ths.map(t => t.textContent)")
    assert headers[1:] == ["Ann", "bruno", "chiara"]
    # Ann corrects her own tableau from the page (she holds the token)
    page.wait_for_selector("#mine .grid button")
    page.click("#mine .grid button >> nth=0")
    page.click("#choices button:text-is('meadow')")
    expect(page.locator("#room-status")).to_contain_text("Correction saved", timeout=10000)
    page.reload()
    expect(page.locator("#room-pad")).to_contain_text("chiara", timeout=10000)
