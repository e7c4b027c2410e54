"""Events played end to end as players and the site play them: every move a computer player's
choice submitted through the games' own move path (`games.services.move_submit`), results fixed
by who resigns, a player who never moves timed out by the sweep with the clock moved forward
(time-machine), a round moved on by the sweep when its task was lost; then the standings
against a worked example. (`make bench-events` plays a 64-player Swiss and a 32-player round
robin the same way: scripts/bench_events.py.)"""

from __future__ import annotations

import datetime
from datetime import timedelta
from typing import Any

import pytest
import time_machine
from django.test import TestCase

import azul
from events import selectors, services
from events import sweeps as event_sweeps
from events.models import Event, EventTable
from games import selectors as game_selectors
from games import sweeps as game_sweeps
from games.models import Game, Seat
from games.services import move_submit
from games.services.endings import game_resign
from games.services.moves import TIMEOUTS_BEFORE_AUTOPLAY
from games.services.playing import computer_choice
from tests.support import factories

pytestmark = [pytest.mark.django_db(transaction=False), pytest.mark.slow]

START = datetime.datetime(2027, 5, 3, 9, 0, tzinfo=datetime.UTC)


@pytest.fixture
def clock():
    with time_machine.travel(START, tick=False) as traveller:
        yield traveller


def entrants(count: int) -> dict[str, Any]:
    """Players P1..P<count>, made in that order: with no rating yet they all seed at the
    starting rating, so the formats order them by id, P1 first."""
    return {f"P{n}": factories.user(f"P{n}") for n in range(1, count + 1)}


def full_event(organiser, players: dict[str, Any], **settings_) -> Event:
    event = services.event_create(
        organiser=organiser,
        settings_=services.EventSettings(
            name="Worked example",
            max_entrants=len(players),
            days_per_move=1,
            rated=False,
            **settings_,
        ),
    )
    with TestCase.captureOnCommitCallbacks(execute=True):
        for user in players.values():
            services.entry_register(event_id=event.pk, user=user)
    event.refresh_from_db()
    assert event.status == Event.Status.RUNNING
    return event


def tables(event: Event, players: dict[str, Any], round_: int) -> dict[frozenset[str], Any]:
    """The round's tables, as the sets of their players' names -> their games' ids."""
    name = {u.pk: n for n, u in players.items()}
    return {
        frozenset(name[u] for u in t.players): t.game_id
        for t in EventTable.objects.filter(event=event, round=round_)
    }


def play(
    game_id: Any, *, moves: int | None = None, absent: Any = None, careless: Any = None
) -> Game:
    """The players to move play on, each move the greedy computer player's choice submitted as
    that player through `move_submit` (its follow-ups, such as the computer's moves for a seat it
    plays, run on commit): `moves` moves, or until the game ends or `absent` is to move. The
    `careless` player throws every tile they take on the floor instead, and so scores nothing."""
    made = 0
    while moves is None or made < moves:
        game = game_selectors.game_get(game_id=game_id)
        if game.status != Game.Status.ACTIVE:
            break
        state = game.started_state()
        seat = next(s for s in game.seat_list if s.position == state.to_move[0])
        assert not seat.played_by_computer, "the computer's move was left to nobody"
        if absent is not None and seat.user_id == absent.pk:
            break
        if careless is not None and seat.user_id == careless.pk:
            legal = (str(m) for m in azul.legal_moves(state, seat.position))
            move = next(m for m in legal if m.endswith(" floor"))
        else:
            move = computer_choice(game, seat, state, Seat.BotLevel.GREEDY)
        with TestCase.captureOnCommitCallbacks(execute=True):
            move_submit(game_id=game.id, user=seat.user, move=move, expected_ply=game.ply)
        made += 1
    return game_selectors.game_get(game_id=game_id)


def resign(game_id: Any, *losers: Any, task_lost: bool = False) -> None:
    """`losers` resign in turn, after a few moves; with `task_lost`, what the last resignation
    sends on commit (the event's task among it) is lost."""
    play(game_id, moves=4)
    for number, loser in enumerate(losers, 1):
        with TestCase.captureOnCommitCallbacks(execute=not (task_lost and number == len(losers))):
            game_resign(game_id=game_id, user=loser)


def minute_sweep() -> tuple[game_sweeps.SweepResult, dict[str, int]]:
    """The minute's sweep of games (deadlines) and events (rounds over), as Celery beat sends
    them; what their tasks send runs on commit."""
    with TestCase.captureOnCommitCallbacks(execute=True):
        return game_sweeps.sweep(), event_sweeps.sweep()


