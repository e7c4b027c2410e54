"""axe-core over the leagues' pages (issue #61): the list, a league's page with its season's
divisions and standings (as a member, with the leave button, and as a visitor's join button),
and a player's league history, on a desktop in English and a phone in Korean: no critical and
no serious violation, and nothing wider than the phone's screen but the tables' own boxes."""

from datetime import timedelta

import pytest
from django.utils import timezone

from events import leagues
from events.models import League, Season
from tests.e2e.test_axe import serious_violations
from tests.support import factories
from tests.support.browser import context_for, signed_in

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


@pytest.fixture(scope="module")
def axe():
    return pytest.importorskip("axe_playwright_python.sync_playwright").Axe()


@pytest.mark.parametrize(("viewport", "language"), [("desktop", "en"), ("phone", "ko")])
def test_no_serious_violation_on_the_leagues_pages(
    browser, axe, live_server, alice, bob, viewport, language
):
    league = League.objects.create(name="Winter league", slug="winter", division_size=4)
    members = [alice] + [factories.user(f"axe{n}") for n in range(7)]
    for user in members:
        leagues.league_join(slug="winter", user=user)
    first = leagues.season_start(league=league)
    # Its end come with its games still going (the browser tests check every finished game
    # against its log, so none is finished without its moves): the next season forms.
    Season.objects.filter(pk=first.pk).update(ends_at=timezone.now() - timedelta(minutes=1))
    assert leagues.season_rollover(season_id=first.pk) is not None
    page = signed_in(
        context_for(browser, language=language, viewport=viewport), live_server.url, alice
    )
    found: list[str] = []

    def check(state: str, path: str) -> None:
        page.goto(live_server.url + path)
        assert page.locator("html").get_attribute("lang") == language, state
        found.extend(serious_violations(axe, page, state))
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), state

    check("leagues", "/leagues/")
    check("a league, as a member", "/leagues/winter/")
    assert page.locator("#league-divisions table").count() == 2
    assert page.locator("#leave-form").count() == 1
    check("a league history", f"/players/{alice.username}/leagues/")
    assert page.locator("#league-history-table tbody tr").count() == 2
    page.context.close()

    visitor = signed_in(
        context_for(browser, language=language, viewport=viewport), live_server.url, bob
    )
    visitor.goto(live_server.url + "/leagues/winter/")
    assert visitor.locator("#join-form").count() == 1
    found.extend(serious_violations(axe, visitor, "a league, with the join button"))
    visitor.context.close()

    assert not found, "\n".join(found)
