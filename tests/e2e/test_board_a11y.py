"""The board for screen readers and keyboards, in Chromium (issue #34): each part of a board has
a name that says its state, in English and Korean; a move takes a handful of keys from page load;
the keyboard stays on the board; the others' moves are said once as they arrive; the focus ring
and the legal places are drawn as well as tinted (screenshots in artifacts/e2e/)."""

import re

import pytest

from games import selectors
from tests.games.api.test_gray_tiling import play_to_tiling
from tests.support import factories
from tests.support.browser import board_of, set_confirm
from tests.support.play import waiting_for

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

COLOR_WORDS = {
    "en": {"blue": "blue", "yellow": "yellow", "red": "red", "black": "black", "white": "white"},
    "ko": {"blue": "파랑", "yellow": "노랑", "red": "빨강", "black": "검정", "white": "하양"},
}


def focused(page) -> dict:
    return page.evaluate(
        """() => { const e = document.activeElement; return {
             cls: e.className, inGame: !!e.closest('#game'), source: e.dataset.source || null,
             color: e.dataset.color || null, dest: e.dataset.dest || null }; }"""
    )


def line_words(lang: str, number: int, color: str | None, count: int) -> str:
    if not count:
        return {"en": f"Pattern line {number}: empty", "ko": f"{number}번 패턴 라인: 비어 있음"}[
            lang
        ]
    word = COLOR_WORDS[lang][color]
    return {
        "en": f"Pattern line {number}: {count} of {number}, {word}",
        "ko": f"{number}번 패턴 라인: {number}칸 중 {count}칸, {word}",
    }[lang]


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_each_part_of_a_board_is_named_with_its_state(
    browser, live_server, contexts, alice, bob, start_game, lang
):
    # Each has moved: both boards hold tiles.
    game = start_game(alice, bob)
    while game.ply < 3:
        game = waiting_for(waiting_for(game, bob), alice)
    locale = {"en": "en-US", "ko": "ko-KR"}[lang]
    page = board_of(contexts(locale=locale), live_server.url, alice, game.id)
    assert page.locator("html").get_attribute("lang") == lang
    state = selectors.game_get(game_id=game.id).engine_state().to_dict()
    seats = {s.user_id: s.position for s in game.seat_list}

    tree = page.locator(".player-boards").aria_snapshot()
    for user in (alice, bob):
        board = state["boards"][seats[user.pk]]
        # Alice's lines are buttons (her turn), bob's pictures; each said with what it holds.
        for number, (color, count) in enumerate(board["pattern_lines"], 1):
            assert f'"{line_words(lang, number, color, count)}"' in tree, (number, tree)
        for number in range(1, 6):
            row = {"en": f"Wall row {number}: ", "ko": f"벽 {number}번째 가로줄: "}[lang]
            assert re.search(rf'img "{row}[^"]+ (empty|비어 있음)"', tree), (number, tree)
        floor = len(board["floor"])
        if floor:
            penalty = sum((1, 1, 2, 2, 2, 3, 3)[:floor])
            said = {
                "en": rf"Floor: {floor} tiles?( \([^)]*starting player marker\))?, -{penalty}",
                "ko": rf"바닥 라인: 타일 {floor}개(\(선 플레이어 마커 포함\))?, -{penalty}",
            }[lang]
            assert re.search(f'"{said}"', tree), tree
        else:
            assert {"en": '"Floor: empty"', "ko": '"바닥 라인: 비어 있음"'}[lang] in tree
    # The score is said with its name, not as a bare number.
    score = {"en": "Score: ", "ko": "점수: "}[lang]
    assert tree.count(f"text: {score}0") + tree.count(f'"{score}0"') == 2, tree
    # The floor line's button is named by what it holds and costs; its penalties are not in it.
    floor_button = page.locator("button.floor-line")
    assert "-" not in floor_button.inner_text()
    assert page.get_by_role("button", name=re.compile("^(Floor|바닥 라인): ")).count() == 1

    # The table: a toolbar per factory that has tiles to take, named with its tiles.
    table = page.locator(".game-table").aria_snapshot()
    order = list(COLOR_WORDS["en"])
    for number, tiles in enumerate(state["factories"], 1):
        words = ", ".join(COLOR_WORDS[lang][c] for c in sorted(tiles, key=order.index))
        name = {"en": f"Factory {number}: ", "ko": f"{number}번 공장: "}[lang]
        if tiles:
            assert f'toolbar "{name}{words}"' in table, table
        else:
            assert f'img "{name}{ {"en": "empty", "ko": "비어 있음"}[lang] }"' in table, table
    assert re.search(r'(toolbar|img) "(Center|중앙): ', table), table
    # The move list scrolls by keys: it is a stop of the keyboard, named.
    log = page.locator(".log-scroll")
    assert log.get_attribute("tabindex") == "0"
    assert page.get_by_role("region", name={"en": "Moves", "ko": "수 기록"}[lang]).count() == 1


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_move_by_keyboard_alone_then_said_once_on_the_other_board(
    browser, live_server, contexts, alice, bob, start_game, artifacts, lang
):
    game = waiting_for(start_game(alice, bob), alice)
    set_confirm(alice, "off")
    page = board_of(contexts(), live_server.url, alice, game.id)
    # Bob reads in Korean in the second run: the moves are said in his language.
    locale = {"en": "en-US", "ko": "ko-KR"}[lang]
    bob_page = board_of(contexts(locale=locale), live_server.url, bob, game.id)
    ply = int(page.locator("#game").get_attribute("data-ply"))
    # Bob's keyboard is on his board (the move list); what his page says is counted.
    bob_page.locator(".log-scroll").focus()
    bob_page.evaluate(
        """() => { window.said = [];
             new MutationObserver(() => window.said.push(
               document.getElementById('board-news').textContent)
             ).observe(document.getElementById('board-news'),
                       {childList: true, characterData: true, subtree: true}); }"""
    )

    # One tab stop per factory and the center: the other tiles are reached by arrow keys.
    stops = page.evaluate(
        """[...document.querySelectorAll('.factory, .center')].map((box) =>
             [...box.querySelectorAll('button.take')].filter((b) => b.tabIndex === 0).length)"""
    )
    assert all(n <= 1 for n in stops) and sum(stops) >= 2, stops

    keys = 0

    def press(key: str) -> None:
        nonlocal keys
        keys += 1
        page.keyboard.press(key)

    press("Tab")  # the skip link, first on the page
    assert "skip-link" in focused(page)["cls"]
    press("Enter")  # on to the first tiles
    first = focused(page)
    assert "take" in first["cls"] and first["inGame"]
    # A focus ring of its own: near-black (3:1 on the table and every tile), not the orange of
    # hover and picked tiles.
    ring = page.evaluate(
        "(() => { const s = getComputedStyle(document.activeElement);"
        " return [s.outlineStyle, s.outlineColor, s.outlineWidth]; })()"
    )
    assert ring == ["solid", "rgb(17, 20, 24)", "3px"], ring
    page.screenshot(path=str(artifacts / "a11y-focus-ring-tile.png"), clip=_around(page))
    # The arrow keys go to the next color in the factory, and back.
    colors_here = page.evaluate(
        f"""new Set([...document.querySelectorAll('button.take[data-source="{first["source"]}"]')]
             .map((b) => b.dataset.color)).size"""
    )
    if colors_here > 1:
        page.keyboard.press("ArrowRight")
        assert focused(page)["color"] != first["color"]
        assert focused(page)["source"] == first["source"]
        page.keyboard.press("ArrowLeft")
        assert focused(page)["color"] == first["color"]
    press("Enter")  # picks: the keyboard is on the first place they may go
    dest = focused(page)
    assert "dest" in dest["cls"]
    # The legal places are marked (dashed edge and a marker), in color and in greyscale.
    board = page.locator(".player-board.interactive")
    border = board.locator("button.dest:not(:disabled)").first.evaluate(
        "(b) => getComputedStyle(b).borderTopStyle"
    )
    assert border == "dashed"
    board.screenshot(path=str(artifacts / "a11y-legal-marks.png"))
    # Through the style property: the site's Content-Security-Policy refuses a <style> tag.
    page.evaluate("document.documentElement.style.filter = 'grayscale(1)'")
    board.screenshot(path=str(artifacts / "a11y-legal-marks-greyscale.png"))
    page.evaluate("document.documentElement.style.filter = ''")
    # Not by colour alone: a marker beside each legal line, whatever colours a player sees
    # (Chromium's own simulations of the three colour-blindnesses, screenshots to look at).
    markers = board.locator("button.pattern-line:not(:disabled)").evaluate_all(
        "(bs) => bs.map((b) => getComputedStyle(b, '::before').content)"
    )
    assert markers and set(markers) == {'"›"'}, markers
    vision = page.context.new_cdp_session(page)
    for deficiency in ("protanopia", "deuteranopia", "tritanopia"):
        vision.send("Emulation.setEmulatedVisionDeficiency", {"type": deficiency})
        board.screenshot(path=str(artifacts / f"a11y-legal-marks-{deficiency}.png"))
    vision.send("Emulation.setEmulatedVisionDeficiency", {"type": "none"})
    press("Enter")  # plays it
    page.wait_for_function(f"() => document.getElementById('game').dataset.ply !== '{ply}'")
    assert keys <= 5, keys
    assert focused(page)["inGame"]  # the keyboard stays on the board
    move = f"{first['source']} {first['color']} {dest['dest']}"
    assert move in page.locator(".move-log").text_content()
    # The keys are listed on the page.
    help_box = page.locator("details.keyboard-help")
    help_box.locator("summary").click()
    assert "Enter" in help_box.inner_text() and "Esc" in help_box.inner_text()

    # Bob's board: the move arrives, is said once in words, and his turn with it.
    bob_page.wait_for_function(f"() => document.getElementById('game').dataset.ply !== '{ply}'")
    bob_page.wait_for_timeout(1500)
    said = bob_page.evaluate("window.said")
    news = bob_page.locator("#board-news").text_content()
    number, line = first["source"][1:], dest["dest"]
    if lang == "en":
        where = "the floor line" if line == "floor" else f"pattern line {line}"
        source = "the center" if first["source"] == "C" else f"factory {number}"
        words = rf"alice took \d+ {first['color']} tiles? from {source} to {where}\."
        assert re.search(words, news), news
        assert "Your turn." in news
    else:
        where = "바닥 라인" if line == "floor" else f"{line}번 패턴 라인"
        source = "중앙" if first["source"] == "C" else f"{number}번 공장"
        # The script's catalog names a tile's color as an adjective ("빨간 타일").
        color = {"blue": "파란", "yellow": "노란", "red": "빨간", "black": "검은", "white": "하얀"}
        tiles = rf"{color[first['color']]} 타일 \d+개"
        words = rf"alice 님이 {source}의 {tiles}를 {where}으로 가져갔습니다\."
        assert re.search(words, news), news
        assert "내 차례입니다." in news
    assert len(said) == 1, said
    assert bob_page.evaluate("!!document.activeElement.closest('#game')")


