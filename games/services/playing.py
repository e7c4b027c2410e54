"""Playing moves: the game's row read and locked, moves played in memory through the engine,
then written (the log entries, the seats, the game), with what follows a move: the next round's
deal, the result when it ends the game, the players newly to move told, and the computer asked
to play when it is to move. `moves` (a player's, the computer's, the server's at a timeout) and
`endings` play through here; every write to a game starts from `lock_game`.

The order is the move path's: lock -> check -> engine -> append -> save -> on commit, follow-ups.
The unique (game, number) constraint on the log is the backstop. The log is written only here
(and at the start of a game, for its first deal, through `deal_round`).

Deals anyone can check (README, "Checking a game's deals"; the scheme is `azul.fairness`'s): a
game with a seed draws each round's deal from its deal key, the seed mixed with the players'
contributions (`azul.fairness.deal_tiles`), so that anyone can check the deals once the seed is
shown at the end. The seed is read only here (to pick the first player and deal) and shown
only once the game is over (`presenters.deals`); it goes into no message, log line or error. A
game created before that has no seed: its deals are drawn with `random.SystemRandom()` at the
moment a round starts, as they always were.
"""

from __future__ import annotations

import logging
import random
import zlib
from collections import Counter
from functools import partial
from typing import Any

from django.db import transaction
from django.utils import timezone

import azul
from accounts.models import User
from azul import fairness
from azul.ai.bots import choose_move
from core.ops import metrics
from core.tasks import send_on_commit
from games import effects, follow_ups
from games.errors import GameNotFound, IllegalMoveError, InvalidNotation
from games.models import Game, LogEntry, Seat
from games.selectors import games_waiting_forget, parse_game_id
from games.services.clocks import turn_deadline
from games.standings import resigned_last

logger = logging.getLogger(__name__)

MOVE_FIELDS = ["state", "ply", "status", "finished_at", "turn_deadline", "updated_at"]
"""The game's fields a move may change, saved after every move."""


def read_game(game_id: Any, *, lock: bool) -> Game:
    """The game with its seats and their players as `seat_list` (so that the caller can answer
    with the game as it is after the write, without reading it again); with `lock`, its row
    locked until the end of the transaction, and the seats read once the lock is granted.

    Two plain queries rather than `with_seats()`: the creator is one of the seats' players, and
    a prefetch costs a move more than the query it runs."""
    games = Game.objects.select_for_update() if lock else Game.objects.all()
    try:
        game = games.get(pk=parse_game_id(game_id))
    except Game.DoesNotExist:
        raise GameNotFound() from None
    game.seat_list = list(Seat.with_players().filter(game=game))
    creator = next((s.user for s in game.seat_list if s.user_id == game.created_by_id), None)
    if creator is not None:
        game.created_by = creator
    return game


def lock_game(game_id: Any) -> Game:
    """`read_game` with the game's row locked until the end of the transaction: the first
    statement of every write to a game.

    Any write may change whose turn it is or who is invited: the counts of games and
    invitations waiting (every page's header) of the people at the table as it is now, an
    invitee who declines or whose seat is given away included, are read afresh
    (`forget_waiting_counts`; a player newly invited to a seat: `seat_invite`)."""
    game = read_game(game_id, lock=True)
    forget_waiting_counts(game.seat_list)
    return game


def forget_waiting_counts(seats: list[Seat]) -> None:
    """Whose turn it is changed: the players' counts of games waiting for them are read afresh,
    now (for the rest of this transaction) and once it commits (in case a reader stored the
    count from before in between)."""
    players = Seat.human_player_ids(seats)
    games_waiting_forget(players)
    transaction.on_commit(partial(games_waiting_forget, players))


def deal_key(game: Game, seats: list[Seat]) -> bytes | None:
    """The game's deal key, from its seed and its seats' contributions in seat order; None for
    a game without a seed (created before deals could be checked), dealt as before."""
    if not game.deal_seed:
        return None
    contributions = [s.deal_contribution for s in sorted(seats, key=lambda s: s.position)]
    return fairness.deal_key(bytes.fromhex(game.deal_seed), contributions)


def first_player(game: Game, seats: list[Seat]) -> int:
    """The seat (from 0) that starts the game: from the deal key, or at random for a game
    without a seed."""
    key = deal_key(game, seats)
    if key is None:
        return random.SystemRandom().randrange(game.num_players)
    return fairness.first_player(key, game.num_players)


def round_tiles(game: Game, seats: list[Seat], state: azul.State) -> list[list[str]]:
    """The factory fill of the round about to be dealt in `state`: from the deal key, or for a
    game without a seed drawn at random now (nothing about future draws exists before then)."""
    key = deal_key(game, seats)
    if key is None:
        return azul.draw_tiles(state, random.SystemRandom())
    return fairness.deal_tiles(state, key)


def next_log_entry(
    game: Game, entry: dict[str, Any], *, mover_kind: str = "", mover: User | None = None
) -> LogEntry:
    """The log entry `entry` (an engine log dict) as the game's next, numbered with its ply, and
    the game's ply moved past it; the caller writes the entries it collects in one INSERT. A
    move says who made it (`LogEntry.Mover`, and a person's account)."""
    log_entry = LogEntry(
        game=game,
        number=game.ply,
        kind=entry["kind"],
        player=entry.get("player"),
        data=entry,
        mover_kind=mover_kind,
        mover=mover,
    )
    game.ply += 1
    return log_entry


def deal_round(
    game: Game, state: azul.State, entries: list[LogEntry], *, seats: list[Seat]
) -> azul.State:
    """Draw the next round's factory fill now (from the deal key of the game and its `seats`,
    or at random for a game without a seed), add its log entry to `entries`, and return the
    state after it."""
    tiles = round_tiles(game, seats, state)
    entries.append(next_log_entry(game, azul.deal_entry(tiles)))
    return azul.deal(state, tiles=tiles)


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
    players = Seat.human_player_ids([s for s in seats if not s.autoplay], newly)
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
    effects.tell_players(kind="game_over", game=game, recipient_ids=Seat.human_player_ids(seats))


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
    engine's entry), else by the computer. The caller has checked that `position` may move;
    InvalidNotation or IllegalMoveError, carrying the engine's error, when the engine refuses
    the move."""
    try:
        parsed = azul.parse_move(move)
    except azul.InvalidNotation as exc:
        raise InvalidNotation(move=move, engine_error=exc) from None
    try:
        new_state = azul.play(state, parsed, position)
    except azul.IllegalMove as exc:
        raise IllegalMoveError(move=move, engine_error=exc) from None

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
    computer = Seat.computer_to_move(seats, game.started_state().to_move)
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
    before = game.started_state()
    entries = play_in_memory(game, seats, before, position, move, player=player)
    write_moves(game, seats, entries, before)
    return game
