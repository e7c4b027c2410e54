"""The board's script around a move, in Chromium (issue #29, "Moves" and "A tab left open"):
confirming a move (shown placed, Confirm or Cancel), the sending state, errors in plain words,
the notice when live updates stop, where the keyboard is after a move, and the tab's title and
header count as the game goes on."""

import json
import re

import pytest

from games import live, selectors
from games.models import LogEntry
from tests.games.api.test_gray_tiling import play_to_tiling
from tests.support.browser import board_of, set_confirm, signed_in
from tests.support.play import waiting_for
from tests.support.workers import wait_for

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

HANGUL = re.compile(r"[\uac00-\ud7a3]")
MOVES_API = "**/api/games/*/moves/"


def ply_of(page) -> int:
    return int(page.locator("#game").get_attribute("data-ply"))


def a_line_move(page) -> tuple[str, str, str]:
    """A legal move to a pattern line (source, color, line) from the page's list."""
    moves = json.loads(page.locator("#legal-moves").text_content())
    return tuple(next(m for m in moves if not m.endswith("floor")).split())


def pick(page, source: str, color: str) -> int:
    tiles = page.locator(f'button.take[data-source="{source}"][data-color="{color}"]')
    count = tiles.count()
    tiles.first.click()
    return count


def test_confirm_shows_the_tiles_placed_and_cancel_takes_them_back(
    browser, live_server, contexts, alice, bob, start_game, artifacts
):
    game = waiting_for(start_game(alice, bob), alice)
    set_confirm(alice, "on")
    page = board_of(contexts(), live_server.url, alice, game.id)
    ply = ply_of(page)
    source, color, line = a_line_move(page)
    count = pick(page, source, color)

    page.click(f'button.dest[data-dest="{line}"]')
    box = page.locator(".confirm-move")
    box.wait_for()
    pending = page.locator(f".player-board.interactive .tile.pending.{color}")
    # Pattern line N holds N tiles; the rest would fall to the floor line.
    assert pending.count() == count
    in_line = page.locator(f'.pattern-line[data-dest="{line}"] .tile.pending').count()
    assert in_line == min(count, int(line))
    assert "to pattern line" in box.inner_text()
    assert page.evaluate("document.activeElement.textContent") == "Confirm"
    for button in (
        box.locator("button", has_text="Confirm"),
        box.locator("button", has_text="Cancel"),
    ):
        size = button.bounding_box()
        assert size["width"] >= 24 and size["height"] >= 24
    page.screenshot(path=str(artifacts / "board-confirm-move.png"), full_page=True)
    assert ply_of(page) == ply and selectors.game_get(game_id=game.id).ply == ply

    # Escape, then Cancel: the preview goes; the tiles stay picked, for another line.
    page.keyboard.press("Escape")
    assert box.count() == 0 and pending.count() == 0
    assert page.locator(".tile.picked").count() == count
    page.click(f'button.dest[data-dest="{line}"]')
    page.click(".confirm-move button:has-text('Cancel')")
    assert page.locator(".confirm-move").count() == 0 and pending.count() == 0
    assert page.evaluate("document.activeElement.dataset.dest") == line
    assert selectors.game_get(game_id=game.id).ply == ply

    page.click(f'button.dest[data-dest="{line}"]')
    page.click(".confirm-move button:has-text('Confirm')")
    page.wait_for_function(f"() => document.getElementById('game').dataset.ply !== '{ply}'")
    assert f"{source} {color} {line}" in page.locator(".move-log").text_content()


