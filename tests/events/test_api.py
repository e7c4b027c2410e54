"""The events API: creating an event, entering it until full (it starts), its standings,
crosstable and tables once its games end; every bad input a 4xx that says what is wrong with
nothing written; a hostile second account that can neither act for the organiser nor see a
private event's code; reads public, writes signed in."""

import json

import pytest
from django.test import TestCase
from rest_framework.test import APIClient

from events import services
from events.models import Entry, Event, EventTable
from events.throttles import EventCreateThrottle, EventEntryThrottle
from games.models import Game
from tests.support.play import play_to_end
from tests.support.urls import api_url

pytestmark = pytest.mark.django_db(transaction=False)

SETTINGS = {
    "name": "Winter Swiss",
    "format": "swiss",
    "table_size": 2,
    "max_entrants": 4,
    "rounds": 1,
}


def events_url(*parts, **query):
    return api_url("events", *parts, **query)


def make_event(organiser, **changes):
    values = {**SETTINGS, **changes}
    return services.event_create(organiser=organiser, settings_=services.EventSettings(**values))


def post(client, url, body=None):
    return client.post(url, body if body is not None else {}, format="json")


def refused(response, status: int, code: str | None = None) -> dict:
    assert response.status_code == status, response.content
    body = response.json()
    assert body["detail"], body
    if code is not None:
        assert body["code"] == code, body
    return body


# -- creating -----------------------------------------------------------------------------------


def test_an_organiser_creates_an_event_and_sees_its_code(alice, api_client_for):
    response = post(
        api_client_for(alice),
        events_url(),
        {
            **SETTINGS,
            "description": "Two rounds, for fun.",
            "variant": "gray",
            "days_per_move": 5,
            "rated": False,
            "rating_min": 500,
            "rating_max": 2000,
            "invitation_code": "tiles please",
            "starts_at": None,
        },
    )

    assert response.status_code == 201, response.content
    body = response.json()
    event = Event.objects.get()
    assert body["id"] == event.pk
    assert (body["name"], body["format"], body["table_size"]) == ("Winter Swiss", "swiss", 2)
    assert (body["variant"], body["days_per_move"], body["rated"]) == ("gray", 5, False)
    assert (body["rating_min"], body["rating_max"], body["rounds"]) == (500, 2000, 1)
    assert body["status"] == "registration" and body["current_round"] == 0
    assert body["organiser"] == "alice" and body["is_organiser"] is True
    assert body["private"] is True and body["invitation_code"] == "tiles please"
    assert body["entrants"] == 0 and body["my_entry"] is None
    assert event.invitation_code == "tiles please" and event.organiser == alice


def test_a_start_date_is_taken(alice, api_client_for):
    from django.utils import timezone

    when = (timezone.now() + timezone.timedelta(days=3)).replace(microsecond=0)
    response = post(
        api_client_for(alice), events_url(), {**SETTINGS, "starts_at": when.isoformat()}
    )

    assert response.status_code == 201, response.content
    assert Event.objects.get().starts_at == when


def _over(n: int) -> str:
    return "x" * n


