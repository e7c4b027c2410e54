"""Replay every game's log through the engine and report any game whose cached state disagrees.

Exits non-zero when it finds one. Run it after a deploy that touched the engine, or from a
monitoring job: `python manage.py check_game_logs [--game ID ...]`.
"""

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db.models import Prefetch

import azul
from games.models import Game, LogEntry


def check_game(game: Game, entries: list[LogEntry]) -> list[str]:
    """What is wrong with one game's cache (empty when the log and the cache agree)."""
    problems = []
    numbers = [e.number for e in entries]
    if numbers != list(range(len(entries))):
        problems.append(f"log numbers are not 0..{len(entries) - 1} without gaps")
    if game.ply != len(entries):
        problems.append(f"ply is {game.ply} but the log has {len(entries)} entries")
    if not entries:
        if game.state:
            problems.append("the cached state is set but the log is empty")
        return problems
    try:
        state = azul.replay(
            [e.data for e in entries],
            players=game.num_players,
            variant=game.variant,
            first_player=game.first_player or 0,
        )
    except (ValueError, TypeError) as exc:
        return [*problems, f"the log does not replay: {exc}"]
    if state.to_dict() != game.state:
        problems.append("the cached state differs from the replayed log")
    finished = state.phase == "over"
    if finished != (game.status == Game.Status.FINISHED):
        problems.append(f"status is {game.status} but the replayed game is in phase {state.phase}")
    return problems


class Command(BaseCommand):
    help = "Replay every game's log and report games whose cached state disagrees with it."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--game", action="append", default=[], help="check only this game id")

    def handle(self, *args: Any, **options: Any) -> None:
        games = Game.objects.prefetch_related(
            Prefetch("log_entries", queryset=LogEntry.objects.order_by("number"))
        ).order_by("created_at")
        if options["game"]:
            games = games.filter(pk__in=options["game"])
        checked = bad = 0
        for game in games.iterator(chunk_size=200):
            checked += 1
            problems = check_game(game, list(game.log_entries.all()))
            if problems:
                bad += 1
                for problem in problems:
                    self.stderr.write(f"game {game.id}: {problem}")
        if bad:
            raise CommandError(f"{bad} of {checked} games disagree with their logs.")
        self.stdout.write(f"All {checked} games agree with their logs.")
