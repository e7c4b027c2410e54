"""The board as a player comes back to it, in Chromium: a game against the computer played (fast,
through the services) to the end of round 1, where the move list and the summary panel say what
each player scored; then to the end, where a banner says how it went. On a phone, picking tiles
brings the pattern lines into view, and the hint does not mention a key phones lack."""

import pytest

from tests.support.browser import DESKTOP, PHONE, page_for
from tests.support.factories import against_computer
from tests.support.play import game_over, long_game, only_to_move, play_forward, round_over
from tests.support.urls import board_url

SMALL_PHONE = {"width": 375, "height": 667}

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def numbers_are_whole(page) -> bool:
    """Every move number in the move list is drawn whole, inside the list's box."""
    return page.evaluate(
        """() => {
          const log = document.querySelector('.move-log');
          const left = log.getBoundingClientRect().left;
          return [...log.querySelectorAll('.ply')].every((n) =>
            n.scrollWidth <= n.clientWidth && n.getBoundingClientRect().left >= left);
        }"""
    )


def test_round_summary_then_game_over_banner(browser, live_server, alice, artifacts):
    game = play_forward(against_computer(alice, level="greedy"), until=round_over(1), seed=3)
    assert game.engine_state().round == 2
    page = page_for(browser, live_server.url, alice, DESKTOP)
    page.goto(live_server.url + board_url(game))

    scored = page.locator(".move-log li.scored").first
    scored.scroll_into_view_if_needed()
    assert scored.is_visible()
    assert scored.text_content().strip().startswith("Round 1 scored: alice +")
    panel = page.locator(".round-summary")
    assert panel.is_visible()
    assert panel.locator("h2").text_content() == "Round 1 scored"
    assert panel.locator("li").count() == 2  # alice and the computer
    assert "→" in panel.locator("li").first.text_content()
    assert numbers_are_whole(page)
    page.screenshot(path=str(artifacts / "board-round-1-scored.png"), full_page=True)

    # The rest of the game is played elsewhere while the page stays open: when the live update
    # brings the finished game, the page reloads itself to show the banner and the rematch.
    page.evaluate("window.stillTheSamePage = true")
    game = play_forward(game, until=game_over, seed=3)
    banner = page.locator(".game-over")
    banner.wait_for(state="visible")
    assert page.evaluate("window.stillTheSamePage") is None  # reloaded, by the page itself
    assert page.url == live_server.url + board_url(game)
    assert page.locator("#rematch-button").is_visible()
    seat = next(s for s in game.seat_list if s.user_id == alice.pk)
    headline = banner.locator("h2").text_content()
    score = f"{seat.final_score} point" + ("" if seat.final_score == 1 else "s")
    if seat.place == 1:
        assert f"You won with {score}." in headline or "shared" in headline
    else:
        assert f"You came 2nd of 2 with {score}." in headline
    # The table's empty factories are gone; the last round's bonuses are in the panel.
    assert page.locator(".factories, .game-table").count() == 0
    assert page.locator(".round-summary h3").text_content() == "End-of-game bonuses"
    assert numbers_are_whole(page)
    page.screenshot(path=str(artifacts / "board-game-over.png"), full_page=True)


def test_three_digit_move_numbers_are_shown_whole(browser, live_server, alice):
    game = long_game(alice)
    assert game.ply > 100
    for viewport in (DESKTOP, PHONE):
        page = page_for(browser, live_server.url, alice, viewport, phone=viewport is PHONE)
        page.goto(live_server.url + board_url(game))
        # The last numbered row (a round's scoring row, last when the game is over, has none).
        last = page.locator(".move-log li:not(.scored) .ply").last
        assert last.text_content() == str(game.ply)
        assert numbers_are_whole(page)


def test_on_a_phone_picking_tiles_brings_the_pattern_lines_into_view(
    browser, live_server, alice, artifacts
):
    game = play_forward(against_computer(alice), until=only_to_move(0), seed=3)
    # A small phone (375x667): on a 390x844 one the whole board of a game of two fits the first
    # screen below the table (tests/e2e/test_phone.py), lines and all.
    page = page_for(browser, live_server.url, alice, SMALL_PHONE, phone=True)
    page.goto(live_server.url + board_url(game))
    assert "Esc" not in page.locator(".pick-hint").first.text_content()
    # The player's own board, pattern lines to floor line, all on the screen.
    in_view = """() => {
      const board = document.querySelector('.player-board.interactive');
      const top = board.querySelector('.pattern-lines').getBoundingClientRect().top;
      const bottom = board.querySelector('.floor-line').getBoundingClientRect().bottom;
      return top >= 0 && bottom <= window.innerHeight;
    }"""
    assert not page.evaluate(in_view), "the pattern lines are in view before any pick"

    page.locator("button.take").first.tap()

    assert "Picked" in page.locator(".pick-hint").first.text_content()
    assert "Esc" not in page.locator(".pick-hint").first.text_content()
    page.wait_for_function(in_view)
    assert page.locator("button.dest:not([disabled])").count() >= 1
    page.screenshot(path=str(artifacts / "phone-picked.png"))
