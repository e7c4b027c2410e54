"""The site in Korean, in Chromium: a browser asking for Korean gets Korean pages (the page
scripts' messages too), and the switcher in the header changes the language and keeps it."""

import re

import pytest
from django.conf import settings
from django.test import Client

from games import live
from tests.support.factories import SESSION_BACKEND

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

HANGUL = re.compile(r"[\uac00-\ud7a3]")


@pytest.fixture
def korean(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="ko-KR")
    yield context
    context.close()
    live.watch.wake_all()
    live.watch.join(timeout=5)


def test_pages_and_the_board_script_speak_korean(korean, live_server, start_game, alice, bob):
    base = live_server.url
    page = korean.new_page()
    page.set_default_timeout(10_000)
    pages = ("/", "/lobby/", "/rules/", "/history/", "/leaderboard/", "/computer/strong/")
    for path in (*pages, "/accounts/login/"):
        page.goto(base + path)
        assert page.locator("html").get_attribute("lang") == "ko", path
        assert HANGUL.search(page.locator("main").inner_text()), path

    # A player's board: the page's own text, and what its script writes after a pick.
    game = start_game(alice, bob)
    mover = next(s.user for s in game.seat_list if s.position in game.engine_state().to_move)
    client = Client()
    client.force_login(mover, backend=SESSION_BACKEND)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
    korean.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": base}])
    page.goto(f"{base}/games/{game.id}/")
    hint = page.locator(".pick-hint").first
    assert HANGUL.search(hint.inner_text())
    page.locator("button.tile.take").first.click()
    page.wait_for_function(
        "() => document.querySelector('.pick-hint').textContent !== "
        "document.querySelector('.pick-hint').dataset.default"
    )
    picked = hint.inner_text()
    assert HANGUL.search(picked) and "Picked" not in picked

    # The switcher: English, kept on the next page; then back to Korean.
    page.locator(".language-switcher button[value=en]").click()
    page.wait_for_load_state()
    assert page.locator("html").get_attribute("lang") == "en"
    page.goto(base + "/rules/")
    assert page.locator("html").get_attribute("lang") == "en"
    assert not HANGUL.search(page.locator("main").inner_text())
    page.locator(".language-switcher button[value=ko]").click()
    page.wait_for_load_state()
    assert page.locator("html").get_attribute("lang") == "ko"
    page.close()
