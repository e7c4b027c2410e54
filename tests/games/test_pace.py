"""Who keeps the pace (`selectors.pace`): a player's average time per move and their turns that
ran out over the last 90 days, from games played through the services on a controlled clock,
as the player's page and the lobby show them, in English and Korean."""

from __future__ import annotations

import datetime

import pytest
import time_machine
from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

import azul
from games import selectors, services
from games.models import Game, LogEntry
from games.presenters.pace import duration_text, pace_text
from games.selectors.pace import Pace, players_pace
from tests.support import factories

pytestmark = pytest.mark.django_db

START = datetime.datetime(2027, 3, 10, 12, 0, tzinfo=datetime.UTC)
HOUR = datetime.timedelta(hours=1)


@pytest.fixture
def clock():
    with time_machine.travel(START, tick=False) as traveller:
        yield traveller


def mover(game: Game):
    game = selectors.game_get(game_id=game.id)
    position = game.engine_state().to_move[0]
    return next(s.user for s in game.seat_list if s.position == position)


def play_after(clock, game: Game, hours: float, user=None) -> Game:
    """`hours` pass, then the player to move (who must be `user`, if given) plays their first
    legal move."""
    clock.shift(hours * HOUR)
    game = selectors.game_get(game_id=game.id)
    state = game.engine_state()
    player = mover(game)
    if user is not None:
        assert player == user
    position = next(s.position for s in game.seat_list if s.user_id == player.pk)
    return services.move_submit(
        game_id=game.id,
        user=player,
        move=str(azul.legal_moves(state, position)[0]),
        expected_ply=game.ply,
    )


def time_runs_out(clock, game: Game) -> Game:
    """The turn's deadline passes: the server moves for the player to move."""
    game = selectors.game_get(game_id=game.id)
    clock.move_to(game.turn_deadline + datetime.timedelta(minutes=1))
    played = services.timeouts_play(game_id=game.id, expected_ply=game.ply)
    assert played is not None
    return played


@pytest.fixture
def paced_game(clock, alice, bob):
    """alice and bob's game: the first to move takes 3 h, then 5 h; the other 1 h, then their
    third turn runs out. Returns (slow, quick): (player, with 4 h average), (player, 1 h)."""
    game = factories.start_game(alice, bob, days_per_move=2)
    slow = mover(game)
    quick = bob if slow == alice else alice
    game = play_after(clock, game, 3, slow)
    game = play_after(clock, game, 1, quick)
    game = play_after(clock, game, 5, slow)
    game = play_after(clock, game, 1, quick)
    game = play_after(clock, game, 0, slow)  # at once: 0 h
    assert mover(game) == quick
    time_runs_out(clock, game)
    return slow, quick


def test_the_average_time_per_move_and_the_turns_that_ran_out(paced_game):
    slow, quick = paced_game

    paces = players_pace([slow.pk, quick.pk])

    # (3 + 5 + 0) / 3 hours; the server's move at bob's deadline is not timed but counted.
    assert paces[slow.pk] == Pace(moves=3, average_seconds=8 * 3600 / 3, timeouts=0)
    assert paces[quick.pk] == Pace(moves=2, average_seconds=3600, timeouts=1)
    assert pace_text(paces[slow.pk]) == "Moves in 3 h on average · 0 turns ran out (90 days)"
    assert pace_text(paces[quick.pk]) == "Moves in 1 h on average · 1 turn ran out (90 days)"


def test_moves_older_than_90_days_are_left_out(paced_game, clock):
    slow, _quick = paced_game
    clock.shift(datetime.timedelta(days=91))
    cache.clear()

    assert players_pace([slow.pk])[slow.pk] == Pace()
    assert pace_text(Pace()) == "No moves in the last 90 days"


def test_the_computers_moves_for_a_player_taken_over_are_not_timed(clock, alice, bob):
    game = factories.start_game(alice, bob, days_per_move=1)
    first = mover(game)
    other = bob if first == alice else alice
    game = play_after(clock, game, 2, first)
    # The other player's time runs out three times: the computer takes their seat.
    for _ in range(3):
        game = time_runs_out(clock, game)
        if mover(game) == first:
            game = play_after(clock, game, 2, first)
    seat = next(s for s in selectors.game_get(game_id=game.id).seat_list if s.user_id == other.pk)
    assert seat.autoplay
    # The computer moves for them now, some time later: none of it is their time.
    if game.status == Game.Status.ACTIVE and mover(game) == first:
        game = play_after(clock, game, 2, first)
    if game.status == Game.Status.ACTIVE and mover(game) == other:
        clock.shift(HOUR)
        assert services.computer_move_play(game_id=game.id, expected_ply=game.ply) is not None

    pace = players_pace([other.pk])[other.pk]
    assert pace.timeouts == 3
    assert pace.moves == 0
    assert pace.average_seconds is None
    assert players_pace([first.pk])[first.pk].average_seconds == 2 * 3600


