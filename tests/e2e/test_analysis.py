"""In a real browser: a player asks for the analysis of a finished game, sees their costliest
moves, and follows one to its position, where the move the computer preferred is highlighted."""

import pytest
from django.test import override_settings

from analysis.models import Analysis
from tests.support.play import finish

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
    game = finish(start_game(alice, bob))
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