@pytest.mark.parametrize(
    "changes, field",
    [
        ({"name": _over(81)}, "name"),
        ({"name": 7}, "name"),
        ({"name": "   "}, "name"),
        ({"name": "a\x00b"}, None),  # NUL: the parser refuses it before any field
        ({"description": _over(2001)}, "description"),
        ({"format": "ladder"}, "format"),
        ({"table_size": 5}, "table_size"),
        ({"table_size": "2"}, "table_size"),
        ({"table_size": 2.5}, "table_size"),
        ({"variant": "rainbow"}, "variant"),
        ({"days_per_move": 4}, "days_per_move"),
        ({"rated": "yes"}, "rated"),
        ({"max_entrants": 1}, "max_entrants"),
        ({"max_entrants": 10**9}, "max_entrants"),
        ({"max_entrants": True}, "max_entrants"),
        ({"format": "round_robin", "max_entrants": 33, "rounds": None}, "max_entrants"),
        ({"table_size": 4, "max_entrants": 3}, "max_entrants"),
        ({"rating_min": 99999}, "rating_min"),
        ({"rating_min": -1}, "rating_min"),
        ({"rating_min": 1500, "rating_max": 1400}, "rating_min"),
        ({"min_games": 40000}, "min_games"),
        ({"invitation_code": _over(33)}, "invitation_code"),
        ({"invitation_code": "tab\there"}, "invitation_code"),
        ({"starts_at": "2001-01-01T00:00:00Z"}, "starts_at"),
        ({"starts_at": "2126-01-01T00:00:00Z"}, "starts_at"),
        ({"starts_at": "next tuesday"}, "starts_at"),
        ({"starts_at": 12}, "starts_at"),
        ({"rounds": None}, "rounds"),
        ({"rounds": 21}, "rounds"),
        ({"format": "elimination", "table_size": 3, "advance": 3}, "advance"),
        ({"format": "elimination", "advance": None}, "advance"),
    ],
)
def test_bad_settings_are_refused_with_the_field_and_nothing_written(
    alice, api_client_for, changes, field
):
    response = post(api_client_for(alice), events_url(), {**SETTINGS, **changes})

    body = refused(response, 400)
    if field is not None:
        # A type or size is DRF's per-field `errors`; a rule of the settings, the service's
        # `field`; both say the field in the detail.
        assert body.get("field") == field or field in body.get("errors", {}), body
        assert field in body["detail"] or body.get("field") == field, body
    assert not Event.objects.exists()


@pytest.mark.parametrize(
    "raw", ['{"name": "Winter', "[1, 2]", '"a string"', "null", "{}", '{"name": "x"}']
)
def test_malformed_or_incomplete_bodies_are_400(alice, api_client_for, raw):
    response = api_client_for(alice).post(events_url(), raw, content_type="application/json")

    refused(response, 400)
    assert not Event.objects.exists()


def test_a_body_too_large_is_413(alice, api_client_for):
    body = json.dumps({**SETTINGS, "description": "x" * 70_000})
    response = api_client_for(alice).post(events_url(), body, content_type="application/json")

    refused(response, 413)
    assert not Event.objects.exists()


def test_the_organisers_limits_are_429(alice, api_client_for, settings):
    settings.EVENTS_MAX_OPEN = 1
    client = api_client_for(alice)
    assert post(client, events_url(), SETTINGS).status_code == 201

    refused(post(client, events_url(), SETTINGS), 429, "event_limit")
    assert Event.objects.count() == 1


def test_creating_is_throttled_per_player(alice, bob, api_client_for, monkeypatch):
    monkeypatch.setattr(EventCreateThrottle, "THROTTLE_RATES", {"event_create": "2/hour"})
    client = api_client_for(alice)
    bad = {**SETTINGS, "format": "ladder"}
    assert [post(client, events_url(), bad).status_code for _ in range(2)] == [400, 400]

    response = post(client, events_url(), SETTINGS)

    body = refused(response, 429, "throttled")
    assert "events" in body["detail"]
    assert int(response["Retry-After"]) > 0
    korean = client.post(events_url(), SETTINGS, format="json", HTTP_ACCEPT_LANGUAGE="ko")
    assert "대회" in refused(korean, 429, "throttled")["detail"]
    assert not Event.objects.exists()
    # Another player has an allowance of their own.
    assert post(api_client_for(bob), events_url(), SETTINGS).status_code == 201


# -- reading ------------------------------------------------------------------------------------


