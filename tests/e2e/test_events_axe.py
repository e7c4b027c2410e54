"""axe-core over the events' pages (issue #61): the list, a finished event's page with its
standings and crosstable, the organiser's view of an open event, and the new event's form (empty
and refused), on a desktop in English and a phone in Korean: no critical, serious or moderate
violation, and nothing wider than the phone's screen but the tables' own scrolling boxes."""

import pytest

from events import services
from events.models import Event, EventTable
from tests.e2e.test_axe import MODERATE_IMPACTS, serious_violations
from tests.support import factories
from tests.support.browser import context_for, signed_in
from tests.support.play import play_to_end

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


@pytest.fixture(scope="module")
def axe():
    return pytest.importorskip("axe_playwright_python.sync_playwright").Axe()


def finished_swiss(organiser) -> Event:
    """A Swiss of four players over two rounds, every game played to its end."""
    entrants = [factories.user(f"axe{n}") for n in range(4)]
    event = services.event_create(
        organiser=organiser,
        settings_=services.EventSettings(
            name="Autumn Swiss", format="swiss", table_size=2, max_entrants=4, rounds=2
        ),
    )
    for user in entrants:
        # The last entry fills the event, which starts (tasks run in-process when sent).
        services.entry_register(event_id=event.pk, user=user)
    for number in (1, 2):
        for table in EventTable.objects.filter(event=event, round=number):
            play_to_end(table.game_id, seed=table.number)
    event.refresh_from_db()
    return event


@pytest.mark.parametrize(("viewport", "language"), [("desktop", "en"), ("phone", "ko")])
def test_no_serious_violation_on_the_events_pages(
    browser, axe, live_server, alice, bob, viewport, language
):
    finished = finished_swiss(bob)
    assert finished.status == Event.Status.FINISHED
    open_event = services.event_create(
        organiser=alice,
        settings_=services.EventSettings(
            name="Private Cup",
            format="elimination",
            table_size=3,
            max_entrants=9,
            advance=1,
            invitation_code="secret",
        ),
    )
    services.entry_register(event_id=open_event.pk, user=bob, code="secret")
    page = signed_in(
        context_for(browser, language=language, viewport=viewport), live_server.url, alice
    )
    found: list[str] = []

    def check(state: str, path: str | None = None) -> None:
        if path is not None:
            page.goto(live_server.url + path)
        assert page.locator("html").get_attribute("lang") == language, state
        found.extend(serious_violations(axe, page, state, MODERATE_IMPACTS))
        # Nothing but the tables' boxes scrolls sideways on a phone.
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), state

    check("events, open for registration", "/events/")
    check("events, finished", "/events/?status=finished")
    check("a finished event with its standings", f"/events/{finished.pk}/")
    assert page.locator("#event-standings tbody tr").count() == 4
    assert page.locator("#event-crosstable").count() == 1
    check("an open event, its organiser's tools", f"/events/{open_event.pk}/")
    check("new event", "/events/new/")
    page.fill("#id_name", " ")
    page.fill("#id_max_entrants", "1")
    with page.expect_navigation():
        page.click("#event-form button[type=submit]")
    assert page.locator("#event-form .errorlist").count() >= 1
    check("new event, refused")
    page.context.close()

    assert not found, "\n".join(found)
