"""The events' pages on PostgreSQL, through the Django test client: the list and its filters,
an event's page (rules, standings and crosstable once games end), a new event's form, the
register / withdraw / remove / cancel forms (a hostile second account refused), the panel on a
game's page and on a player's page, and a page in Korean."""

import re
from datetime import timedelta
from html import unescape
from html.parser import HTMLParser

import pytest
from django.urls import reverse
from django.utils import timezone

from events import services
from events.models import Entry, Event, EventTable
from events.throttles import EventEntryThrottle, EventOrganiseThrottle
from tests.support import factories
from tests.support.events import make_event, new_players, play_round, started_event
from tests.support.html import text as words

pytestmark = pytest.mark.django_db(transaction=False)


VOID = {"input", "br", "img", "meta", "link", "hr", "source", "wbr"}


class _Element(HTMLParser):
    """The markup inside the first element with `id` (its tags nested or not)."""

    def __init__(self, element_id: str) -> None:
        super().__init__(convert_charrefs=False)
        self.element_id = element_id
        self.depth = 0
        self.start: int | None = None
        self.end: int | None = None
        self.offsets: list[int] = []

    def handle_starttag(self, tag, attrs):
        if self.end is not None or tag in VOID:
            return
        if self.start is None:
            if dict(attrs).get("id") == self.element_id:
                self.start = self._offset() + len(self.get_starttag_text() or "")
                self.depth = 1
        else:
            self.depth += 1

    def handle_endtag(self, tag):
        if self.start is None or self.end is not None or tag in VOID:
            return
        self.depth -= 1
        if self.depth == 0:
            self.end = self._offset()

    def _offset(self) -> int:
        line, column = self.getpos()
        return self.offsets[line - 1] + column


def element(content, element_id: str) -> str | None:
    """The inner markup of the element `#element_id` of a page, None when there is none."""
    html = content.decode() if isinstance(content, bytes) else content
    parser = _Element(element_id)
    parser.offsets = [0]
    for line in html.splitlines(keepends=True):
        parser.offsets.append(parser.offsets[-1] + len(line))
    parser.feed(html)
    if parser.start is None:
        return None
    return html[parser.start : parser.end]


def hrefs(markup: str) -> list[str]:
    return [unescape(h) for h in re.findall(r'href="([^"]*)"', markup)]


def detail_url(event) -> str:
    return reverse("events:detail", args=[event.pk])


def messages_of(response) -> list[str]:
    return [str(m) for m in response.context["messages"]] if response.context else []


# -- the list --------------------------------------------------------------------------------


def test_the_list_shows_open_events_by_default_and_filters_by_status_format_and_size(
    client, alice, bob, carol
):
    make_event(alice, name="Open Swiss")
    make_event(bob, name="Open Robin", format="round_robin", table_size=4, max_entrants=8)
    running = started_event(carol, new_players(2, "r"), name="Running Swiss")
    assert running.status == Event.Status.RUNNING

    page = client.get(reverse("events:list"))
    assert page.status_code == 200
    text = page.content.decode()
    assert "Open Swiss" in text and "Open Robin" in text and "Running Swiss" not in text
    # Each row: entrants of the most, and "when full" for no start date.
    assert "0/4" in text and "when full" in text

    text = client.get(reverse("events:list"), {"status": "running"}).content.decode()
    assert "Running Swiss" in text and "Open Swiss" not in text

    text = client.get(reverse("events:list"), {"format": "round_robin"}).content.decode()
    assert "Open Robin" in text and "Open Swiss" not in text

    text = client.get(reverse("events:list"), {"players": "2"}).content.decode()
    assert "Open Swiss" in text and "Open Robin" not in text

    # A filter not understood is left out, and the page says so (never a 500).
    page = client.get(reverse("events:list"), {"players": "9", "format": "ladder"})
    assert page.status_code == 200
    assert "Open Swiss" in page.content.decode() and "Open Robin" in page.content.decode()
    assert "not understood" in page.content.decode()


def test_the_list_is_paginated_and_offers_organising_to_the_signed_in(
    client, client_for, alice, bob
):
    from events import web

    for n in range(web.EVENTS_PAGE_SIZE + 1):
        Event.objects.create(
            name=f"Event {n:02d}", format="swiss", table_size=2, max_entrants=4, rounds=1
        )
    first = client.get(reverse("events:list"))
    assert first.context["page"].paginator.num_pages == 2
    assert 'rel="next"' in first.content.decode()
    second = client.get(reverse("events:list"), {"page": "2"})
    assert len(second.context["page"].object_list) == 1
    assert "organise-event" not in first.content.decode()
    assert "organise-event" in client_for(alice).get(reverse("events:list")).content.decode()