def time_out_three_times(clock, game_id: Any, absent: Any, careless: Any) -> Seat:
    """`absent` never moves: the others play until it is their turn, the clock goes past its
    deadline and the sweep moves for them, three times, after which the computer plays their
    seat. Returns their seat then."""
    for _ in range(TIMEOUTS_BEFORE_AUTOPLAY):
        game = play(game_id, absent=absent, careless=careless)
        clock.move_to(game.turn_deadline - timedelta(minutes=1))
        assert minute_sweep()[0].timeouts == 0  # not yet
        clock.move_to(game.turn_deadline + timedelta(minutes=1))
        assert minute_sweep()[0].timeouts == 1
    return Seat.objects.get(game_id=game_id, user=absent)


def standings(event: Event) -> list[tuple[int, str, float, float]]:
    return [
        (line.row.rank, line.user.username, line.row.points, line.row.opponents_points)
        for line in selectors.standings_of(event)
    ]


def test_a_swiss_of_eight_played_through_timeouts_and_a_lost_task(alice, clock):
    """The worked example. Eight players, P1..P8, all at the starting rating, so the standing
    order is points, then id. Who wins each table is fixed: the lower-numbered player, the
    other resigning after a few moves; in round 3, P8 never moves and loses on time (though
    the computer, playing their seat, outscores a P4 who throws every tile away).

    Round 1, the standing order P1..P8 paired in turn: P1>P2, P3>P4, P5>P6, P7>P8.
    Round 2, order P1 P3 P5 P7 (1 point) P2 P4 P6 P8 (0), paired in turn, nobody met before:
      P1>P3, P5>P7, P2>P4, P6>P8. Its task is lost; the sweep moves it on.
    Round 3, order P1 P5 (2) P2 P3 P6 P7 (1) P4 P8 (0), paired in turn, none met before:
      P1>P5, P2>P3, P6>P7, and P4>P8 by P8's three timeouts.

    Points: P1 3; P2 P5 P6 2; P3 P4 P7 1; P8 0.
    Opponents' points, the first tie-break (the points of each opponent met, summed):
      P1 = P2 2 + P3 1 + P5 2 = 5        P5 = P6 2 + P7 1 + P1 3 = 6
      P2 = P1 3 + P4 1 + P3 1 = 5        P6 = P5 2 + P8 0 + P7 1 = 3
      P3 = P4 1 + P1 3 + P2 2 = 6        P7 = P8 0 + P5 2 + P6 2 = 4
      P4 = P3 1 + P2 2 + P8 0 = 3        P8 = P7 1 + P6 2 + P4 1 = 4
    So: P1 (3, 5); P5 (2, 6), P2 (2, 5), P6 (2, 3); P3 (1, 6), P7 (1, 4), P4 (1, 3); P8 (0, 4).
    Nobody is level on both, so the game scores (left to the computer's play) decide nothing."""
    p = entrants(8)
    event = full_event(alice, p, format="swiss", table_size=2, rounds=3)
    rounds = [
        # Each table of the round, and which of its players resigns.
        {("P1", "P2"): "P2", ("P3", "P4"): "P4", ("P5", "P6"): "P6", ("P7", "P8"): "P8"},
        {("P1", "P3"): "P3", ("P5", "P7"): "P7", ("P2", "P4"): "P4", ("P6", "P8"): "P8"},
        {("P1", "P5"): "P5", ("P2", "P3"): "P3", ("P6", "P7"): "P7"},
    ]
    for number, losers in enumerate(rounds, 1):
        seated = tables(event, p, number)
        expected = {frozenset(t) for t in losers} | (
            {frozenset({"P4", "P8"})} if number == 3 else set()
        )
        assert set(seated) == expected, number
        last = list(losers)[-1]
        for table, loser in losers.items():
            lost = number == 2 and table == last
            resign(seated[frozenset(table)], p[loser], task_lost=lost)
        event.refresh_from_db()
        if number == 2:
            # Every table of round 2 is over, but the task that would seat round 3 was lost:
            # the minute's sweep finds the round over and moves it on.
            assert event.current_round == 2
            assert minute_sweep()[1]["rounds_over"] == 1
            event.refresh_from_db()
        assert event.current_round == min(number + 1, 3), number

    # Round 3's last table: P8 times out three times, then the computer plays their seat to
    # the end (the server's and the computer's moves the greedy player's), against a P4 who
    # throws every tile away: P8 wins the game, and loses the table.
    game_id = tables(event, p, 3)[frozenset({"P4", "P8"})]
    seat = time_out_three_times(clock, game_id, p["P8"], careless=p["P4"])
    assert seat.timeouts == TIMEOUTS_BEFORE_AUTOPLAY and seat.autoplay and not seat.resigned_at
    assert play(game_id, careless=p["P4"]).status == Game.Status.FINISHED
    event.refresh_from_db()
    assert event.status == Event.Status.FINISHED

    places = dict(Seat.objects.filter(game_id=game_id).values_list("user__username", "place"))
    assert places == {"P8": 1, "P4": 2}
    [timed_out] = [
        r for r in selectors.table_results(event) if set(r.seats) == {p["P4"].pk, p["P8"].pk}
    ]
    assert timed_out.placing_of(p["P8"].pk) == 2 and timed_out.placing_of(p["P4"].pk) == 1
    assert standings(event) == [
        (1, "P1", 3.0, 5.0),
        (2, "P5", 2.0, 6.0),
        (3, "P2", 2.0, 5.0),
        (4, "P6", 2.0, 3.0),
        (5, "P3", 1.0, 6.0),
        (6, "P7", 1.0, 4.0),
        (7, "P4", 1.0, 3.0),
        (8, "P8", 0.0, 4.0),
    ]
    # The third tie-break, each player's game scores summed, is the games' own.
    finals = {line.user.pk: line.row.game_score for line in selectors.standings_of(event)}
    for user in p.values():
        seats = Seat.objects.filter(game__event_table__event=event, user=user)
        assert finals[user.pk] == sum(s.final_score for s in seats)