def test_durations_in_words():
    assert duration_text(20) == "1 min"
    assert duration_text(45 * 60) == "45 min"
    assert duration_text(3 * 3600 + 600) == "3 h"
    assert duration_text(47 * 3600) == "47 h"
    assert duration_text(3 * 86400) == "3 days"


def test_one_query_for_many_players_and_then_none(paced_game, make_user):
    players = [*paced_game, *(make_user(f"idle{i}") for i in range(5))]
    cache.clear()
    with CaptureQueriesContext(connection) as queries:
        paces = players_pace([p.pk for p in players])
    assert len(queries) == 1
    assert paces[players[-1].pk] == Pace()
    with CaptureQueriesContext(connection) as queries:
        players_pace([p.pk for p in players])
    assert len(queries) == 0


# -- the pages -----------------------------------------------------------------------------------


def test_the_players_page_shows_their_pace(paced_game, client):
    _slow, quick = paced_game
    page = client.get(reverse("accounts:player", args=[quick.username])).content.decode()

    assert (
        'id="stat-pace" class="pace" aria-describedby="pace-help">'
        "Moves in 1 h on average · 1 turn ran out (90 days)<"
    ) in page
    assert 'id="pace-help"' in page


def open_game(creator) -> Game:
    return services.game_create(
        creator=creator,
        num_players=3,
        variant="colored",
        days_per_move=3,
        seats=[services.SeatSpec(kind="open"), services.SeatSpec(kind="computer")],
    )


def test_the_lobby_shows_the_pace_of_each_seated_player(paced_game, client, make_user):
    slow, quick = paced_game
    open_game(quick)
    open_game(make_user("newcomer"))

    page = client.get(reverse("games:lobby")).content.decode()

    assert f"{quick.profile.name}: Moves in 1 h on average · 1 turn ran out (90 days)" in page
    assert "newcomer: No moves in the last 90 days" in page
    # Computers keep no pace.
    assert "Computer: " not in page


def test_the_lobbys_queries_do_not_grow_with_its_players(paced_game, client, make_user):
    def lobby_queries() -> int:
        cache.clear()
        with CaptureQueriesContext(connection) as queries:
            assert client.get(reverse("games:lobby")).status_code == 200
        return len(queries)

    open_game(paced_game[0])
    one = lobby_queries()
    for i in range(4):
        open_game(make_user(f"host{i}"))
    open_game(paced_game[1])
    assert lobby_queries() == one


def test_the_pace_in_korean(paced_game, client_for, make_user):
    _slow, quick = paced_game
    reader = make_user("reader")
    reader.profile.language = "ko"
    reader.profile.save(update_fields=["language"])
    client = client_for(reader)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "ko"

    page = client.get(reverse("accounts:player", args=[quick.username])).content.decode()
    lobby = client.get(reverse("games:lobby")).content.decode()

    assert "Moves in" not in page
    assert "1시간" in page
    assert "90일" in page
    assert "Each player’s pace" not in lobby


def test_on_the_gray_wall_each_player_tiles_from_the_end_of_the_round(clock, alice, bob, carol):
    # Every player tiles at once from the take that ended the round: bob's tiling an hour after
    # alice's took three hours, not one.
    from tests.games.api.test_gray_tiling import first_tiling, play_to_tiling

    users = {0: alice, 1: bob, 2: carol}
    game = play_to_tiling(factories.start_game(alice, bob, carol, variant="gray"), users)
    for position, hours in ((0, 2), (1, 1)):
        clock.shift(hours * HOUR)
        game = selectors.game_get(game_id=game.id)
        game = services.move_submit(
            game_id=game.id,
            user=users[position],
            move=first_tiling(game, position),
            expected_ply=game.ply,
        )

    paces = players_pace([alice.pk, bob.pk])
    # Every take came at the same instant (the clock stands still): 0 s each.
    moves = {
        user.pk: LogEntry.objects.filter(game=game, kind="move", player=position).count()
        for position, user in ((0, alice), (1, bob))
    }
    assert paces[alice.pk].moves == moves[alice.pk]
    assert paces[alice.pk].average_seconds == pytest.approx(2 * 3600 / moves[alice.pk])
    assert paces[bob.pk].average_seconds == pytest.approx(3 * 3600 / moves[bob.pk])
