"""What a player does after a move, in Chromium, on a phone (390x844) and a desktop, in English
and Korean (issue #58): the chat still works (send, then report, without a reload), the report's
answer is said beside the report's form with the keyboard on it, "Next game" is in view, and a
page that moved on by itself says where the move went."""

import re

import pytest

from chat import services as chat_services
from games.models import Game
from tests.e2e.test_korean import HANGUL
from tests.e2e.test_next_game import play_a_move, two_games_waiting
from tests.support.browser import PHONE, context_for, set_confirm, signed_in
from tests.support.factories import invite_game
from tests.support.play import play_to_end

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

WORDS = {
    "en": {
        "message": "Your message to the other players",
        "send": "Send",
        "report": "Report",
        "why": "Why do you report this message?",
        "send_report": "Send the report",
        "thanks": "Thank you: a moderator will look at the message.",
        "next": "Next game",
        "rematch": "Rematch",
        "analysis": "Analysis of the moves",
    },
    "ko": {
        "message": "다른 플레이어에게 보낼 메시지",
        "send": "보내기",
        "report": "신고",
        "why": "이 메시지를 신고하는 이유는 무엇인가요?",
        "send_report": "신고 보내기",
        "thanks": "감사합니다. 관리자가 메시지를 살펴보겠습니다.",
        "next": "다음 게임",
        "rematch": "재대결",
        "analysis": "수 분석",
    },
}


def in_first_screen(page, locator) -> bool:
    """Whether `locator` is shown within the screen as it is now (no scrolling)."""
    box = locator.bounding_box()
    size = page.viewport_size
    return (
        box is not None
        and locator.is_visible()
        and box["y"] >= 0
        and box["y"] + box["height"] <= size["height"]
        and box["x"] >= 0
        and box["x"] + box["width"] <= size["width"]
    )


@pytest.mark.parametrize("language", ["en", "ko"])
@pytest.mark.parametrize("viewport", ["phone", "desktop"])
def test_after_a_move_the_chat_works_and_the_next_game_is_in_view(
    browser, live_server, alice, bob, carol, start_game, artifacts, language, viewport
):
    words = WORDS[language]
    here, there = two_games_waiting(start_game, alice, bob, carol)
    chat_services.message_post(game_id=here.id, user=bob, text="hello from bob")
    set_confirm(alice, "off")
    page = signed_in(
        context_for(browser, language=language, viewport=viewport), live_server.url, alice
    )
    page.goto(f"{live_server.url}/games/{here.id}/")
    assert page.locator("html").get_attribute("lang") == language

    play_a_move(page)
    page.locator("#next-game").wait_for(state="visible")
    page.wait_for_function("() => !document.querySelector('#game.sending')")

    # "Next game" is in view where the player is, without scrolling; a touch screen shows no
    # key to press, nor the keyboard's help.
    link = page.locator("#next-game-link")
    assert words["next"] in link.inner_text()
    assert in_first_screen(page, link), link.bounding_box()
    assert link.get_attribute("href") == f"/games/{there.id}/"
    if viewport == "phone":
        assert page.locator("#next-game-link kbd").is_hidden()
        assert page.locator(".keyboard-help").is_hidden()
    else:
        assert page.locator("#next-game-link kbd").is_visible()
        assert page.locator(".keyboard-help").is_visible()
    page.screenshot(path=str(artifacts / f"next-steps-{viewport}-{language}-after-move.png"))

    # The chat, after the move and without a reload: its buttons work.
    chat = page.locator("#chat")
    send = chat.get_by_role("button", name=words["send"], exact=True)
    assert send.is_enabled()
    chat.get_by_label(words["message"]).fill("my move is in")
    send.click()
    chat.locator("#chat-messages .chat-text", has_text="my move is in").wait_for()
    assert chat.get_by_label(words["message"]).input_value() == ""

    # Then a report of bob's message: answered in the report's own box, the keyboard on it.
    bobs = chat.locator(".chat-message", has_text="hello from bob")
    bobs.get_by_text(words["report"], exact=True).click()
    bobs.get_by_label(words["why"]).fill("rude")
    bobs.get_by_role("button", name=words["send_report"]).click()
    answer = bobs.locator(".chat-report-answer")
    answer.wait_for()
    assert answer.inner_text() == words["thanks"]
    assert answer.get_attribute("role") == "status"
    assert page.evaluate("document.activeElement.classList.contains('chat-report-answer')")
    assert in_first_screen(page, answer)
    assert bobs.locator("form").count() == 0  # sent once: nothing to send again
    # Nothing at the top of the page: the answer is where the player is.
    assert page.locator(".content > .messages").count() == 0
    page.screenshot(path=str(artifacts / f"next-steps-{viewport}-{language}-reported.png"))

    # A form the page posts itself (muting the game's chat): its answer in the chat panel, in
    # view with the keyboard on it once the page is back, not atop the page.
    chat.locator(".chat-settings summary").click()
    with page.expect_navigation():
        chat.locator(".chat-settings form").first.locator("button").click()
    answer = page.locator("#chat .form-answer")
    answer.wait_for()
    page.wait_for_function(
        "() => { const box = document.activeElement.getBoundingClientRect();"
        " return document.activeElement.classList.contains('form-answer')"
        " && box.top >= 0 && box.bottom <= window.innerHeight; }"
    )
    assert in_first_screen(page, answer)
    assert page.locator(".content > .messages").count() == 0
    page.screenshot(path=str(artifacts / f"next-steps-{viewport}-{language}-muted.png"))


