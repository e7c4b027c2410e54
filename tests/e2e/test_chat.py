"""The game's chat in Chromium: alice and bob, each in a browser of their own, on the same board;
what one sends shows on the other's page without a reload, as plain text."""

import pytest

from tests.support.browser import board_of

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def test_two_players_chat_live(browser, live_server, contexts, alice, bob, start_game, artifacts):
    game = start_game(alice, bob)
    pages = {u.username: board_of(contexts(), live_server.url, u, game.id) for u in (alice, bob)}
    alice_page, bob_page = pages["alice"], pages["bob"]

    # The panel sits beside the moves, in the board's side column.
    assert bob_page.locator(".game-side #chat-slot #chat").count() == 1

    alice_page.get_by_label("Your message to the other players").fill("<b>good luck</b>")
    alice_page.get_by_role("button", name="Send", exact=True).click()
    alice_page.locator("#chat-messages .chat-text", has_text="<b>good luck</b>").wait_for()
    # By the board's live wait, well before the chat's own 8 s poll.
    bob_page.locator("#chat-messages .chat-text", has_text="<b>good luck</b>").wait_for(
        timeout=4_000
    )
    # Shown as text: no <b> element made from a player's words.
    assert bob_page.locator("#chat-messages b").count() == 0
    # A message that came by script can be reported without a reload.
    arrived = bob_page.locator("#chat-messages .chat-message", has_text="<b>good luck</b>")
    arrived.get_by_text("Report", exact=True).click()
    arrived.get_by_label("Why do you report this message?").fill("rude")
    arrived.get_by_role("button", name="Send the report").click()
    bob_page.get_by_text("Thank you: a moderator will look at the message.").wait_for()

    bob_page.get_by_label("Your message to the other players").fill("you too")
    bob_page.keyboard.press("Tab")
    bob_page.keyboard.press("Enter")  # the Send button, by keyboard
    alice_page.locator("#chat-messages .chat-text", has_text="you too").wait_for(timeout=20_000)
    assert alice_page.locator("#chat-text").input_value() == ""
    bob_page.screenshot(path=str(artifacts / "chat-live.png"), full_page=True)
