"""A game that runs itself between visits, with a controlled clock: the reminder at 80% of a
turn's time, the server's move at 100%, the computer taking over after the third timeout, and
vacations that stop a player's clocks."""

from __future__ import annotations

import datetime
import threading
from datetime import timedelta

import pytest
import time_machine
from django.core import mail
from django.db import connections
from django.urls import reverse

import azul
from games import selectors, services, sweeps
from games.errors import InvalidAction
from games.models import Game, LogEntry, Seat
from notifications import sweeps as notification_sweeps
from notifications.models import Notification

# The moves' follow-ups (emails, the computer's turns) run once their transaction commits.
pytestmark = pytest.mark.django_db(transaction=True)

START = datetime.datetime(2027, 3, 10, 12, 0, tzinfo=datetime.UTC)
DAY = timedelta(days=1)


@pytest.fixture
def clock():
    with time_machine.travel(START, tick=False) as traveller:
        yield traveller


@pytest.fixture(autouse=True)
def _mail(settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.NOTIFY_GRACE_SECONDS = 0


def one_day_game(alice, bob) -> Game:
    game = services.game_create(
        creator=alice,
        num_players=2,
        variant="colored",
        days_per_move=1,
        seats=[services.SeatSpec(kind="invite", username=bob.username)],
    )
    return services.invitation_respond(game_id=game.id, user=bob, accept=True)


def sweep() -> sweeps.SweepResult:
    """The minute's sweeps, as Celery beat runs them: games' (deadlines, computer turns), then
    notifications' (reminders, mail); what games' found."""
    found = sweeps.sweep()
    notification_sweeps.sweep()
    return found


def seat_to_move(game: Game) -> Seat:
    game = selectors.game_get(game_id=game.id)
    position = game.engine_state().to_move[0]
    return next(s for s in game.seat_list if s.position == position)


def reminders(user) -> list[Notification]:
    return list(Notification.objects.filter(recipient=user, kind="reminder"))


def emails(kind_subject: str, to) -> list:
    return [m for m in mail.outbox if kind_subject in m.subject and m.to == [to.email]]


def play_for(game: Game, seat: Seat) -> Game:
    """The seat's player moves (their first legal move)."""
    state = selectors.game_get(game_id=game.id).engine_state()
    move = str(azul.legal_moves(state, seat.position)[0])
    return services.move_submit(
        game_id=game.id,
        user=seat.user,
        move=move,
        expected_ply=selectors.game_get(game_id=game.id).ply,
    )


def test_a_reminder_at_80_percent_of_the_turn_and_only_once(alice, bob, clock):
    game = one_day_game(alice, bob)
    mover = seat_to_move(game).user
    mail.outbox.clear()

    clock.shift(DAY * 0.79)
    sweep()
    assert reminders(mover) == []

    clock.shift(DAY * 0.02)
    sweep()
    sweep()

    [reminder] = reminders(mover)
    assert reminder.status == "sent" and reminder.ply == selectors.game_get(game_id=game.id).ply
    assert len(emails("Reminder: your move", mover)) == 1
    other = bob if mover == alice else alice
    assert reminders(other) == []


def test_the_server_moves_for_a_player_whose_time_ran_out(alice, bob, clock, client_for):
    game = one_day_game(alice, bob)
    absent = seat_to_move(game)
    ply = selectors.game_get(game_id=game.id).ply

    clock.shift(DAY - timedelta(seconds=1))
    assert sweep().timeouts == 0
    clock.shift(timedelta(seconds=2))
    assert sweep().timeouts == 1

    entry = LogEntry.objects.get(game=game, number=ply)
    assert entry.player == absent.position and entry.data["timeout"] is True
    # The greedy computer player's choice, for that position.
    before = azul.replay(
        [e.data for e in LogEntry.objects.filter(game=game, number__lt=ply).order_by("number")],
        players=2,
        first_player=selectors.game_get(game_id=game.id).first_player,
    )
    assert entry.data["move"] in {str(m) for m in azul.legal_moves(before, absent.position)}
    now = selectors.game_get(game_id=game.id)
    assert Seat.objects.get(pk=absent.pk).timeouts == 1
    assert now.turn_deadline == START + DAY + timedelta(seconds=1) + DAY  # the next turn's
    timeout = Notification.objects.get(recipient=absent.user, kind="timeout")
    assert timeout.status == "sent" and timeout.context["move"] == entry.data["move"]
    # The board and the move list say so.
    page = client_for(absent.user).get(reverse("games:detail", args=[game.id])).content.decode()
    assert "time ran out: the server moved" in page
    api = client_for(absent.user).get(f"/api/games/{game.id}/log/").json()
    assert [e["timeout"] for e in api["entries"] if e["number"] == ply] == [True]
    # A sweep again, or a late duplicate of the task, does nothing more.
    services.timeouts_play(game_id=game.id, expected_ply=ply)
    assert sweep().timeouts == 0
    assert LogEntry.objects.filter(game=game, data__timeout=True).count() == 1


def test_after_three_timeouts_the_computer_plays_the_seat(alice, bob, clock, client_for):
    game = one_day_game(alice, bob)
    absent = seat_to_move(game)
    present = next(s for s in selectors.game_get(game_id=game.id).seat_list if s != absent)

    for timeouts in (1, 2, 3):
        while seat_to_move(game).position != absent.position:
            play_for(game, present)
        clock.shift(DAY + timedelta(minutes=1))
        sweep()
        assert Seat.objects.get(pk=absent.pk).timeouts == timeouts

    seat = Seat.objects.get(pk=absent.pk)
    assert seat.autoplay and seat.user_id == absent.user_id  # still their seat, and result
    # From now on the computer answers for them at once, without waiting for any deadline.
    answered = LogEntry.objects.filter(game=game, player=absent.position).count()
    for _ in range(20):
        if LogEntry.objects.filter(game=game, player=absent.position).count() > answered:
            break
        play_for(game, present)
    else:
        raise AssertionError("the computer never moved for the absent player")
    assert LogEntry.objects.filter(game=game, data__timeout=True).count() == 3
    assert seat_to_move(game).position == present.position
    page = client_for(present.user).get(reverse("games:detail", args=[game.id])).content.decode()
    assert "played by the computer" in page


def test_vacation_moves_the_deadlines_and_silences_reminders(alice, bob, clock, client_for):
    game = one_day_game(alice, bob)
    away = seat_to_move(game)
    other = next(s for s in selectors.game_get(game_id=game.id).seat_list if s != away)
    deadline = selectors.game_get(game_id=game.id).turn_deadline

    clock.shift(timedelta(hours=1))
    services.vacation_start(user=away.user, days=3)

    assert selectors.game_get(game_id=game.id).turn_deadline == deadline + 3 * DAY
    away.user.profile.refresh_from_db()
    assert away.user.profile.vacation_days_left(2027) == 11
    # Past the turn's first 80%, and past its old deadline: nothing reaches them.
    clock.shift(DAY)
    result = sweep()
    assert (result.timeouts, reminders(away.user)) == (0, [])
    # Their opponent sees that they are away.
    page = client_for(other.user).get(reverse("games:detail", args=[game.id])).content.decode()
    assert "on vacation until" in page
    # Back from vacation, the turn has its reminder and its deadline.
    clock.shift(3 * DAY - timedelta(hours=4))
    sweep()
    assert len(reminders(away.user)) == 1
    clock.shift(timedelta(hours=5))
    assert sweep().timeouts == 1


def test_a_turn_that_comes_during_a_vacation_waits_for_its_end(alice, bob, clock):
    game = one_day_game(alice, bob)
    mover = seat_to_move(game)
    away = next(s for s in selectors.game_get(game_id=game.id).seat_list if s != mover)
    services.vacation_start(user=away.user, days=5)

    clock.shift(timedelta(hours=2))
    play_for(game, mover)

    game = selectors.game_get(game_id=game.id)
    if seat_to_move(game).position == away.position:
        assert game.turn_deadline == START + 5 * DAY + DAY


def test_fourteen_vacation_days_a_year_and_one_vacation_at_a_time(alice, clock, client_for):
    services.vacation_start(user=alice, days=10)
    with pytest.raises(InvalidAction, match="on vacation already"):
        services.vacation_start(user=alice, days=1)
    clock.shift(11 * DAY)
    with pytest.raises(InvalidAction, match="4 left"):
        services.vacation_start(user=alice, days=5)
    services.vacation_start(user=alice, days=4)
    clock.shift(5 * DAY)
    with pytest.raises(InvalidAction, match="no vacation days left"):
        services.vacation_start(user=alice, days=1)
    # A new calendar year, new days.
    clock.move_to(datetime.datetime(2028, 1, 2, tzinfo=datetime.UTC))
    assert services.vacation_start(user=alice, days=14).vacation_days_used == 14


def test_the_settings_page_starts_a_vacation_and_explains_a_refusal(alice, client_for, clock):
    client = client_for(alice)

    refused = client.post(reverse("games:vacation"), {"days": "15"})
    assert refused.status_code == 200
    assert "less than or equal to 14" in refused.content.decode()

    started = client.post(reverse("games:vacation"), {"days": "2"}, follow=True)
    assert "your clocks are stopped until" in started.content.decode()
    assert "You are on vacation until" in client.get(reverse("accounts:settings")).content.decode()
    alice.profile.refresh_from_db()
    assert alice.profile.vacation_until == START + 2 * DAY


@pytest.mark.django_db(transaction=True)
def test_five_sweeps_at_once_remind_each_player_once(alice, bob, carol, make_user, clock):
    games = [one_day_game(alice, bob), one_day_game(carol, make_user("dora"))]
    to_remind = {seat_to_move(g).user for g in games}
    mail.outbox.clear()
    clock.shift(DAY * 0.85)
    barrier = threading.Barrier(5)

    def run() -> None:
        try:
            barrier.wait()
            sweep()
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run) for _ in range(5)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    rows = Notification.objects.filter(kind="reminder")
    assert sorted((r.game_id, r.recipient_id, r.status) for r in rows) == sorted(
        (seat_to_move(g).game_id, seat_to_move(g).user_id, "sent") for g in games
    )
    reminded = [m.to for m in mail.outbox if m.subject.startswith("[Azul] Reminder")]
    assert sorted(reminded) == sorted([u.email] for u in to_remind)