@pytest.mark.parametrize("language", ["en", "ko"])
@pytest.mark.parametrize("viewport", ["phone", "desktop"])
def test_game_over_offers_rematch_analysis_and_next_game_together(
    browser, live_server, alice, bob, carol, start_game, artifacts, language, viewport
):
    words = WORDS[language]
    finished = play_to_end(start_game(alice, bob))
    first, _ = two_games_waiting(start_game, alice, bob, carol)  # first: due first
    page = signed_in(
        context_for(browser, language=language, viewport=viewport), live_server.url, alice
    )
    page.goto(f"{live_server.url}/games/{finished.id}/")

    together = page.locator(".game-over .game-over-next")
    rematch = together.get_by_role("button", name=words["rematch"], exact=True)
    analysis = together.get_by_role("link", name=words["analysis"])
    onward = together.get_by_role("link", name=words["next"])
    for offer in (rematch, analysis, onward):
        assert offer.is_visible()
    assert analysis.get_attribute("href") == "#analysis"
    assert page.locator("#analysis").count() == 1
    assert onward.get_attribute("href") == f"/games/{first.id}/"
    # Together: within one screen's height of each other, in the game's first screens.
    tops = [offer.bounding_box()["y"] for offer in (rematch, analysis, onward)]
    assert max(tops) - min(tops) < 150, tops
    assert max(tops) < 2 * page.viewport_size["height"]
    page.screenshot(path=str(artifacts / f"next-steps-{viewport}-{language}-game-over.png"))

    # "Skip to the board" goes to the board's heading, which a finished game has too.
    skip = page.locator(".skip-link")
    assert page.locator(skip.get_attribute("href")).count() == 1
    analysis.click()
    page.wait_for_function("() => location.hash === '#analysis'")


@pytest.mark.parametrize("language", ["en", "ko"])
def test_moving_on_by_itself_says_where_the_move_went(
    browser, live_server, alice, bob, carol, start_game, artifacts, language
):
    here, there = two_games_waiting(start_game, alice, bob, carol)
    set_confirm(alice, "off")
    alice.profile.next_game_after_move = True
    alice.profile.save()
    page = signed_in(
        context_for(browser, language=language, viewport="phone"), live_server.url, alice
    )
    page.goto(f"{live_server.url}/games/{here.id}/")
    ply = Game.objects.get(pk=here.pk).ply

    with page.expect_navigation(url=re.compile(rf"/games/{there.id}/\?moved_in={here.id}$")):
        play_a_move(page)

    assert Game.objects.get(pk=here.pk).ply > ply
    notice = page.locator(".moved-in")
    assert notice.is_visible()
    assert in_first_screen(page, notice)
    if language == "ko":
        assert HANGUL.search(notice.inner_text())
    else:
        assert notice.inner_text() == "Your move in alice v bob was sent. This is your next game."
    page.screenshot(path=str(artifacts / f"next-steps-phone-{language}-moved-on.png"))

    with page.expect_navigation(url=f"{live_server.url}/games/{here.id}/"):
        notice.get_by_role("link").click()
    assert page.locator(".moved-in").count() == 0


@pytest.mark.parametrize("language", ["en", "ko"])
def test_on_a_phone_the_smaller_ones(
    browser, live_server, alice, bob, start_game, artifacts, language
):
    """A seat's "Open the seat to the lobby" on one line; the replay bar's controls named in
    words a person reads; "Your game was created." gone once the player has moved; no chat in a
    game against the computer alone."""
    base = live_server.url
    page = signed_in(context_for(browser, language=language, viewport="phone"), base, alice)
    waiting = invite_game(alice, bob)
    page.goto(f"{base}/games/{waiting.id}/")
    open_seat = page.locator(".seats-invited form:not(.seat-invite-form) button")
    one_line = page.evaluate("parseFloat(getComputedStyle(document.body).lineHeight)") * 1.6
    assert open_seat.bounding_box()["height"] < one_line + 20, open_seat.bounding_box()
    page.screenshot(path=str(artifacts / f"next-steps-phone-{language}-seats.png"))

    finished = play_to_end(start_game(alice, bob))
    page.goto(f"{base}/games/{finished.id}/replay/?ply=5")
    controls = page.locator(".replay-controls a.button")
    assert controls.count() >= 4
    for i in range(controls.count()):
        control = controls.nth(i)
        word = control.locator(".control-label")
        assert word.is_visible() and word.inner_text().strip(), control.inner_html()
        box = control.bounding_box()
        assert box["width"] >= 24 and box["height"] >= 24
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    page.screenshot(path=str(artifacts / f"next-steps-phone-{language}-replay.png"))

    # A game against the computer, made from the form: said once, not after a move.
    page.goto(f"{base}/games/new/")
    page.locator("[name=seat2_kind]").select_option("computer:random")
    page.click("#new-game-form button[type=submit]")
    page.wait_for_url(re.compile(r"/games/[0-9a-f-]{36}/$"))
    created = page.locator(".content > .messages")
    assert created.is_visible()
    assert page.locator("#chat").count() == 0
    page.wait_for_selector("#game.can-move")
    set_confirm(alice, "off")
    page.reload()
    ply = int(page.locator("#game").get_attribute("data-ply"))
    play_a_move(page)
    # The computer answered, and the board is the player's again.
    page.wait_for_function(
        "ply => { const g = document.getElementById('game');"
        " return g && Number(g.dataset.ply) >= ply + 2 && g.classList.contains('can-move'); }",
        arg=ply,
        timeout=30_000,
    )
    assert page.locator(".content > .messages").count() == 0