def test_the_nav_links_to_the_events(client):
    nav = element(client.get(reverse("home")).content, "nav-menu")
    assert reverse("events:list") in hrefs(nav)
    # The leagues are a link away from the events.
    assert reverse("leagues:list") in hrefs(client.get(reverse("events:list")).content.decode())


# -- an event's page -------------------------------------------------------------------------


def test_an_event_page_shows_its_rules_and_tie_breaks(client, alice):
    event = make_event(
        alice, name="Ranked Swiss", rating_min=1200, rating_max=1800, min_games=3, rounds=4
    )
    page = client.get(detail_url(event))
    assert page.status_code == 200
    text = page.content.decode()
    for fact in ("Swiss", "1200 to 1800", "when full", "Colored wall", "3 days"):
        assert fact in text, fact
    points = words(element(page.content, "event-points"))
    assert "3, 2, 1 and 0" in points and "0.5 each" in points
    tie_breaks = words(element(page.content, "event-tie-breaks"))
    assert tie_breaks.index("opponents") < tie_breaks.index("game scores")
    assert tie_breaks.index("game scores") < tie_breaks.index("direct meetings")
    # A visitor is offered to log in to register, and comes back here.
    actions = element(page.content, "event-actions")
    assert 'id="sign-in-to-register"' in actions
    link = hrefs(actions)[0]
    assert "next=" in link and str(event.pk) in link


def test_standings_crosstable_and_games_once_the_games_end(client, alice):
    entrants = new_players(4, "s")
    event = started_event(alice, entrants)
    # Before any game ends there are no standings, but the round's games are linked.
    page = client.get(detail_url(event)).content
    assert element(page, "event-standings") is None
    game_links = hrefs(element(page, "event-rounds"))
    tables = EventTable.objects.filter(event=event, round=1)
    assert sorted(game_links) == sorted(reverse("games:detail", args=[t.game_id]) for t in tables)

    event = play_round(event)
    event = play_round(event)
    assert event.status == Event.Status.FINISHED
    response = client.get(detail_url(event))
    standings = element(response.content, "event-standings")
    assert "Final standings" in standings
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", standings.split("<tbody>")[1], re.S)
    assert len(rows) == 4
    # Four games, a point each; the ranks as the standings give them.
    lines = response.context["standings"]
    assert sum(line.row.points for line in lines) == 4
    assert [words(re.search(r"<td[^>]*>(.*?)</td>", r).group(1)) for r in rows] == [
        str(line.row.rank) for line in lines
    ]
    assert lines[0].user.username in words(re.search(r"<th[^>]*>(.*?)</th>", rows[0]).group(1))
    # Each pair that met has its scores in the crosstable, the row player's first.
    cross = element(response.content, "event-crosstable").split("<tbody>")[1]
    assert len(re.findall(r"<tr>", cross)) == 4
    filled = [c for c in re.findall(r"<td>(.*?)</td>", cross, re.S) if "–" in c]
    assert len(filled) == 8  # four games, seen from both sides
    assert "place 1" in words(element(response.content, "event-rounds"))


def test_an_unknown_event_is_a_404_page(client, client_for, alice):
    assert client.get("/events/999999/").status_code == 404
    assert client_for(alice).post("/events/999999/register/").status_code == 404
    assert client_for(alice).post("/events/999999/withdraw/").status_code == 404
    assert client_for(alice).post("/events/999999/cancel/", {"confirm": "yes"}).status_code == 404


# -- a new event -----------------------------------------------------------------------------

GOOD = {
    "name": "Spring Swiss",
    "description": "Friendly.",
    "format": "swiss",
    "table_size": "2",
    "variant": "colored",
    "days_per_move": "3",
    "rated": "on",
    "max_entrants": "16",
    "rating_min": "",
    "rating_max": "",
    "min_games": "0",
    "invitation_code": "",
    "starts_at": "",
    "rounds": "4",
    "advance": "",
}