def test_the_list_is_public_filtered_and_paginated(alice, bob):
    swiss = make_event(alice)
    robin = make_event(bob, format="round_robin", table_size=4, max_entrants=8, rounds=None)
    cancelled = make_event(bob)
    services.event_cancel(event_id=cancelled.pk, organiser=bob)
    anonymous = APIClient()

    def ids(**query):
        response = anonymous.get(events_url(**query))
        assert response.status_code == 200, response.content
        return [row["id"] for row in response.json()["results"]]

    assert ids() == [cancelled.pk, robin.pk, swiss.pk]
    assert ids(status="cancelled") == [cancelled.pk]
    assert ids(format="round_robin") == [robin.pk]
    assert ids(table_size=4) == [robin.pk]
    assert ids(status="registration", table_size=2) == [swiss.pk]
    page = anonymous.get(events_url(page_size=2)).json()
    assert page["count"] == 3 and len(page["results"]) == 2 and page["next"]
    assert ids(page_size=2, page=2) == [swiss.pk]


@pytest.mark.parametrize(
    "query",
    [
        {"status": "open"},
        {"format": "ladder"},
        {"table_size": 5},
        {"table_size": "two"},
        {"page_size": 0},
        {"page_size": 101},
    ],
)
def test_bad_filters_are_400(alice, query):
    make_event(alice)
    refused(APIClient().get(events_url(**query)), 400)


def test_a_page_past_the_end_is_404():
    refused(APIClient().get(events_url(page=9)), 404)


READS = ["", "standings", "crosstable", "tables"]
WRITES = ["register", "withdraw", "cancel", "remove"]


@pytest.mark.parametrize("event_id", ["999999", "abc", "-1", "1e3", "99999999999999999999999"])
@pytest.mark.parametrize("what", READS + WRITES)
def test_an_unknown_or_malformed_id_is_the_events_404(alice, api_client_for, event_id, what):
    client = api_client_for(alice)
    url = events_url(event_id, *([what] if what else []))
    if what in WRITES:
        response = post(client, url, {"username": "bob"} if what == "remove" else {})
    else:
        response = client.get(url)

    refused(response, 404, "event_not_found")


def test_reads_are_public_and_writes_need_signing_in(alice, bob):
    event = make_event(alice)
    services.entry_register(event_id=event.pk, user=bob)
    anonymous = APIClient()

    for what in READS:
        url = events_url(event.pk, *([what] if what else []))
        assert anonymous.get(url).status_code == 200, what
    detail = anonymous.get(events_url(event.pk)).json()
    assert detail["my_entry"] is None and detail["is_organiser"] is False
    assert detail["entrants"] == 1

    refused(post(anonymous, events_url(), SETTINGS), 401)
    for what in WRITES:
        refused(post(anonymous, events_url(event.pk, what), {"username": "bob"}), 401)
    event.refresh_from_db()
    assert event.status == Event.Status.REGISTRATION
    assert list(Entry.objects.values_list("user__username", flat=True)) == ["bob"]
    assert Event.objects.count() == 1


# -- entering, to the end -----------------------------------------------------------------------


