"""Two players sign up, verify their email, start a game by invitation and play the first round
by clicking tiles and pattern lines, the way people play it."""

import re

import pytest

from games.models import Game
from tests.support.browser import legal_moves, play_one_move_by_clicking
from tests.support.factories import PASSWORD

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

CONFIRM_LINK = re.compile(r"https?://[^/\s]+(/accounts/confirm-email/[^/\s]+/)")


def sign_up_and_log_in(browser, base: str, mailoutbox, username: str):
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.set_default_timeout(10_000)
    page.goto(base + "/accounts/signup/")
    page.fill("[name=username]", username)
    page.fill("[name=email]", f"{username}@example.com")
    page.fill("[name=password1]", PASSWORD)
    page.fill("[name=password2]", PASSWORD)
    page.click("main form button[type=submit]")
    page.wait_for_url("**/confirm-email/")
    assert page.locator(f"nav >> text={username}").count() == 0  # not signed in before
    mail = next(m for m in mailoutbox if m.to == [f"{username}@example.com"])
    page.goto(base + CONFIRM_LINK.search(mail.body).group(1))
    # Confirming the address, in the browser that signed up, signs the player in.
    page.click("main form button[type=submit]")
    page.wait_for_url(base + "/")
    assert page.locator(f"nav >> text={username}").count() == 1
    # And the password chosen at sign-up works for the next visit.
    page.context.clear_cookies()
    page.goto(base + "/accounts/login/")
    page.fill("[name=login]", username)
    page.fill("[name=password]", PASSWORD)
    page.click("main form button[type=submit]")
    page.wait_for_url(base + "/")
    assert page.locator(f"nav >> text={username}").count() == 1
    return page


def test_two_players_sign_up_and_play_the_first_round(browser, live_server, mailoutbox, artifacts):
    base = live_server.url
    alice = sign_up_and_log_in(browser, base, mailoutbox, "alice")
    bob = sign_up_and_log_in(browser, base, mailoutbox, "bob")

    alice.goto(base + "/games/new/")
    alice.select_option("[name=num_players]", "2")
    alice.select_option("[name=seat2_kind]", "invite")  # a computer by default
    alice.fill("[name=seat2_username]", "bob")
    alice.click("#new-game-form button[type=submit]")
    alice.wait_for_url(re.compile(r"/games/[0-9a-f-]{36}/$"))
    game_url = alice.url
    game_row = Game.objects.get(pk=game_url.rstrip("/").rsplit("/", 1)[-1])
    assert "Waiting for players" in alice.content()

    bob.goto(base + "/games/")
    bob.click(".invitations button:has-text('Accept')")
    bob.wait_for_url(game_url)
    alice.goto(game_url)
    alice.screenshot(path=str(artifacts / "01-round-1-start.png"), full_page=True)

    pages = {"alice": alice, "bob": bob}
    name_of = {page: name for name, page in pages.items()}
    bob.goto(game_url)
    for turn in range(60):
        if "Round 2 dealt" in alice.locator(".move-log").text_content():
            break
        movers = [p for p in pages.values() if p.locator("#game.can-move").count()]
        assert len(movers) == 1, "exactly one player may take tiles"
        mover = movers[0]
        assert mover.locator(".text-move-form").count() == 1
        idle = next(p for p in pages.values() if p is not mover)
        assert idle.locator("button.take").count() == 0
        if turn == 1:
            mover.screenshot(path=str(artifacts / "02-before-move.png"), full_page=True)
        play_one_move_by_clicking(mover, turn)
        # The mover's board was swapped in place; the other player loads the page afresh.
        idle.goto(game_url)
    else:
        pytest.fail("the first round did not end")

    game = alice.locator("#game")
    assert game.get_attribute("data-phase") == "take"
    assert "Round 2" in alice.locator(".game-status").text_content()
    alice.screenshot(path=str(artifacts / "03-round-2.png"), full_page=True)
    # The stale page paths: a move sent from a board older than the game is refused with a clear
    # message and the board is brought up to date. The page's ply is made stale once tiles are
    # picked: while a pick is on, live updates leave the board alone (static/games/board.js).
    mover = next(p for p in pages.values() if p.locator("#game.can-move").count())
    seat = next(s.position for s in game_row.seats.all() if s.user.username == name_of[mover])
    entries = list(game_row.log_entries.order_by("number").values_list("number", "kind", "player"))
    ply = int(mover.locator("#game").get_attribute("data-ply"))
    assert ply == len(entries) and entries[-1][1] == "deal"  # round 2 was just dealt
    own_last = max(n for n, kind, player in entries if kind == "move" and player == seat)
    # The board from before round 2 was dealt: something else happened first.
    stale_move(mover, ply - 1, "The game moved on while you were choosing")
    # The board from before the player's own last move: a move of theirs, from another tab.
    stale_move(mover, own_last, "You already moved in another tab or window")
    mover.screenshot(path=str(artifacts / "04-stale-move.png"), full_page=True)
    assert game_row.log_entries.count() == ply  # neither move was played


def stale_move(page, stale_ply: int, message: str) -> None:
    game = page.locator("#game")
    ply = game.get_attribute("data-ply")
    source, color, dest = legal_moves(page)[0].split()
    page.click(f'button.take[data-source="{source}"][data-color="{color}"]')
    page.evaluate(f"document.getElementById('game').dataset.ply = '{stale_ply}'")
    page.click(f'button.dest[data-dest="{dest}"]')
    page.wait_for_selector(f".move-error:has-text('{message}')")
    # The board shown is the game as it is, so the next move would go through.
    assert game.get_attribute("data-ply") == ply