def test_creating_an_event_from_the_form(client_for, alice):
    client = client_for(alice)
    assert client.get(reverse("events:create")).status_code == 200
    starts = (timezone.now() + timedelta(days=2)).strftime("%Y-%m-%dT%H:%M")
    response = client.post(reverse("events:create"), {**GOOD, "starts_at": starts})
    event = Event.objects.get()
    assert response.status_code == 302 and response["Location"] == detail_url(event)
    assert (event.name, event.rounds, event.max_entrants, event.rated) == (
        "Spring Swiss",
        4,
        16,
        True,
    )
    assert event.organiser == alice and event.starts_at is not None
    # Without a start date it starts when full; unticked, it is not rated.
    client.post(reverse("events:create"), {**GOOD, "name": "Casual", "rated": ""})
    casual = Event.objects.get(name="Casual")
    assert casual.starts_at is None and not casual.rated


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"name": " "}, "name"),
        ({"format": "ladder"}, "format"),
        ({"table_size": "5"}, "table_size"),
        ({"max_entrants": "1"}, "max_entrants"),
        ({"max_entrants": "99999"}, "max_entrants"),
        ({"format": "round_robin", "max_entrants": "33"}, "max_entrants"),
        ({"rounds": ""}, "rounds"),
        ({"rounds": "0"}, "rounds"),
        ({"format": "elimination", "advance": "2"}, "advance"),
        ({"rating_min": "1600", "rating_max": "1500"}, "rating_min"),
        ({"rating_min": "-5"}, "rating_min"),
        ({"starts_at": "2020-01-01T10:00"}, "starts_at"),
        ({"starts_at": "tomorrow"}, "starts_at"),
        ({"days_per_move": "4"}, "days_per_move"),
        ({"variant": "purple"}, "variant"),
        ({"invitation_code": "x" * 40}, "invitation_code"),
    ],
)
def test_bad_settings_are_shown_beside_their_field_and_nothing_written(
    client_for, alice, changes, field
):
    response = client_for(alice).post(reverse("events:create"), {**GOOD, **changes})
    assert response.status_code == 400
    assert response.context["form"].errors.get(field), response.context["form"].errors
    # Beside its field on the page.
    shown = element(response.content, f"field-{field}") or element(response.content, "event-form")
    assert 'class="errorlist' in shown
    assert not Event.objects.exists()


def test_an_organisers_limit_is_a_form_error(client_for, alice, settings):
    settings.EVENTS_MAX_OPEN = 1
    client = client_for(alice)
    client.post(reverse("events:create"), GOOD)
    response = client.post(reverse("events:create"), {**GOOD, "name": "Second"})
    assert response.status_code == 429
    assert response.context["form"].non_field_errors()
    assert element(response.content, "event-form-errors")
    assert Event.objects.count() == 1


def test_the_create_page_needs_signing_in(client):
    response = client.get(reverse("events:create"))
    assert response.status_code == 302 and "login" in response["Location"]
    assert client.post(reverse("events:create"), GOOD).status_code == 302
    assert not Event.objects.exists()


# -- registering, withdrawing, removing, cancelling -----------------------------------------


def test_register_and_withdraw_by_plain_forms(client_for, alice, bob):
    event = make_event(alice)
    client = client_for(bob)
    page = client.get(detail_url(event)).content.decode()
    assert re.search(r'<form method="post" action="[^"]+" id="register-form">', page)
    response = client.post(reverse("events:register", args=[event.pk]), follow=True)
    assert response.redirect_chain[-1][0] == detail_url(event)
    assert "You are registered for this event." in messages_of(response)
    assert Entry.objects.filter(event=event, user=bob).exists()
    # Twice is refused, with its status, and nothing more written.
    again = client.post(reverse("events:register", args=[event.pk]))
    assert again.status_code == 409
    assert "already" in " ".join(messages_of(again))
    assert Entry.objects.filter(event=event).count() == 1
    response = client.post(reverse("events:withdraw", args=[event.pk]), follow=True)
    assert "You withdrew from this event." in messages_of(response)
    assert not Entry.objects.filter(event=event).exists()
    assert client.post(reverse("events:withdraw", args=[event.pk])).status_code == 409


