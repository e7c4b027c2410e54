"""The events' writes on PostgreSQL: an event created, entered, started, played round by round
through the games' own move path, and finished with its standings."""

from datetime import timedelta

import pytest
from django.test import TestCase
from django.utils import timezone

from events import selectors, services
from events.errors import (
    AlreadyEntered,
    EventConflict,
    EventFull,
    EventLimit,
    EventNotFound,
    InvalidEvent,
    NotEligible,
    NotEntered,
    NotOrganiser,
    RegistrationClosed,
)
from events.models import Entry, Event, EventTable
from games.models import Game
from tests.support import factories
from tests.support.events import event_settings, new_players, play_round, started_event

pytestmark = pytest.mark.django_db(transaction=False)


def test_a_swiss_of_two_rounds_is_played_to_its_standings(alice):
    entrants = new_players(4)
    event = started_event(alice, entrants)
    assert event.status == Event.Status.RUNNING
    assert event.current_round == 1
    first = list(EventTable.objects.filter(event=event, round=1).select_related("game"))
    assert len(first) == 2
    for table in first:
        game = Game.objects.get(pk=table.game_id)
        assert game.status == Game.Status.ACTIVE
        # The format's first player moves first.
        seats = {s.user_id: s.position for s in game.seats.all()}
        assert seats[table.players[0]] == game.first_player
    event = play_round(event)
    assert event.current_round == 2
    second = list(EventTable.objects.filter(event=event, round=2))
    met = {frozenset(t.players) for t in first}
    assert not met & {frozenset(t.players) for t in second}
    event = play_round(event)
    assert event.status == Event.Status.FINISHED
    lines = selectors.standings_of(event)
    assert sorted(line.user.pk for line in lines) == sorted(u.pk for u in entrants)
    assert sum(line.row.points for line in lines) == 4  # four games, a point each
    assert [line.row.rank for line in lines][0] == 1


def test_a_round_robin_of_four_at_a_table_starts_every_table_at_once(alice):
    entrants = new_players(5)
    event = started_event(alice, entrants, format="round_robin", table_size=4, rounds=None)
    tables = list(EventTable.objects.filter(event=event))
    assert tables and all(t.round == 1 for t in tables)
    event = play_round(event)
    assert event.status == Event.Status.FINISHED
    cross = selectors.crosstable_of(event)
    assert all(len(cross[u.pk]) == 4 for u in entrants)


def test_an_elimination_goes_on_to_its_final(alice):
    entrants = new_players(6)
    event = started_event(
        alice, entrants, format="elimination", table_size=3, advance=1, rounds=None
    )
    assert EventTable.objects.filter(event=event, round=1).count() == 2
    event = play_round(event)
    final = EventTable.objects.get(event=event, round=2)
    assert len(final.players) == 2
    event = play_round(event)
    assert event.status == Event.Status.FINISHED


def test_bad_settings_are_refused_and_nothing_written(alice):
    for changes, field in [
        ({"name": " "}, "name"),
        ({"format": "ladder"}, "format"),
        ({"table_size": 5}, "table_size"),
        ({"max_entrants": 1}, "max_entrants"),
        ({"format": "round_robin", "max_entrants": 33}, "max_entrants"),
        ({"rounds": 0}, "rounds"),
        ({"format": "elimination", "advance": 2}, "advance"),
        ({"rating_min": 1600, "rating_max": 1500}, "rating_min"),
        ({"starts_at": timezone.now() - timedelta(minutes=1)}, "starts_at"),
        ({"days_per_move": 4}, "days_per_move"),
    ]:
        with pytest.raises(InvalidEvent) as caught:
            services.event_create(organiser=alice, settings_=event_settings(**changes))
        assert caught.value.field == field
    assert not Event.objects.exists()


def test_registration_refusals(alice, bob, carol, dave):
    event = services.event_create(
        organiser=alice, settings_=event_settings(max_entrants=2, rating_max=1400)
    )
    services.entry_register(event_id=event.pk, user=bob)
    with pytest.raises(AlreadyEntered):
        services.entry_register(event_id=event.pk, user=bob)
    with pytest.raises(EventNotFound):
        services.entry_register(event_id=10**9, user=bob)
    with pytest.raises(EventNotFound):
        services.entry_register(event_id="x", user=bob)
    private = services.event_create(
        organiser=alice, settings_=event_settings(invitation_code="s3cret")
    )
    with pytest.raises(NotEligible):
        services.entry_register(event_id=private.pk, user=carol, code="guess")
    services.entry_register(event_id=private.pk, user=carol, code="s3cret")
    strong = services.event_create(organiser=alice, settings_=event_settings(rating_min=2000))
    with pytest.raises(NotEligible):
        services.entry_register(event_id=strong.pk, user=dave)
    assert not Entry.objects.filter(event=strong).exists()


def test_a_full_event_and_a_started_one_refuse_entries(alice, bob, carol, dave):
    event = services.event_create(
        organiser=alice,
        settings_=event_settings(max_entrants=2, starts_at=timezone.now() + timedelta(days=1)),
    )
    services.entry_register(event_id=event.pk, user=bob)
    services.entry_register(event_id=event.pk, user=carol)
    with pytest.raises(EventFull):
        services.entry_register(event_id=event.pk, user=dave)
    Event.objects.filter(pk=event.pk).update(starts_at=timezone.now() - timedelta(seconds=1))
    services.event_start(event_id=event.pk)
    with pytest.raises(RegistrationClosed):
        services.entry_register(event_id=event.pk, user=dave)


