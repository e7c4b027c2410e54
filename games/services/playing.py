"""Playing moves: in memory through the engine, then written (the log entries, the seats, the
game), with what follows a move: the result when it ends the game, the players newly to move
told, and the computer asked to play when it is to move. `moves`, `clocks`' timeouts and
`endings` all play through here; the caller holds the game's lock and has checked who may move.

The order is the move path's: lock -> check -> engine -> append -> save -> on commit, follow-ups.
The unique (game, number) constraint on the log is the backstop.
"""

from __future__ import annotations

import logging
import zlib
from collections import Counter

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

import azul
from accounts.models import User
from azul.ai.bots import choose_move
from core.ops import metrics
from core.tasks import send_on_commit
from games import effects, follow_ups
from games.errors import IllegalMoveError, InvalidNotation
from games.models import Game, LogEntry, Seat
from games.presenters.engine_words import engine_error_text
from games.services.clocks import turn_deadline
from games.services.locking import human_player_ids, started_state
from games.services.log import deal_round, next_log_entry
from games.standings import resigned_last

logger = logging.getLogger(__name__)

MOVE_FIELDS = ["state", "ply", "status", "finished_at", "turn_deadline", "updated_at"]
"""The game's fields a move may change, saved after every move."""


def computer_seat_to_move(seats: list[Seat], state: azul.State) -> Seat | None:
    """The seat the computer plays that is to move in `state`, if any (the first, when several
    tile)."""
    to_move = set(state.to_move)
    return next((s for s in seats if s.played_by_computer and s.position in to_move), None)


def computer_choice(game: Game, seat: Seat, state: azul.State, level: str | None = None) -> str:
    """The computer's move for the seat (at its own level, unless `level` says another), seeded
    by game and ply. The searching levels think for a time budget, so a retried task may pick
    another move: harmless, as a move is applied only at the ply it was chosen for."""
    seed = zlib.crc32(f"{game.id}:{game.ply}".encode())
    return str(choose_move(state, seat.position, level or seat.bot, seed=seed))


def ask_computer_to_move(game: Game, seat: Seat) -> None:
    """After commit, ask a worker to play for the computer `seat`, to move at this ply."""
    task, queue, lane = follow_ups.computer_move_task(seat.bot)
    send_on_commit(task, str(game.id), game.ply, *lane, queue=queue)


def tell_newly_to_move(game: Game, seats: list[Seat], before: azul.State | None) -> None:
    """Tell the players who are newly to move (not those the computer plays) that it is their
    turn: the email waits a grace period, and goes only if they have not moved by then."""
    state = game.engine_state()
    if game.status != Game.Status.ACTIVE or state is None:
        return
    newly = set(state.to_move)
    if before is not None and state.round == before.round:
        newly -= set(before.to_move)
    players = human_player_ids([s for s in seats if not s.autoplay], newly)
    effects.tell_players(kind="your_turn", game=game, recipient_ids=players)


def record_result(game: Game, seats: list[Seat], state: azul.State) -> None:
    """The game is over: the seats' final scores and places, where the players who resigned
    come last whatever their scores (`standings.resigned_last`), in memory for `write_moves`
    to save; and the players told."""
    resigned = [s.position for s in seats if s.resigned_at is not None]
    outcome = resigned_last(azul.result(state), resigned)
    for standing in outcome.standings:
        seat = seats[standing.player]
        seat.final_score = standing.score
        seat.place = standing.place
    game.status = Game.Status.FINISHED
    game.finished_at = timezone.now()
    game.turn_deadline = None
    effects.tell_players(kind="game_over", game=game, recipient_ids=human_player_ids(seats))


