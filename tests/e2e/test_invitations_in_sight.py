"""Invitations in sight (issue #58), in Chromium, on a phone and a desktop, in English and
Korean: the header's count includes an invitation waiting for an answer (kept true by the
page's script while the page is open), and leads to it, as the home page's "1 invitation to
answer" does; once answered, the count is the games' alone again."""

import pytest

from games.selectors import games_waiting_count
from tests.support.browser import DESKTOP, PHONE, context_for, signed_in
from tests.support.factories import invite_game

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

INVITED_LABEL = {
    "en": "waiting for your move or your answer",
    "ko": "내 수나 답을 기다리는 중",
}


def shown_count(badge) -> str:
    """The number the header's count shows (before the words for screen readers)."""
    return badge.evaluate("node => node.firstChild.textContent").strip()


def waiting_count_asked_again(page) -> None:
    """What the board's script does after a move (static/games/waiting.js asks the API at once
    rather than at its next look, 45 s later)."""
    with page.expect_response(lambda response: "/api/games/waiting/" in response.url):
        page.evaluate("document.dispatchEvent(new Event('azul:game-changed'))")


@pytest.mark.parametrize("language", ["en", "ko"])
@pytest.mark.parametrize("viewport", ["phone", "desktop"])
def test_an_invitation_counts_in_the_header_and_leads_to_its_answer(
    browser, live_server, alice, bob, artifacts, language, viewport
):
    base = live_server.url
    context = context_for(browser, language=language, viewport=viewport)
    page = signed_in(context, base, bob)
    page.goto(base + "/")
    assert page.locator("html").get_attribute("lang") == language
    assert page.locator("#games-waiting").count() == 0
    assert not page.title().startswith("(")

    # Alice invites bob while his page is open: its script shows the invitation in the count.
    invite_game(alice, bob)
    waiting_count_asked_again(page)
    badge = page.locator("#games-waiting")
    badge.wait_for()
    assert shown_count(badge) == "1"
    assert page.title().startswith("(1) ")
    assert badge.get_attribute("href").endswith("/games/#invitations")
    label = badge.locator(".visually-hidden").text_content()
    assert label.strip() == INVITED_LABEL[language]
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.locator(".site-header").screenshot(
        path=str(artifacts / f"invitation-header-{viewport}-{language}.png")
    )

    # The page as the server writes it says the same; the home page's line is a link to it.
    page.goto(base + "/")
    assert badge.get_attribute("href").endswith("/games/#invitations")
    assert badge.locator(".visually-hidden").text_content().strip() == INVITED_LABEL[language]
    assert page.title().startswith("(1) ")
    page.locator(".home-games").screenshot(
        path=str(artifacts / f"invitation-home-{viewport}-{language}.png")
    )
    page.locator("#home-invitations").click()
    page.wait_for_url("**/games/#invitations")
    invitations = page.locator("#invitations")
    assert invitations.is_visible()
    box = invitations.bounding_box()
    assert box is not None and box["y"] < (PHONE if viewport == "phone" else DESKTOP)["height"]

    # Answered: the count is the games' waiting for bob's move alone.
    invitations.locator("button[type=submit]").first.click()  # Accept
    page.wait_for_load_state()
    games = games_waiting_count(user_id=bob.pk)
    if games:
        assert shown_count(badge) == str(games)
        assert badge.locator(".visually-hidden").text_content().strip() != INVITED_LABEL[language]
    else:
        assert badge.count() == 0
    context.close()
