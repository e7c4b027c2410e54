"""Readers of what a game left behind: its log, the engine's replay of it, its seats, and the
ratings and records of its players."""

from __future__ import annotations

from typing import Any

import azul
from games.models import Game, LogEntry, Seat


def log_of(game: Game) -> list[dict[str, Any]]:
    return list(
        LogEntry.objects.filter(game=game).order_by("number").values_list("data", flat=True)
    )


def replayed(game: Game, entries: list[dict[str, Any]]) -> azul.State:
    """The engine alone, from the first entries of the log."""
    return azul.replay(
        entries, players=game.num_players, variant=game.variant, first_player=game.first_player
    )


def snapshot(game_id: Any) -> tuple[int, int, dict, str]:
    """What must not change when a request is refused: ply, log length, state, status."""
    game = Game.objects.get(pk=game_id)
    return game.ply, LogEntry.objects.filter(game=game).count(), game.state, game.status


def entries_from(game_id: Any, ply: int) -> list[LogEntry]:
    """The game's log entries from number `ply` on."""
    return list(LogEntry.objects.filter(game_id=game_id, number__gte=ply).order_by("number"))


def seats_of(game_id: Any) -> list[Seat]:
    return list(Seat.objects.filter(game_id=game_id).order_by("position"))


def skill(user: Any) -> tuple[float, float]:
    """The user's (mu, sigma), or the initial ones before their first rated game."""
    from ratings.models import Rating

    rating = Rating.objects.filter(user=user).first()
    return (rating.mu, rating.sigma) if rating else (25.0, 25.0 / 3)


def record(user: Any, variant: str = "", players: int = 0) -> tuple[int, int]:
    """(games, wins) of the user's record for one kind of game."""
    from ratings.models import PlayerRecord

    row = PlayerRecord.objects.filter(user=user, variant=variant, num_players=players).first()
    return (row.games, row.wins) if row else (0, 0)


def walk(value: Any):
    """Every (key, value) pair in a JSON document, however deep."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield key, item
            yield from walk(item)
    elif isinstance(value, list):
        for item in value:
            yield from walk(item)


def logs_disagreeing() -> list[str]:
    """What `manage.py check_game_logs` finds wrong with every game (one line per problem):
    run at the end of the browser and worker tests, whose games are played as on the site."""
    from io import StringIO

    from django.core.management import call_command
    from django.core.management.base import CommandError

    problems = StringIO()
    try:
        call_command("check_game_logs", stdout=StringIO(), stderr=problems)
    except CommandError:
        return problems.getvalue().splitlines()
    return []