def test_a_round_robin_of_five_at_four_a_table_with_a_timeout(alice, clock):
    """The worked example. Five players at tables of four, all at once: the schedule seats each
    at four of five tables and each pair together three times,
      T1 P1 P2 P3 P4,  T2 P3 P1 P2 P5,  T3 P5 P4 P1 P2,  T4 P4 P3 P5 P1,  T5 P2 P5 P4 P3.
    At T1-T3 P1 wins, at T4 P4: the other three resign, sharing places 2-4, (2+1+0)/3 = 1 point
    each to the winner's 3. At T5 P2 and P4 resign, P5 never moves (three timeouts: the computer
    plays on for them) and P3 plays to the end: P3 first (3), P5 second whatever the scores, as
    a timeout counts as a loss only against those who played on (2), P2 and P4 sharing places
    3-4 after those still in it ((1+0)/2 = 0.5 each). (P3 throws every tile away, so the game
    itself places P5 first: the event counts the timeouts as P5's loss all the same.)

    Points: P1 3+3+3+1 = 10; P3 1+1+1+3 = 6; P4 1+1+3+0.5 = 5.5; P5 1+1+1+2 = 5;
    P2 1+1+1+0.5 = 3.5 (30 in all, 6 a table).
    Opponents' points: each pair met three times, so 3 x (30 - own points): P1 60, P3 72,
    P4 73.5, P5 75, P2 79.5."""
    p = entrants(5)
    event = full_event(alice, p, format="round_robin", table_size=4)
    seated = tables(event, p, 1)
    schedule = {
        "T1": ("P1", "P2", "P3", "P4"),
        "T2": ("P3", "P1", "P2", "P5"),
        "T3": ("P5", "P4", "P1", "P2"),
        "T4": ("P4", "P3", "P5", "P1"),
        "T5": ("P2", "P5", "P4", "P3"),
    }
    assert set(seated) == {frozenset(t) for t in schedule.values()}
    game = {name: seated[frozenset(t)] for name, t in schedule.items()}
    for name, winner in (("T1", "P1"), ("T2", "P1"), ("T3", "P1"), ("T4", "P4")):
        resign(game[name], *(p[n] for n in schedule[name] if n != winner))
        assert Game.objects.get(pk=game[name]).status == Game.Status.FINISHED

    # P3 throws every tile away, so P5's seat, the greedy computer's after three timeouts,
    # outscores them: the game places P5 above P3, the event the other way round.
    resign(game["T5"], p["P2"], p["P4"])
    seat = time_out_three_times(clock, game["T5"], p["P5"], careless=p["P3"])
    assert seat.autoplay and seat.timeouts == TIMEOUTS_BEFORE_AUTOPLAY
    assert play(game["T5"], careless=p["P3"]).status == Game.Status.FINISHED
    event.refresh_from_db()
    assert event.status == Event.Status.FINISHED
    places = Seat.objects.filter(game_id=game["T5"]).values_list("user__username", "place")
    assert dict(places) == {"P5": 1, "P3": 2, "P2": 3, "P4": 3}

    assert standings(event) == [
        (1, "P1", 10.0, 60.0),
        (2, "P3", 6.0, 72.0),
        (3, "P4", 5.5, 73.5),
        (4, "P5", 5.0, 75.0),
        (5, "P2", 3.5, 79.5),
    ]
