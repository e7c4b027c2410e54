"""The short check for lost computer turns (issue #31): a computer turn whose task was lost (a
worker killed, Redis emptied) is sent again once it waited its level's thinking time and a margin
(in a slow lane, the thinking of the games served before it too), not before; each once, however
many checks overlap (`games.sweeps.computer_turns_check`)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from azul import legal_moves
from games import follow_ups, services, sweeps
from games.models import Game, Seat

pytestmark = pytest.mark.django_db

MARGIN = sweeps.COMPUTER_CHECK_MARGIN


@pytest.fixture
def sent(monkeypatch):
    """The tasks the check sends (task, args, queue), instead of to a broker."""
    calls = []

    def send(task, args, countdown=None, queue=None):
        calls.append((task, args, queue))
        return True

    monkeypatch.setattr(sweeps, "send", send)
    return calls


def computer_to_move(player, level: str) -> Game:
    """A game of `player` against one computer at `level`, at the computer's turn, its task never
    sent (outside `django_capture_on_commit_callbacks`, nothing runs on commit): a lost task."""
    game = services.game_create(
        creator=player,
        num_players=2,
        variant="colored",
        days_per_move=3,
        seats=[services.SeatSpec(kind="computer", level=level)],
    )
    game = Game.objects.get(pk=game.pk)
    state = game.engine_state()
    if 0 in state.to_move:
        move = str(legal_moves(state, 0)[0])
        services.move_submit(game_id=game.pk, user=player, move=move, expected_ply=game.ply)
    game = Game.objects.get(pk=game.pk)
    assert game.engine_state().to_move == [1]
    return game


def test_a_lost_quick_turn_is_sent_again_after_the_margin_and_not_before(alice, sent):
    game = computer_to_move(alice, "greedy")  # thinks no time
    assert sweeps.computer_turns_check(game.updated_at + MARGIN - timedelta(seconds=1)) == 0
    assert sent == []
    assert sweeps.computer_turns_check(game.updated_at + MARGIN + timedelta(seconds=1)) == 1
    assert sent == [(follow_ups.COMPUTER_MOVE, [str(game.id), game.ply], None)]


def test_a_slow_levels_thinking_time_comes_first(alice, sent):
    game = computer_to_move(alice, "master")  # thinks four seconds
    thinking = timedelta(seconds=4)
    assert sweeps.computer_turns_check(game.updated_at + MARGIN + timedelta(seconds=3)) == 0
    assert sweeps.computer_turns_check(game.updated_at + MARGIN + thinking) == 1
    lane = (follow_ups.SLOW_COMPUTER_MOVE, [str(game.id), game.ply, "master"], "master_moves")
    assert sent == [lane]


def test_checks_that_overlap_send_a_turn_once(alice, sent):
    """Once sent again, a turn is remembered: a second check (or one running at the same time)
    sends nothing. Were the memory lost (Redis emptied), it would send the turn twice, which is
    harmless: the task re-checks the game at its ply under its lock, and plays once."""
    game = computer_to_move(alice, "greedy")
    later = game.updated_at + MARGIN + timedelta(seconds=1)
    assert [sweeps.computer_turns_check(later) for _ in range(3)] == [1, 0, 0]
    assert len(sent) == 1


def test_turns_that_do_not_wait_for_the_computer_are_left_alone(alice, bob, carol, sent):
    waiting = computer_to_move(alice, "greedy")
    played = computer_to_move(bob, "greedy")
    services.computer_move_play(game_id=played.id, expected_ply=played.ply)  # done in time
    finished = computer_to_move(carol, "greedy")
    Game.objects.filter(pk=finished.pk).update(status=Game.Status.FINISHED)
    later = max(game.updated_at for game in (waiting, played, finished)) + MARGIN * 2
    assert sweeps.computer_turns_check(later) == 1
    assert [args[0] for _, args, _ in sent] == [str(waiting.id)]


def test_one_players_many_slow_games_get_no_place_before_their_turn_in_the_lane(alice, bob, sent):
    """Alice has three games waiting for `strong`, Bob one: the lane serves Bob's first, then
    Alice's oldest first (`moves.fairest_first`). A game is taken for lost only once the
    thinking of the games before it and its own have passed, with the margin."""
    heavy = [computer_to_move(alice, "strong") for _ in range(3)]
    light = computer_to_move(bob, "strong")
    start = max(game.updated_at for game in [*heavy, light])
    for place, game in enumerate([light, *heavy]):  # Alice's in the order she made them
        since = start - timedelta(seconds=(4 - place) / 10)
        Game.objects.filter(pk=game.pk).update(updated_at=since)
    second = timedelta(seconds=1)  # strong's thinking time

    def sent_games() -> list[str]:
        return [args[0] for _, args, _ in sent]

    # Waited 11.5 s: past one thinking time and the margin, Bob's only.
    assert sweeps.computer_turns_check(start + MARGIN + second * 1.5) == 1
    assert sent_games() == [str(light.id)]
    # Alice's are places 1, 2 and 3 of the lane: two, three, four seconds of thinking.
    assert sweeps.computer_turns_check(start + MARGIN + second * 2.5) == 1
    assert sweeps.computer_turns_check(start + MARGIN + second * 3.5) == 1
    assert sweeps.computer_turns_check(start + MARGIN + second * 4.5) == 1
    assert sent_games() == [str(game.id) for game in [light, *heavy]]
    assert {queue for _, _, queue in sent} == {"slow_moves"}


def test_an_absent_players_autoplayed_turn_is_checked_as_greedy(alice, bob, start_game, sent):
    game = start_game(alice, bob)
    Seat.objects.filter(game=game, position__in=game.engine_state().to_move).update(autoplay=True)
    game.refresh_from_db()
    assert sweeps.computer_turns_check(game.updated_at + MARGIN - timedelta(seconds=1)) == 0
    assert sweeps.computer_turns_check(game.updated_at + MARGIN + timedelta(seconds=1)) == 1
    assert sent == [(follow_ups.COMPUTER_MOVE, [str(game.id), game.ply], None)]


def test_beat_and_make_runs_sweeper_run_the_check_every_ten_seconds(settings, monkeypatch):
    from django.apps import apps

    from core.management.commands import sweep

    schedule = settings.CELERY_BEAT_SCHEDULE["games-computer-turns-check"]
    assert schedule["task"] == sweeps.CHECK_TASK
    assert schedule["schedule"] == sweeps.COMPUTER_CHECK_SECONDS == sweep.QUICK_CHECK_SECONDS
    assert schedule["options"]["expires"] < schedule["schedule"]  # dropped, not piled up
    assert settings.CELERY_TASK_ROUTES[sweeps.CHECK_TASK] == {"queue": "sweeps"}

    # `manage.py sweep --every 60` runs the games' check between two sweeps.
    checks = []
    monkeypatch.setattr(sweep, "QUICK_CHECK_SECONDS", 0.01)
    monkeypatch.setattr(sweeps, "computer_turns_check", lambda: checks.append(1) or 0)
    sweep.Command().wait(0.05, [apps.get_app_config("games")])
    assert len(checks) >= 3