def test_registering_until_full_starts_the_event_and_its_results_show(
    alice, players, api_client_for
):
    entrants = players(4)
    event = make_event(alice)
    for user in entrants[:3]:
        response = post(api_client_for(user), events_url(event.pk, "register"))
        assert response.status_code == 200, response.content
        assert response.json()["my_entry"]["withdrawn_at"] is None
        assert response.json()["status"] == "registration"

    with TestCase.captureOnCommitCallbacks(execute=True):
        last = post(api_client_for(entrants[3]), events_url(event.pk, "register"))

    assert last.status_code == 200, last.content
    assert last.json()["entrants"] == 4
    # The start is a task sent once the registration commits.
    started = APIClient().get(events_url(event.pk)).json()
    assert started["status"] == "running" and started["current_round"] == 1
    tables = APIClient().get(events_url(event.pk, "tables")).json()["tables"]
    assert len(tables) == 2
    names = {u.username for u in entrants}
    for table in tables:
        assert table["round"] == 1 and table["status"] == "active" and table["result"] is None
        assert len(table["players"]) == 2 and set(table["players"]) <= names
        seated = EventTable.objects.get(event=event, number=table["number"])
        assert table["game_id"] == str(seated.game_id)

    with TestCase.captureOnCommitCallbacks(execute=True):
        for table in EventTable.objects.filter(event=event):
            play_to_end(table.game_id, seed=table.number)

    anonymous = APIClient()
    assert anonymous.get(events_url(event.pk)).json()["status"] == "finished"
    standings = anonymous.get(events_url(event.pk, "standings")).json()
    assert standings["status"] == "finished"
    rows = standings["rows"]
    assert sorted(r["username"] for r in rows) == sorted(names)
    assert sum(r["points"] for r in rows) == 2  # two 2-player tables, a point each
    assert [r["played"] for r in rows] == [1, 1, 1, 1]
    assert rows[0]["rank"] == 1 and rows[0]["points"] == 1
    assert not any(r["withdrawn"] for r in rows)
    tables = anonymous.get(events_url(event.pk, "tables")).json()["tables"]
    for table in tables:
        game = Game.objects.get(pk=table["game_id"])
        assert table["status"] == "finished"
        assert [seat["username"] for seat in table["result"]] == table["players"]
        assert sorted(seat["placing"] for seat in table["result"]) in ([1, 2], [1, 1])
        assert {seat["score"] for seat in table["result"]} == {
            s.final_score for s in game.seats.all()
        }
        winner = min(table["result"], key=lambda seat: seat["placing"])["username"]
        assert next(r for r in rows if r["username"] == winner)["points"] >= 0.5
    cross = anonymous.get(events_url(event.pk, "crosstable")).json()["rows"]
    assert sorted(r["username"] for r in cross) == sorted(names)
    for table in tables:
        first, second = table["players"]
        row = next(r for r in cross if r["username"] == first)
        (met,) = row["opponents"]
        assert met["opponent"] == second and len(met["meetings"]) == 1


def test_a_player_registers_once_and_not_when_closed(alice, bob, api_client_for):
    event = make_event(alice)
    client = api_client_for(bob)
    assert post(client, events_url(event.pk, "register")).status_code == 200

    refused(post(client, events_url(event.pk, "register")), 409, "already_entered")
    services.event_cancel(event_id=event.pk, organiser=alice)
    refused(
        post(api_client_for(alice), events_url(event.pk, "register")), 409, "registration_closed"
    )
    assert Entry.objects.filter(event=event).count() == 1


@pytest.mark.parametrize(
    "body", [{"code": 5}, {"code": "x" * 33}, {"code": None}, ["code"], "code"]
)
def test_a_bad_registration_body_is_400(alice, bob, api_client_for, body):
    event = make_event(alice)

    refused(post(api_client_for(bob), events_url(event.pk, "register"), body), 400)
    assert not Entry.objects.exists()


def test_withdrawing_before_the_start(alice, bob, api_client_for):
    event = make_event(alice)
    client = api_client_for(bob)
    post(client, events_url(event.pk, "register"))

    response = post(client, events_url(event.pk, "withdraw"))

    assert response.status_code == 200 and response.json()["my_entry"] is None
    assert not Entry.objects.exists()
    refused(post(client, events_url(event.pk, "withdraw")), 409, "not_entered")


def test_entering_is_throttled_per_player(alice, bob, api_client_for, monkeypatch):
    monkeypatch.setattr(EventEntryThrottle, "THROTTLE_RATES", {"event_entry": "2/hour"})
    event = make_event(alice)
    client = api_client_for(bob)
    post(client, events_url(event.pk, "register"))
    post(client, events_url(event.pk, "withdraw"))

    refused(post(client, events_url(event.pk, "register")), 429, "throttled")
    assert not Entry.objects.exists()


# -- the organiser, and a hostile second account ------------------------------------------------