def _around(page) -> dict:
    box = page.evaluate(
        """() => {
          const r = document.activeElement.closest('.factory, .center').getBoundingClientRect();
          return {x: r.x - 12, y: r.y - 12, width: r.width + 24, height: r.height + 24}; }"""
    )
    return box


def test_wall_tiling_on_the_gray_wall_by_keyboard(
    browser, live_server, contexts, alice, bob, start_game, artifacts
):
    game = play_to_tiling(start_game(alice, bob, variant="gray"), {0: alice, 1: bob})
    set_confirm(alice, "off")
    page = board_of(contexts(), live_server.url, alice, game.id)
    ply = int(page.locator("#game").get_attribute("data-ply"))
    spaces = page.locator("button.place")
    assert spaces.count() >= 2
    # The wall spaces to choose from are one stop of the keyboard, the arrow keys between them.
    assert (
        page.evaluate(
            "[...document.querySelectorAll('button.place')].filter((b) => b.tabIndex === 0).length"
        )
        == 1
    )
    # The row being tiled is a group named with its state (the gray wall: by column).
    line = spaces.first.get_attribute("data-line")
    row = page.get_by_role(
        "group", name=re.compile(rf"^Wall row {line}: .*columns? [\d, ]+ empty$")
    )
    assert row.count() == 1
    assert (
        page.locator("button.place").first.evaluate("(b) => getComputedStyle(b).borderTopStyle")
        == "dashed"
    )

    page.locator("button.place").first.focus()
    page.keyboard.press("ArrowRight")
    second = page.evaluate("document.activeElement.dataset.column")
    assert second == spaces.nth(1).get_attribute("data-column")
    page.locator(".player-board.interactive").screenshot(
        path=str(artifacts / "a11y-wall-spaces-focus.png")
    )
    page.keyboard.press("Enter")
    page.wait_for_function(f"() => document.getElementById('game').dataset.ply !== '{ply}'")
    assert f"wall {line} {second}" in page.locator(".move-log").text_content()
    assert page.evaluate("!!document.activeElement.closest('#game')")


