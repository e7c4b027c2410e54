"""Private notes and friends in a real browser (issue #32): a player saves their notes on the
board page without leaving it, told "Saved" in a live region, under the strict CSP; the invite
box of the new-game form offers the players one follows before a letter is typed, and first
among the names found."""

import pytest

from accounts.services import follow_create
from games.models import GameNote
from tests.support.browser import sign_in
from tests.support.factories import start_game

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def test_notes_are_saved_from_the_board_page(browser, live_server, alice, bob):
    game = start_game(alice, bob)
    base = live_server.url
    page = sign_in(browser, base, "alice")
    errors: list[str] = []
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.goto(f"{base}/games/{game.id}/")
    url = page.url

    page.fill("#game-notes-text", "Blue column first.\n<b>not bold</b>")
    page.click("#game-notes button[type=submit]")

    page.wait_for_function(
        "() => document.getElementById('game-notes-status').textContent === 'Saved'"
    )
    assert page.url == url  # saved through the API, without leaving the page
    assert page.locator("#game-notes-status").get_attribute("aria-live") == "polite"
    note = GameNote.objects.get(game=game, user=alice)
    assert note.text == "Blue column first.\n<b>not bold</b>"
    page.reload()
    assert page.input_value("#game-notes-text") == note.text
    assert page.locator("#game-notes b").count() == 0
    assert not errors


def test_the_invite_box_offers_the_players_one_follows(browser, live_server, alice, make_user):
    make_user("bobby")
    make_user("boris")
    follow_create(follower=alice, username="boris")
    base = live_server.url
    page = sign_in(browser, base, "alice")
    page.goto(base + "/games/new/")
    page.locator("[name=seat2_kind]").select_option("invite")

    page.focus("[name=seat2_username]")
    page.wait_for_selector('#player-suggestions option[value="boris"]', state="attached")
    assert page.locator('#player-suggestions option[value="bobby"]').count() == 0

    page.locator("[name=seat2_username]").press_sequentially("bo")
    page.wait_for_selector('#player-suggestions option[value="bobby"]', state="attached")
    values = page.eval_on_selector_all("#player-suggestions option", "os => os.map(o => o.value)")
    assert values == ["boris", "bobby"]