def test_confirm_a_wall_space_on_the_gray_wall(
    browser, live_server, contexts, alice, bob, start_game
):
    game = play_to_tiling(start_game(alice, bob, variant="gray"), {0: alice, 1: bob})
    seat = next(s.position for s in game.seat_list if s.user_id == alice.pk)
    set_confirm(alice, "on")
    page = board_of(contexts(), live_server.url, alice, game.id)
    ply = ply_of(page)
    space = page.locator("button.place").first
    line, column = space.get_attribute("data-line"), space.get_attribute("data-column")
    color = page.locator(
        f".player-board.interactive .pattern-line:nth-child({line}) .tile:not(.empty)"
    ).first.get_attribute("class")

    space.click()
    box = page.locator(".confirm-move")
    box.wait_for()
    assert f"row {line}, column {column}" in box.inner_text()
    placed = page.locator("button.place.pending")
    assert placed.count() == 1 and set(color.split()) - {"tile"} <= set(
        placed.get_attribute("class").split()
    )
    page.keyboard.press("Escape")
    assert box.count() == 0 and placed.count() == 0

    space.click()
    page.click(".confirm-move button:has-text('Confirm')")
    page.wait_for_function(
        "() => !document.querySelector('.confirm-move') && !document.querySelector('#game.sending')"
    )
    played = LogEntry.objects.filter(game=game, kind="move", player=seat)
    assert played.order_by("number").last().data["move"] == f"wall {line} {column}"
    assert ply_of(page) > ply


def test_auto_confirms_on_a_touch_screen_only(
    browser, live_server, contexts, alice, bob, start_game
):
    game = waiting_for(start_game(alice, bob), alice)
    phone = board_of(
        contexts(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True),
        live_server.url,
        alice,
        game.id,
    )
    assert phone.evaluate("matchMedia('(pointer: coarse)').matches")
    source, color, line = a_line_move(phone)
    phone.locator(f'button.take[data-source="{source}"][data-color="{color}"]').first.tap()
    phone.locator(f'button.dest[data-dest="{line}"]').tap()
    phone.locator(".confirm-move").wait_for()

    # With a mouse, one click sends (the setting's default, "auto").
    desk = board_of(contexts(), live_server.url, alice, game.id)
    ply = ply_of(desk)
    pick(desk, source, color)
    desk.click(f'button.dest[data-dest="{line}"]')
    desk.wait_for_function(f"() => document.getElementById('game').dataset.ply !== '{ply}'")
    assert desk.locator(".confirm-move").count() == 0


def test_a_move_on_its_way_disables_the_board_until_answered(
    browser, live_server, contexts, alice, bob, start_game
):
    game = waiting_for(start_game(alice, bob), alice)
    set_confirm(alice, "off")
    page = board_of(contexts(), live_server.url, alice, game.id)
    ply = ply_of(page)
    held = []
    page.route(MOVES_API, lambda route: held.append(route))
    source, color, line = a_line_move(page)
    pick(page, source, color)
    page.click(f'button.dest[data-dest="{line}"]')

    status = page.locator("#move-status")
    page.wait_for_function("() => document.getElementById('move-status').textContent !== ''")
    assert status.inner_text() == "Sending your move…"
    assert status.get_attribute("aria-live") == "polite"
    # The move's controls, that is: the chat beside the moves stays usable (issue #58).
    move_controls = "#game button:not(:disabled):not(#chat-slot *)"
    assert page.locator(move_controls).count() == 0
    assert page.locator("#chat-slot button:not(:disabled)").count() > 0
    # A second click does nothing: one request only.
    page.locator(f'button.dest[data-dest="{line}"]').click(force=True)
    assert len(held) == 1

    held[0].continue_()
    page.wait_for_function(f"() => document.getElementById('game').dataset.ply !== '{ply}'")
    assert status.inner_text() == ""
    assert selectors.game_get(game_id=game.id).ply == ply + 1