def test_a_private_event_asks_for_its_code(client_for, alice, bob):
    event = make_event(alice, invitation_code="s3cret")
    client = client_for(bob)
    assert 'name="code"' in element(client.get(detail_url(event)).content, "register-form")
    wrong = client.post(reverse("events:register", args=[event.pk]), {"code": "guess"})
    assert wrong.status_code == 403
    assert not Entry.objects.filter(event=event).exists()
    right = client.post(reverse("events:register", args=[event.pk]), {"code": "s3cret"})
    assert right.status_code == 302
    assert Entry.objects.filter(event=event, user=bob).exists()


def test_a_full_event_refuses_and_a_running_one_asks_before_a_withdrawal(client_for, alice):
    entrants = new_players(2, "f")
    event = started_event(alice, entrants)
    late = factories.user("late")
    refused = client_for(late).post(reverse("events:register", args=[event.pk]))
    assert refused.status_code == 409
    assert not Entry.objects.filter(event=event, user=late).exists()
    client = client_for(entrants[0])
    unconfirmed = client.post(reverse("events:withdraw", args=[event.pk]))
    assert unconfirmed.status_code == 400
    assert Entry.objects.get(event=event, user=entrants[0]).withdrawn_at is None
    client.post(reverse("events:withdraw", args=[event.pk]), {"confirm": "yes"})
    assert Entry.objects.get(event=event, user=entrants[0]).withdrawn_at is not None


def test_the_organiser_removes_a_player_and_cancels(client_for, alice, bob, carol):
    event = make_event(alice)
    services.entry_register(event_id=event.pk, user=bob)
    services.entry_register(event_id=event.pk, user=carol)
    client = client_for(alice)
    page = client.get(detail_url(event)).content
    assert element(page, "remove-form") is not None and element(page, "cancel-form") is not None
    response = client.post(
        reverse("events:remove", args=[event.pk]), {"username": "BOB"}, follow=True
    )
    assert "BOB is no longer in this event." in messages_of(response)
    assert not Entry.objects.filter(event=event, user=bob).exists()
    nobody = client.post(reverse("events:remove", args=[event.pk]), {"username": "nobody"})
    assert nobody.status_code == 409
    # Cancelling asks for the box to be ticked.
    assert client.post(reverse("events:cancel", args=[event.pk])).status_code == 400
    event.refresh_from_db()
    assert event.status == Event.Status.REGISTRATION
    response = client.post(reverse("events:cancel", args=[event.pk]), {"confirm": "yes"})
    assert response.status_code == 302
    event.refresh_from_db()
    assert event.status == Event.Status.CANCELLED
    again = client.post(reverse("events:cancel", args=[event.pk]), {"confirm": "yes"})
    assert again.status_code == 409


def test_a_hostile_account_cannot_cancel_nor_remove_in_someone_elses_event(
    client_for, alice, bob, mallory
):
    event = make_event(alice)
    services.entry_register(event_id=event.pk, user=bob)
    client = client_for(mallory)
    assert element(client.get(detail_url(event)).content, "organiser-tools") is None
    cancel = client.post(reverse("events:cancel", args=[event.pk]), {"confirm": "yes"})
    assert cancel.status_code == 403
    assert "organiser" in " ".join(messages_of(cancel))
    remove = client.post(reverse("events:remove", args=[event.pk]), {"username": "bob"})
    assert remove.status_code == 403
    event.refresh_from_db()
    assert event.status == Event.Status.REGISTRATION
    assert Entry.objects.filter(event=event, user=bob).exists()
    # A GET on a form's address is refused, and a visitor's POST goes to the sign-in.
    assert client.get(reverse("events:cancel", args=[event.pk])).status_code == 405
    from django.test import Client

    visitor = Client().post(reverse("events:cancel", args=[event.pk]), {"confirm": "yes"})
    assert visitor.status_code == 302 and "login" in visitor["Location"]
    event.refresh_from_db()
    assert event.status == Event.Status.REGISTRATION


def test_registering_and_withdrawing_over_and_over_is_limited(client_for, alice, bob, monkeypatch):
    monkeypatch.setattr(EventEntryThrottle, "THROTTLE_RATES", {"event_entry": "2/hour"})
    event = make_event(alice)
    client = client_for(bob)
    client.post(reverse("events:register", args=[event.pk]))
    client.post(reverse("events:withdraw", args=[event.pk]))
    third = client.post(reverse("events:register", args=[event.pk]))
    assert third.status_code == 429
    assert "try again in" in " ".join(messages_of(third))
    assert not Entry.objects.filter(event=event).exists()


