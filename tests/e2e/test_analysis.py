"""In a real browser: a player asks for the analysis of a finished game, sees their costliest
moves, and follows one to its position, where the move the computer preferred is highlighted."""

import pytest
from django.conf import settings
from django.test import override_settings

from analysis.models import Analysis
from analysis.selectors import analysis_view
from analysis.services import analysis_request
from games.selectors import game_get
from tests.support.browser import DESKTOP, PHONE, page_for, quick_analysis
from tests.support.play import play_to_end

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def signed_in_page(browser, live_server, client_for, user):
    """A browser page signed in as `user` (the test client's session, handed to the browser)."""
    client = client_for(user)
    client.get("/")
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )
    page = context.new_page()
    page.set_default_timeout(20_000)
    return page


@override_settings(
    ANALYSIS_SECONDS_PER_GAME=3.0,
    ANALYSIS_MIN_SECONDS_PER_MOVE=0.01,
    ANALYSIS_MAX_SECONDS_PER_MOVE=0.05,
)
def test_a_player_asks_for_the_analysis_and_sees_it(
    browser, live_server, start_game, alice, bob, client_for, artifacts
):
    game = play_to_end(start_game(alice, bob))
    page = signed_in_page(browser, live_server, client_for, alice)
    page.goto(f"{live_server.url}/games/{game.id}/")
    page.click("#analysis button[type=submit]")
    page.wait_for_selector("#analysis table.analysis-moves")
    analysis = Analysis.objects.get(pk=game.pk)
    assert analysis.status == Analysis.Status.DONE
    mine = [m for m in analysis.moves if m["position"] == 0]
    rows = page.locator("#analysis details[open] table.analysis-moves tbody tr")
    assert rows.count() == len(mine)
    costly = sorted((m for m in mine if m["loss"] > 0), key=lambda m: -m["loss"])[:3]
    assert page.locator("#analysis details[open] tr.costly").count() == len(costly)
    page.screenshot(path=str(artifacts / "analysis.png"), full_page=True)
    if costly:
        page.locator("#analysis details[open] .analysis-costliest a").first.click()
        page.wait_for_selector(".judged-move")
        # The panel lists the costliest moves in the order they were played.
        first = min(costly, key=lambda m: m["ply"])
        assert page.url.endswith(f"?ply={first['ply']}")
        assert page.locator(".judged-move").get_attribute("data-suggest") == first["best"]
        # The preferred move's tiles and destination are highlighted on the board.
        assert page.locator(".suggested").count() >= 2
        page.screenshot(path=str(artifacts / "analysis-position.png"), full_page=True)
    page.close()


@pytest.mark.parametrize("language", ["en", "ko"])
@pytest.mark.parametrize("viewport", ["phone", "desktop"])
@quick_analysis
def test_the_analysis_fits_the_screen_with_its_loss_column_in_sight(
    browser, live_server, start_game, alice, bob, artifacts, language, viewport
):
    """Issue #58: on a phone (390 px) the moves' table fits the screen, nothing scrolls
    sideways, and every row's loss is in sight; the player reads an average loss per move and
    the share of moves close to the best, not a sum that grows with the game."""
    game = play_to_end(start_game(alice, bob))
    analysis_request(game_id=game.pk, user=alice)  # runs in-process (tasks are eager)
    size = PHONE if viewport == "phone" else DESKTOP
    page = page_for(browser, live_server.url, alice, size, phone=viewport == "phone")
    page.context.add_cookies(
        [{"name": settings.LANGUAGE_COOKIE_NAME, "value": language, "url": live_server.url}]
    )
    page.goto(f"{live_server.url}/games/{game.id}/#analysis")
    table = page.locator("#analysis details[open] table.analysis-moves")
    table.wait_for()
    width = page.evaluate("document.documentElement.clientWidth")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    # No box of the panel scrolls sideways or cuts its content off (but words for screen
    # readers alone): each is as wide as its content.
    clipped = page.evaluate(
        """() => [...document.querySelectorAll('#analysis *:not(.visually-hidden)')]
            .filter((node) => node.scrollWidth > node.clientWidth + 1
                && getComputedStyle(node).overflowX !== 'visible')
            .map((node) => node.outerHTML.slice(0, 80))"""
    )
    assert clipped == []
    losses = table.locator("tbody tr:not(.by-server) td:last-child")
    assert losses.count() > 0
    rights = losses.evaluate_all("cells => cells.map((c) => c.getBoundingClientRect().right)")
    assert max(rights) <= width
    header = table.locator("thead th").last
    assert header.text_content() == ("손실" if language == "ko" else "Loss")

    view = analysis_view(game=game_get(game_id=game.pk), viewer=alice)
    mine = view["players"][0]
    summary = page.locator("#analysis details[open] summary").text_content()
    assert f"({mine['close_to_best_percent']}%)" in summary
    assert f"{mine['close_to_best']}" in summary and "in all" not in summary
    figures = page.locator("#analysis details[open] .analysis-figures").text_content()
    assert str(mine["average_loss"]) in figures
    shot = artifacts / f"analysis-{viewport}-{language}.png"
    page.locator("#analysis").screenshot(path=str(shot))