def play_in_memory(
    game: Game,
    seats: list[Seat],
    state: azul.State,
    position: int,
    move: str,
    *,
    timeout: bool = False,
    player: User | None = None,
) -> list[LogEntry]:
    """Play `move` for `position` on `game` in memory (state, ply, deadline; the result and the
    seats' scores if it ends the game) and return the log entries to append: the move, then the
    next round's deal when one is due. The move is logged as made by `player`, the person who
    holds the seat, when given; else by the server if made at a `timeout` (and marked so in the
    engine's entry), else by the computer. The caller has checked that `position` may move."""
    try:
        parsed = azul.parse_move(move)
    except azul.InvalidNotation as exc:
        raise InvalidNotation(
            _("Not a move %(move)s: %(reason)s")
            % {"move": repr(move), "reason": engine_error_text(exc)}
        ) from None
    try:
        new_state = azul.play(state, parsed, position)
    except azul.IllegalMove as exc:
        raise IllegalMoveError(
            _("Illegal move %(move)s: %(reason)s")
            % {"move": repr(move), "reason": engine_error_text(exc)}
        ) from None

    entry = azul.move_entry(position, parsed)
    if timeout:
        entry["timeout"] = True
    if player is not None:
        mover_kind = LogEntry.Mover.PERSON
    else:
        mover_kind = LogEntry.Mover.SERVER if timeout else LogEntry.Mover.COMPUTER
    entries = [next_log_entry(game, entry, mover_kind=mover_kind, mover=player)]
    if new_state.phase == "deal":
        new_state = deal_round(game, new_state, entries, seats=seats)

    if new_state.phase == "over":
        record_result(game, seats, new_state)
    elif set(new_state.to_move) - set(state.to_move) or new_state.round != state.round:
        # Someone new is to move: their clock starts now.
        game.turn_deadline = turn_deadline(game, seats, new_state.to_move)
    game.set_engine_state(new_state)
    return entries


def write_moves(
    game: Game,
    seats: list[Seat],
    entries: list[LogEntry],
    before: azul.State,
    seat_fields: tuple[str, ...] = (),
) -> None:
    """Write moves played in memory (`play_in_memory`) since `before`: the log entries, the
    seats' changed fields (`seat_fields`, and the result's), the game's; tell whoever is newly
    to move; and once this commits, ask a worker to play for the computer if it is to move."""
    LogEntry.objects.bulk_create(entries)
    count_on_commit(game, seats, entries)
    # The players' counts of games waiting were dropped by lock_game, which every caller took.
    if game.status == Game.Status.FINISHED:
        # Published inside this transaction: what the receivers set on the seats (the ratings)
        # is saved with the result below, and moves exactly when it is recorded.
        seat_fields += ("final_score", "place", *effects.game_finished(game=game, seats=seats))
    if seat_fields:
        Seat.objects.bulk_update(seats, list(seat_fields))
    game.save(update_fields=MOVE_FIELDS)
    tell_newly_to_move(game, seats, before)
    computer = computer_seat_to_move(seats, started_state(game))
    if game.status == Game.Status.ACTIVE and computer is not None:
        ask_computer_to_move(game, computer)


def move_kind(seats: list[Seat], entry: LogEntry) -> str:
    """Who made a move (`metrics.MOVE_KINDS`): the server at a timeout, the computer for a seat
    it plays, or a person."""
    if entry.data.get("timeout"):
        return "timeout"
    computer = entry.player is not None and seats[entry.player].played_by_computer
    return "computer" if computer else "person"


def count_on_commit(game: Game, seats: list[Seat], entries: list[LogEntry]) -> None:
    """Once the moves commit (not before: a rolled-back move was never accepted), count them
    and log them: the game, the ply and who moved, never what was dealt."""
    kinds = Counter(move_kind(seats, e) for e in entries if e.kind == LogEntry.Kind.MOVE)
    if not kinds:
        return
    game_id, ply = str(game.id), game.ply

    def committed() -> None:
        for kind, count in kinds.items():
            metrics.MOVES.labels(kind=kind).inc(count)
        logger.info(
            "game %s: moves accepted, now at ply %s (%s)",
            game_id,
            ply,
            ", ".join(f"{count} {kind}" for kind, count in sorted(kinds.items())),
            extra={"game_id": game_id, "ply": ply, "moves": dict(kinds)},
        )

    transaction.on_commit(committed)


def play_and_write(
    game: Game, seats: list[Seat], position: int, move: str, *, player: User | None = None
) -> Game:
    """Play and write a move, by `player` (else the computer's); the caller holds the game's
    lock and has checked that `position` may move."""
    before = started_state(game)
    entries = play_in_memory(game, seats, before, position, move, player=player)
    write_moves(game, seats, entries, before)
    return game