def test_errors_say_what_happened_and_what_to_do(
    browser, live_server, contexts, alice, bob, start_game
):
    game = waiting_for(start_game(alice, bob), alice)
    set_confirm(alice, "off")
    page = board_of(contexts(), live_server.url, alice, game.id)
    ply = ply_of(page)
    source, color, line = a_line_move(page)
    count = pick(page, source, color)

    # The network down: the board as it was (the tiles still picked), one tap to try again.
    page.route(MOVES_API, lambda route: route.abort("internetdisconnected"))
    page.click(f'button.dest[data-dest="{line}"]')
    error = page.locator(".move-error")
    error.filter(has_text="connection failed").wait_for()
    assert error.inner_text() == (
        "Your move was not sent: the connection failed. Check your connection and try again."
    )
    assert "Failed to fetch" not in page.content()
    assert page.locator(".tile.picked").count() == count
    assert page.locator(f'button.dest[data-dest="{line}"]').is_enabled()
    assert page.locator("#move-status").inner_text() == ""

    # The server failed: not an illegal move.
    page.unroute(MOVES_API)
    page.route(MOVES_API, lambda route: route.fulfill(status=500, body="Server Error"))
    page.click(f'button.dest[data-dest="{line}"]')
    error.filter(has_text="on our side").wait_for()
    assert error.inner_text() == (
        "Something went wrong on our side; your move was not played. Try again in a moment."
    )
    assert "refused" not in error.inner_text()

    page.unroute(MOVES_API)
    page.click(f'button.dest[data-dest="{line}"]')
    page.wait_for_function(f"() => document.getElementById('game').dataset.ply !== '{ply}'")
    assert error.inner_text() == ""


def test_the_page_says_when_live_updates_stop_and_when_they_resume(
    browser, live_server, contexts, alice, bob, start_game, artifacts
):
    game = waiting_for(start_game(alice, bob), bob)
    page = board_of(contexts(), live_server.url, alice, game.id)
    notice = page.locator("#live-notice")
    assert notice.inner_text() == ""

    # The page's first wait has reached the server (on a loaded machine it may not have yet,
    # and waking nobody would leave the page waiting its full 50 s, unblocked).
    wait_for(lambda: live.watch.waiting >= 1, 10, lambda: "the page never waited for updates")
    # The network blocked: nothing the page asks for its updates is answered.
    for pattern in ("**/live/**", "**/board/**"):
        page.route(pattern, lambda route: route.abort("internetdisconnected"))
    live.watch.wake_all()  # the wait in flight is answered: the next one meets the block
    notice.filter(has_text="Live updates stopped; reconnecting…").wait_for(timeout=10_000)
    assert notice.get_attribute("role") == "status"
    page.screenshot(path=str(artifacts / "board-live-updates-stopped.png"))

    page.unroute("**/live/**")
    page.unroute("**/board/**")
    page.wait_for_function(
        "() => document.getElementById('live-notice').textContent === ''", timeout=15_000
    )
    # And updates flow again: the opponent's move arrives.
    ply = ply_of(page)
    waiting_for(selectors.game_get(game_id=game.id), alice)
    page.wait_for_function(
        f"() => document.getElementById('game').dataset.ply !== '{ply}'", timeout=15_000
    )


def test_the_keyboard_goes_on_from_the_board_after_a_move(
    browser, live_server, contexts, alice, bob, start_game
):
    game = waiting_for(start_game(alice, bob), alice)
    set_confirm(alice, "off")
    alice_page = board_of(contexts(), live_server.url, alice, game.id)
    bob_page = board_of(contexts(), live_server.url, bob, game.id)
    ply = ply_of(alice_page)
    source, color, line = a_line_move(alice_page)

    # Bob, waiting, has the keyboard on his board (the Rules link beside its heading).
    bob_page.locator("#game .game-status a[href='/rules/']").focus()
    # Alice plays by keyboard: the tiles, Enter, the line (focused for her), Enter.
    alice_page.locator(f'button.take[data-source="{source}"][data-color="{color}"]').first.focus()
    alice_page.keyboard.press("Enter")
    alice_page.locator(f'button.dest[data-dest="{line}"]').focus()
    alice_page.keyboard.press("Enter")
    alice_page.wait_for_function(f"() => document.getElementById('game').dataset.ply !== '{ply}'")

    # Not her turn now: the keyboard is at the board's heading, not at the top of the page.
    focused = alice_page.evaluate(
        "[document.activeElement.tagName, !!document.activeElement.closest('#game')]"
    )
    assert focused == ["H1", True]
    alice_page.keyboard.press("Tab")
    assert alice_page.evaluate("!!document.activeElement.closest('#game')")

    # Bob's board was swapped live: the keyboard is on the first tile he may take.
    bob_page.wait_for_function(f"() => document.getElementById('game').dataset.ply !== '{ply}'")
    bob_page.wait_for_function("() => document.activeElement.classList.contains('take')")
    first = bob_page.evaluate(
        "document.activeElement === document.querySelector('#game button.take:not(:disabled)')"
    )
    assert first