def test_an_organisers_removals_and_cancellations_are_limited(client_for, alice, monkeypatch):
    monkeypatch.setattr(EventOrganiseThrottle, "THROTTLE_RATES", {"event_organise": "1/hour"})
    event = make_event(alice)
    client = client_for(alice)
    client.post(reverse("events:remove", args=[event.pk]), {"username": "nobody"})
    refused = client.post(reverse("events:cancel", args=[event.pk]), {"confirm": "yes"})
    assert refused.status_code == 429
    event.refresh_from_db()
    assert event.status == Event.Status.REGISTRATION


# -- panels ----------------------------------------------------------------------------------


def test_a_games_page_says_which_event_round_and_table_it_is(client_for, alice, start_game, bob):
    entrants = new_players(2, "g")
    event = started_event(alice, entrants, name="Table Cup")
    table = EventTable.objects.get(event=event)
    page = client_for(entrants[0]).get(reverse("games:detail", args=[table.game_id])).content
    panel = element(page, "event-panel")
    assert panel is not None
    assert "Game of Table Cup, round 1, table 1." in words(panel)
    assert hrefs(panel) == [detail_url(event)]
    # A game of no event has none.
    other = start_game(alice, bob)
    page = client_for(alice).get(reverse("games:detail", args=[other.id])).content
    assert element(page, "event-panel") is None


def test_a_players_page_lists_their_events_with_their_place(client, alice):
    entrants = new_players(2, "h")
    event = started_event(alice, entrants, name="Duel Cup", rounds=1)
    event = play_round(event)
    assert event.status == Event.Status.FINISHED
    make_event(alice, name="Next Cup")
    services.entry_register(event_id=Event.objects.get(name="Next Cup").pk, user=entrants[0])
    page = client.get(reverse("accounts:player", args=[entrants[0].username])).content
    text = words(element(page, "player-events"))
    assert "Duel Cup: finished, place" in text and "Next Cup: open for registration" in text
    # Somebody who entered none has no such panel.
    page = client.get(reverse("accounts:player", args=["alice"])).content
    assert element(page, "player-events") is None


# -- Korean ----------------------------------------------------------------------------------


def test_the_event_page_in_korean(client, alice):
    event = make_event(alice)
    page = client.get(detail_url(event), HTTP_ACCEPT_LANGUAGE="ko")
    assert page.status_code == 200
    html = page.content.decode()
    assert '<html lang="ko"' in html
    rules = words(element(html, "event-rules"))
    assert "스위스" in rules and "Points and tie-breaks" not in rules
    listing = client.get(reverse("events:list"), HTTP_ACCEPT_LANGUAGE="ko").content.decode()
    assert "<h1>대회</h1>" in listing and "when full" not in listing


def test_the_calendar_feed_has_the_start_of_each_event_entered(alice, bob, carol):
    from datetime import timedelta

    from django.test import Client
    from django.urls import reverse
    from django.utils import timezone
    from icalendar import Calendar

    from events import services
    from games.services.players import calendar_feed_renew

    starts = (timezone.now() + timedelta(days=3)).replace(microsecond=0)
    entered = services.event_create(
        organiser=alice,
        settings_=services.EventSettings(
            name="Spring Swiss",
            format="swiss",
            table_size=2,
            max_entrants=8,
            rounds=3,
            starts_at=starts,
        ),
    )
    services.event_create(
        organiser=alice,
        settings_=services.EventSettings(
            name="Other Swiss",
            format="swiss",
            table_size=2,
            max_entrants=8,
            rounds=3,
            starts_at=starts,
        ),
    )
    services.entry_register(event_id=entered.pk, user=bob)
    token = calendar_feed_renew(user=bob).token
    feed = Client().get(reverse("games:calendar_feed", args=[token]))
    assert feed.status_code == 200
    (event,) = Calendar.from_ical(feed.content).walk("VEVENT")
    assert "Spring Swiss" in str(event["summary"])
    assert event.decoded("dtend") == starts
    assert str(event["url"]).endswith(f"/events/{entered.pk}/")
    # Withdrawn, it is gone from the feed.
    services.entry_withdraw(event_id=entered.pk, user=bob)
    feed = Client().get(reverse("games:calendar_feed", args=[token]))
    assert Calendar.from_ical(feed.content).walk("VEVENT") == []