def test_a_private_events_code_is_the_organisers_alone(alice, bob, api_client_for):
    event = make_event(alice, invitation_code="secret-tiles")
    hostile = api_client_for(bob)

    for response in [
        hostile.get(events_url(event.pk)),
        APIClient().get(events_url(event.pk)),
        hostile.get(events_url()),
    ]:
        assert response.status_code == 200
        assert b"secret-tiles" not in response.content
    without = post(hostile, events_url(event.pk, "register"))
    refused(without, 403, "not_eligible")
    assert b"secret-tiles" not in without.content
    detail = hostile.get(events_url(event.pk)).json()
    assert detail["private"] is True and detail["invitation_code"] is None
    refused(
        post(hostile, events_url(event.pk, "register"), {"code": "secret-tile"}),
        403,
        "not_eligible",
    )
    assert not Entry.objects.exists()

    entered = post(hostile, events_url(event.pk, "register"), {"code": "secret-tiles"})

    assert entered.status_code == 200
    assert b"secret-tiles" not in entered.content
    assert api_client_for(alice).get(events_url(event.pk)).json()["invitation_code"] == (
        "secret-tiles"
    )


def test_a_hostile_account_cannot_cancel_remove_or_withdraw_others(
    alice, carol, mallory, api_client_for
):
    event = make_event(alice)
    services.entry_register(event_id=event.pk, user=carol)
    hostile = api_client_for(mallory)

    refused(post(hostile, events_url(event.pk, "cancel")), 403, "not_organiser")
    refused(
        post(hostile, events_url(event.pk, "remove"), {"username": "carol"}), 403, "not_organiser"
    )
    # Withdrawing is the caller's own: it cannot name anyone else.
    refused(post(hostile, events_url(event.pk, "withdraw"), {"username": "carol"}), 409)
    event.refresh_from_db()
    assert event.status == Event.Status.REGISTRATION
    assert list(Entry.objects.values_list("user__username", flat=True)) == ["carol"]


def test_the_organiser_removes_a_player_and_cancels(alice, bob, carol, api_client_for):
    event = make_event(alice)
    services.entry_register(event_id=event.pk, user=bob)
    services.entry_register(event_id=event.pk, user=carol)
    organiser = api_client_for(alice)

    removed = post(organiser, events_url(event.pk, "remove"), {"username": "BOB"})

    assert removed.status_code == 200, removed.content
    assert removed.json()["entrants"] == 1
    refused(post(organiser, events_url(event.pk, "remove"), {"username": "bob"}), 409)
    refused(post(organiser, events_url(event.pk, "remove"), {"username": "nobody"}), 409)
    refused(post(organiser, events_url(event.pk, "remove"), {"username": " carol"}), 409)
    for body in [{}, {"username": 3}, {"username": "x" * 151}, [1]]:
        refused(post(organiser, events_url(event.pk, "remove"), body), 400)
    assert list(Entry.objects.values_list("user__username", flat=True)) == ["carol"]

    cancelled = post(organiser, events_url(event.pk, "cancel"))

    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    refused(post(organiser, events_url(event.pk, "cancel")), 409, "event_conflict")


def test_a_running_event_cannot_be_cancelled_and_a_withdrawal_resigns(
    alice, players, api_client_for
):
    entrants = players(4)
    event = make_event(alice)
    with TestCase.captureOnCommitCallbacks(execute=True):
        for user in entrants:
            services.entry_register(event_id=event.pk, user=user)
    event.refresh_from_db()
    assert event.status == Event.Status.RUNNING

    refused(post(api_client_for(alice), events_url(event.pk, "cancel")), 409, "event_conflict")
    leaving = entrants[0]
    response = post(api_client_for(leaving), events_url(event.pk, "withdraw"))

    assert response.status_code == 200, response.content
    assert response.json()["my_entry"]["withdrawn_at"] is not None
    table = EventTable.objects.get(event=event, players__contains=[leaving.pk])
    seat = table.game.seats.get(user=leaving)
    assert seat.resigned_at is not None
    standings = APIClient().get(events_url(event.pk, "standings")).json()["rows"]
    assert standings[-1]["username"] == leaving.username and standings[-1]["withdrawn"]