def test_the_title_and_count_follow_the_game_in_every_open_tab(
    browser, live_server, contexts, alice, bob, start_game
):
    game = waiting_for(start_game(alice, bob), bob)
    context = contexts()
    board = board_of(context, live_server.url, alice, game.id)
    home = context.new_page()
    home.clock.install()
    home.goto(live_server.url + "/")
    title = board.title()
    assert not title.startswith("(") and "Your turn" not in title
    assert board.locator("#games-waiting").count() == 0
    assert not home.title().startswith("(")

    # Bob moves elsewhere; Alice's board and its title follow, and the count in the header.
    ply = ply_of(board)
    waiting_for(selectors.game_get(game_id=game.id), alice)
    board.wait_for_function(f"() => document.getElementById('game').dataset.ply !== '{ply}'")
    board.wait_for_function("() => document.title.startsWith('(1) Your turn · ')")
    data_title = board.locator("#game").get_attribute("data-title")
    assert board.title() == f"(1) {data_title}"
    board.locator("#games-waiting").filter(has_text="1").wait_for()
    assert board.locator("#games-waiting").get_attribute("title") == "Games waiting for your move"

    # The other tab asks now and then (every 45 s).
    home.clock.fast_forward(46_000)
    home.wait_for_function("() => document.title.startsWith('(1) ')")
    assert home.locator("#games-waiting").inner_text().startswith("1")

    # Alice moves: neither "Your turn" nor the count is left.
    ply = ply_of(board)
    source, color, line = a_line_move(board)
    pick(board, source, color)
    board.click(f'button.dest[data-dest="{line}"]')
    board.wait_for_function(f"() => document.getElementById('game').dataset.ply !== '{ply}'")
    board.wait_for_function(
        "() => !document.title.startsWith('(') && !document.title.includes('Your turn')"
    )
    board.locator("#games-waiting").wait_for(state="detached")


def test_confirm_and_errors_in_korean(browser, live_server, contexts, alice, bob, start_game):
    game = waiting_for(start_game(alice, bob), alice)
    set_confirm(alice, "on")
    alice.profile.language = "ko"
    alice.profile.save()
    page = board_of(contexts(locale="ko-KR"), live_server.url, alice, game.id)
    assert page.locator("html").get_attribute("lang") == "ko"
    assert page.title().startswith("(1) 내 차례 · ")
    source, color, line = a_line_move(page)
    pick(page, source, color)
    page.click(f'button.dest[data-dest="{line}"]')
    box = page.locator(".confirm-move")
    box.wait_for()
    assert HANGUL.search(box.inner_text()) and "Confirm" not in box.inner_text()
    assert box.locator("button").all_inner_texts() == ["확인", "취소"]

    page.route(MOVES_API, lambda route: route.abort("internetdisconnected"))
    box.locator("button").first.click()
    error = page.locator(".move-error")
    error.filter(has_text="연결").wait_for()
    assert error.inner_text().startswith("수를 보내지 못했습니다")


def test_a_tab_in_the_background_says_when_it_is_your_turn(
    browser, live_server, contexts, alice, bob, start_game
):
    game = waiting_for(start_game(alice, bob), bob)
    context = contexts()
    # The page as a browser has it in a background tab: hidden from the start.
    context.add_init_script(
        "Object.defineProperty(document, 'hidden', {get: () => true});"
        "Object.defineProperty(document, 'visibilityState', {get: () => 'hidden'});"
    )
    page = signed_in(context, live_server.url, alice)
    page.clock.install()
    page.goto(f"{live_server.url}/games/{game.id}/")
    assert "Your turn" not in page.title()

    ply = ply_of(page)
    waiting_for(selectors.game_get(game_id=game.id), alice)
    page.clock.fast_forward(65_000)
    page.wait_for_function(f"() => document.getElementById('game').dataset.ply !== '{ply}'")
    page.wait_for_function("() => document.title.startsWith('(1) Your turn · ')")