def test_a_second_account_of_the_same_person_cannot_enter(alice):
    first = factories.user("mallory", email="mallory@example.com")
    second = factories.user("mallory2", email="Mallory+two@example.com")
    event = services.event_create(organiser=alice, settings_=event_settings())
    services.entry_register(event_id=event.pk, user=first)
    with pytest.raises(NotEligible):
        services.entry_register(event_id=event.pk, user=second)


def test_a_farmed_second_account_cannot_enter_beside_its_farmer(alice, carol):
    """Fair play's other signal: a lopsided pair (five games together, all won by one)."""
    farmer = factories.user("farmer", email="farmer@example.com")
    farmed = factories.user("farmed", email="other@example.net")
    for day in range(4):
        factories.finished_game([(farmer, 60, 1), (farmed, 5, 2)], days_ago=day)
    event = services.event_create(organiser=alice, settings_=event_settings())
    services.entry_register(event_id=event.pk, user=farmer)
    # Four games are not yet a signal; a regular they met as often is never one.
    services.entry_register(event_id=event.pk, user=farmed)
    services.entry_withdraw(event_id=event.pk, user=farmed)
    factories.finished_game([(farmer, 60, 1), (farmed, 5, 2)], days_ago=5)
    with pytest.raises(NotEligible):
        services.entry_register(event_id=event.pk, user=farmed)
    for day in range(5):
        factories.finished_game([(farmer, 60, 1 + day % 2), (carol, 50, 2 - day % 2)])
    services.entry_register(event_id=event.pk, user=carol)


def test_withdrawing_before_and_after_the_start(alice):
    entrants = new_players(4)
    event = services.event_create(organiser=alice, settings_=event_settings())
    services.entry_register(event_id=event.pk, user=entrants[0])
    services.entry_withdraw(event_id=event.pk, user=entrants[0])
    assert not Entry.objects.filter(event=event).exists()
    with pytest.raises(NotEntered):
        services.entry_withdraw(event_id=event.pk, user=entrants[0])
    with TestCase.captureOnCommitCallbacks(execute=True):
        for user in entrants:
            services.entry_register(event_id=event.pk, user=user)
    event.refresh_from_db()
    assert event.status == Event.Status.RUNNING
    leaver = entrants[1]
    services.entry_withdraw(event_id=event.pk, user=leaver)
    game = Game.objects.get(event_table__event=event, seats__user=leaver)
    # Their game is resigned, and in a game of two that ends it.
    assert game.status == Game.Status.FINISHED
    assert Entry.objects.get(event=event, user=leaver).withdrawn_at is not None


def test_only_the_organiser_removes_and_cancels(alice, bob, carol):
    event = services.event_create(organiser=alice, settings_=event_settings())
    services.entry_register(event_id=event.pk, user=carol)
    with pytest.raises(NotOrganiser):
        services.entry_remove(event_id=event.pk, organiser=bob, username="carol")
    with pytest.raises(NotOrganiser):
        services.event_cancel(event_id=event.pk, organiser=bob)
    services.entry_remove(event_id=event.pk, organiser=alice, username="carol")
    services.event_cancel(event_id=event.pk, organiser=alice)
    event.refresh_from_db()
    assert event.status == Event.Status.CANCELLED
    with pytest.raises(EventConflict):
        services.event_cancel(event_id=event.pk, organiser=alice)


def test_an_organiser_has_limits(alice, settings):
    settings.EVENTS_MAX_OPEN = 2
    for _ in range(2):
        services.event_create(organiser=alice, settings_=event_settings())
    with pytest.raises(EventLimit):
        services.event_create(organiser=alice, settings_=event_settings())
    assert Event.objects.count() == 2


def test_an_event_starting_with_too_few_is_called_off(alice, bob):
    event = services.event_create(
        organiser=alice, settings_=event_settings(starts_at=timezone.now() + timedelta(hours=1))
    )
    services.entry_register(event_id=event.pk, user=bob)
    Event.objects.filter(pk=event.pk).update(starts_at=timezone.now() - timedelta(seconds=1))
    services.event_start(event_id=event.pk)
    event.refresh_from_db()
    assert event.status == Event.Status.CANCELLED


def test_a_player_who_deletes_their_account_leaves_their_events(alice):
    from azul_site.account_deletion import account_delete
    from tests.support.factories import PASSWORD

    entrants = new_players(4)
    event = started_event(alice, entrants)
    leaver = entrants[2]
    account_delete(user=leaver, password=PASSWORD)
    entry = Entry.objects.get(event=event, user=leaver)
    assert entry.withdrawn_at is not None
    game = Game.objects.get(event_table__event=event, seats__user=leaver)
    assert game.status == Game.Status.FINISHED
    # The organiser's own account going leaves the event to the site.
    account_delete(user=alice, password=PASSWORD)
    event.refresh_from_db()
    assert event.organiser_id is None
