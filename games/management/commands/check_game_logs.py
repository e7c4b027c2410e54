"""Replay every game's log through the engine and report any game whose cached state or seats
disagree with it, and any seat whose account is not the one that made its moves.

One line per problem, `game <id>: <what is wrong>`, and a non-zero exit when there is one. Run it
after a deploy that touched the engine, or from a monitoring job (the test suite runs it over
games in every state: tests/games/test_check_game_logs.py):
`python manage.py check_game_logs [--game ID ...]`.
"""

from collections import Counter
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db.models import Prefetch

import azul
from games.models import Game, LogEntry, Seat
from games.standings import resigned_last

BOT_LEVELS = set(Seat.BotLevel.values)
# Statuses of a game that has started: every seat filled, a log, a state.
STARTED = (Game.Status.ACTIVE, Game.Status.FINISHED)


def check_game(game: Game, entries: list[LogEntry], seats: list[Seat]) -> list[str]:
    """What is wrong with one game's cache and seats (empty when they agree with the log)."""
    problems = [
        *_check_entries(game, entries),
        *_check_seats(game, entries, seats),
        *_check_movers(game, entries, seats),
    ]
    if game.status not in STARTED:
        if entries or game.state:
            problems.append(f"status is {game.status} but the game has a log or a state")
        return problems
    if not entries:
        return [*problems, f"status is {game.status} but the log is empty"]
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
    if finished and len(seats) == game.num_players:
        problems += _check_result(seats, state)
    return problems


def _check_entries(game: Game, entries: list[LogEntry]) -> list[str]:
    """The log's rows: numbered 0.. without gaps, `ply` long, each row's columns as its data."""
    problems = []
    numbers = [e.number for e in entries]
    if numbers != list(range(len(entries))):
        problems.append(f"log numbers are not 0..{len(entries) - 1} without gaps")
    if game.ply != len(entries):
        problems.append(f"ply is {game.ply} but the log has {len(entries)} entries")
    for entry in entries:
        data = entry.data if isinstance(entry.data, dict) else {}
        if data.get("kind") != entry.kind or data.get("player") != entry.player:
            problems.append(
                f"log entry {entry.number} is a {entry.kind} of player {entry.player} but its"
                f" data is a {data.get('kind')} of player {data.get('player')}"
            )
        elif entry.player is not None and not 0 <= entry.player < game.num_players:
            problems.append(
                f"log entry {entry.number} is a move of player {entry.player}, in a"
                f" {game.num_players}-player game"
            )
    return problems


def _check_seats(game: Game, entries: list[LogEntry], seats: list[Seat]) -> list[str]:
    """The seats: one per player in order, each a computer's or a person's as its kind says, a
    result only once the game is over, and as many timeouts as the log has for it."""
    problems = []
    positions = [s.position for s in seats]
    if positions != list(range(game.num_players)):
        problems.append(
            f"the seats are at positions {positions}, not 0..{game.num_players - 1}"
            f" for its {game.num_players} players"
        )
    timeouts = Counter(
        e.player for e in entries if isinstance(e.data, dict) and e.data.get("timeout")
    )
    for seat in seats:
        where = f"seat {seat.position}"
        if seat.kind == Seat.Kind.COMPUTER:
            if seat.user_id is not None:
                problems.append(f"{where} is a computer's but has player {seat.user_id}")
            if seat.bot_level not in BOT_LEVELS:
                problems.append(f"{where} is a computer's of unknown level {seat.bot_level!r}")
        elif seat.kind != Seat.Kind.HUMAN:
            problems.append(f"{where} is of unknown kind {seat.kind!r}")
        elif game.is_study:
            if seat.user_id is not None:
                problems.append(f"{where} of a study has player {seat.user_id}, not a name")
        elif game.status in STARTED and (
            seat.user_id is None or seat.invitation == Seat.Invitation.PENDING
        ):
            problems.append(f"{where} is a person's but nobody took it in a started game")
        if game.status != Game.Status.FINISHED and (
            seat.final_score is not None or seat.place is not None
        ):
            problems.append(f"{where} has a result but the game is {game.status}")
        if not game.is_study and seat.timeouts != timeouts[seat.position]:
            problems.append(
                f"{where} counts {seat.timeouts} timeouts but the log has {timeouts[seat.position]}"
            )
    return problems


def _check_movers(game: Game, entries: list[LogEntry], seats: list[Seat]) -> list[str]:
    """Who made the moves, where the log says (`LogEntry.mover_kind`; moves written before it
    did are unknown, and skipped): a person's moves only at a person's seat, by the account
    that holds it; the server's moves exactly the timeouts."""
    problems = []
    by_position = {seat.position: seat for seat in seats}
    strangers: dict[int, list[LogEntry]] = {}
    for entry in entries:
        if entry.kind != LogEntry.Kind.MOVE or not entry.mover_kind:
            continue
        seat = by_position.get(entry.player)  # type: ignore[arg-type]
        timeout = isinstance(entry.data, dict) and bool(entry.data.get("timeout"))
        if timeout != (entry.mover_kind == LogEntry.Mover.SERVER):
            problems.append(
                f"log entry {entry.number} is a move by the {entry.mover_kind}, but"
                f" {'' if timeout else 'not '}at a timeout"
            )
        if seat is None or entry.mover_kind != LogEntry.Mover.PERSON:
            continue
        if seat.kind != Seat.Kind.HUMAN:
            problems.append(f"log entry {entry.number} is a person's move at a computer's seat")
        elif not game.is_study and entry.mover_id != seat.user_id:
            strangers.setdefault(seat.position, []).append(entry)
    for position, moves in strangers.items():
        movers = ", ".join(sorted({str(entry.mover_id) for entry in moves}))
        problems.append(
            f"seat {position} is player {by_position[position].user_id}'s but {len(moves)} of"
            f" its moves were made by player {movers} (first: log entry {moves[0].number})"
        )
    return problems


def _check_result(seats: list[Seat], state: azul.State) -> list[str]:
    """A finished game's seats: the engine's scores, and its places with the players who
    resigned last (`standings.resigned_last`), as `services.playing.record_result` wrote them."""
    resigned = [s.position for s in seats if s.resigned_at is not None]
    outcome = resigned_last(azul.result(state), resigned)
    problems = []
    for standing in outcome.standings:
        seat = seats[standing.player]
        if (seat.final_score, seat.place) != (standing.score, standing.place):
            problems.append(
                f"seat {seat.position} has score {seat.final_score} and place {seat.place}, but"
                f" the replayed log gives {standing.score} and {standing.place}"
            )
    return problems


class Command(BaseCommand):
    help = "Replay every game's log; report games whose cached state or seats disagree with it."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--game", action="append", default=[], help="check only this game id")

    def handle(self, *args: Any, **options: Any) -> None:
        games = Game.objects.prefetch_related(
            Prefetch("log_entries", queryset=LogEntry.objects.order_by("number")),
            Prefetch("seats", queryset=Seat.objects.order_by("position")),
        ).order_by("created_at")
        if options["game"]:
            games = games.filter(pk__in=options["game"])
        checked = bad = 0
        for game in games.iterator(chunk_size=200):
            checked += 1
            problems = check_game(game, list(game.log_entries.all()), list(game.seats.all()))
            if problems:
                bad += 1
                for problem in problems:
                    self.stderr.write(f"game {game.id}: {problem}")
        if bad:
            raise CommandError(f"{bad} of {checked} games disagree with their logs.")
        self.stdout.write(f"All {checked} games agree with their logs.")