def test_a_whole_game_against_the_computer_by_keyboard_alone(browser, live_server, contexts, alice):
    """From page load to the end of a game with the keyboard alone: two keys to the first
    tiles (the skip link), then two a move (take the tiles the keyboard is on, put them in the
    first place they may go), the keyboard back on the tiles after each answer."""
    game = factories.against_computer(alice, level="greedy")
    set_confirm(alice, "off")
    page = board_of(contexts(), live_server.url, alice, game.id)
    keys = 0

    def press(key: str) -> None:
        nonlocal keys
        keys += 1
        page.keyboard.press(key)

    def status() -> str:
        return page.locator("#game").get_attribute("data-status")

    press("Tab")
    press("Enter")  # the skip link: on to the first tiles
    moves = 0
    while status() != "finished" and moves < 150:
        page.wait_for_function(
            "() => document.getElementById('game').dataset.status === 'finished'"
            " || (document.activeElement.matches('button.take:not(:disabled)')"
            " && document.getElementById('game').classList.contains('can-move'))",
            timeout=15_000,
        )
        if status() == "finished":
            break
        assert focused(page)["inGame"] and "take" in focused(page)["cls"], focused(page)
        ply = page.locator("#game").get_attribute("data-ply")
        press("Enter")  # takes them: the keyboard goes to the first place they may go
        assert "dest" in focused(page)["cls"], focused(page)
        press("Enter")  # places them; the computer answers
        moves += 1
        page.wait_for_function(
            f"() => document.getElementById('game').dataset.ply !== '{ply}'", timeout=15_000
        )
    assert status() == "finished", f"{moves} moves made"
    assert moves >= 10
    assert keys == 2 + 2 * moves
