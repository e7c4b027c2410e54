"""Who moves, and when: a player (`move_submit`), the computer for a seat it plays
(`computer_move_play`), and the server for the players whose time ran out (`timeouts_play`).
Each checks under the game's lock that the move is still wanted, then plays through `playing`.

The slow computer levels' lane (`slow_computer_move_play`): whose game the next slow computer
move is played in.

The slow levels (`follow_ups.SLOW_LANES`) think for a second or more a move, each level on a
queue and worker of its own. Their queue used to be first come, first served, so one player
with ten games against three `strong` seats each queued thirty seconds of thinking ahead of
everyone else's next move (`make abuse`: another player's `strong` reply took 12.8 s under such
a flood).

So a message on that queue names no game to play in: it is a place in the lane. Each game that
waits for a slow computer move has sent one (or more: the sweep sends again what waits long),
and the worker that takes a place plays the move of the fairest game waiting at that moment:
the one whose owner (its creator, who asked for the computers) has the fewest games waiting,
then the one that has waited longest. A player with one game waiting is served next, however
many another has queued; the heavy player still gets every place the others leave.

Every game waiting has at least one place in the queue, so none waits for ever: a place taken
for another game is one that game's own place will give back. While a worker thinks for a
game, it holds a PostgreSQL advisory lock on it, so that a second worker takes the next game
rather than thinking the same move again. The lock is the database session's: a worker killed
mid-thought loses it with its connection, and the sweep's place for the game is served at once
(a claim in the cache would outlive the worker). Elsewhere (SQLite, in-process tasks) there is
one thinker, and no lock.
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.db import DatabaseError, IntegrityError, connection, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

import azul
from accounts.models import User
from core.ops import metrics
from games import effects
from games.errors import (
    AlreadyMoved,
    GameConflict,
    GameNotFound,
    NotAPlayer,
    NotYourTurn,
    StaleMove,
)
from games.follow_ups import SLOW_LEVELS
from games.models import Game, LogEntry, Seat
from games.selectors import TIMEOUTS_BEFORE_TAKEOVER, game_ply, parse_game_id
from games.selectors.turns import ComputerTurn, computer_turns_waiting
from games.services.endings import play_out, result_settled
from games.services.playing import (
    computer_choice,
    lock_game,
    play_and_write,
    play_in_memory,
    read_game,
    write_moves,
)

TIMEOUTS_BEFORE_AUTOPLAY = TIMEOUTS_BEFORE_TAKEOVER
"""At a player's third timeout in a game, the computer plays their seat to the end (the number
is the selectors', which tell the moves the computer made for the seat from the log)."""


def move_submit(*, game_id: Any, user: User, move: str, expected_ply: int) -> Game:
    """A player's move, in canonical notation (`F3 blue 2`, `C red floor`, `wall 2 4`).

    `expected_ply` is the ply the player saw; if the game has moved on since, nothing is written
    and `StaleMove` says where it is now (`AlreadyMoved` when the player moved since, from
    another tab or window), except on the gray wall's tiling phase when only other players tiled
    since (`check_moved_since`). Nothing is written unless the move is accepted. Returns the
    game after the move, with its seats.
    """
    pk = parse_game_id(game_id)
    try:
        with transaction.atomic():
            game = lock_game(pk)
            seats, seat = may_move(game, user, expected_ply)
            return play_and_write(game, seats, seat.position, move, player=user)
    except IntegrityError:
        # The unique (game, number) backstop: another writer appended this ply first.
        raise StaleMove(game_ply(game_id=pk) or 0) from None


def may_move(game: Game, user: User, expected_ply: Any) -> tuple[list[Seat], Seat]:
    """The game's seats and the user's seat, if the user may move in `game` now; else the error
    that says why not."""
    seats = list(game.seat_list)
    seat = Seat.of_user(seats, user)
    if seat is None or seat.invitation == Seat.Invitation.PENDING:
        raise NotAPlayer()
    if game.status != Game.Status.ACTIVE:
        if game.status == Game.Status.FINISHED:
            raise GameConflict(
                _("The game is over: no more moves."), current_ply=game.ply, code="game_over"
            )
        raise GameConflict(
            _("This game is %(status)s: no moves yet.")
            % {"status": game.get_status_display().lower()},
            current_ply=game.ply,
            code="game_not_active",
        )
    if seat.resigned_at is not None:
        raise GameConflict(
            _("You resigned this game: the computer plays your seat to the end."),
            current_ply=game.ply,
            code="resigned",
        )
    # Staleness first: a player whose view is out of date learns to reload, rather than being
    # told it is not their turn in a position they have not seen.
    if type(expected_ply) is not int or expected_ply != game.ply:
        check_moved_since(game, seat, expected_ply)
    if seat.position not in game.started_state().to_move:
        raise NotYourTurn()
    return seats, seat


def check_moved_since(game: Game, seat: Seat, expected_ply: Any) -> None:
    """The game moved on from `expected_ply`, the ply the player saw: refuse the move as stale,
    unless what happened since cannot have changed it.

    That is the gray wall's tiling phase, where every player with a choice chooses at the same
    ply and one board's choices change nothing on another's: a player's tiling is not refused
    because someone else tiled first. So the move goes on (to be checked against the position
    as it is now) when every entry since `expected_ply` is another player's tiling (no deal:
    the same round) and the player is still to tile. Anything else is stale; and when the
    player themselves moved since (not the server for them at a timeout, nor the computer for
    a seat it plays), they are told so (from another tab or window of theirs), rather than
    that someone moved first.

    Read only when the ply differs, so the move path's statements stay as they are."""
    if type(expected_ply) is not int or not 0 <= expected_ply < game.ply:
        raise StaleMove(game.ply)
    since = list(
        LogEntry.objects.filter(game=game, number__gte=expected_ply).values_list(
            "kind", "player", "data"
        )
    )
    if not seat.autoplay and any(
        kind == LogEntry.Kind.MOVE and player == seat.position and not data.get("timeout")
        for kind, player, data in since
    ):
        raise AlreadyMoved(game.ply)
    others_tiled = bool(since) and all(
        kind == LogEntry.Kind.MOVE and is_tiling(data) for kind, player, data in since
    )
    state = game.started_state()
    if not (others_tiled and state.phase == "tile" and seat.position in state.to_move):
        raise StaleMove(game.ply)


def is_tiling(data: dict[str, Any]) -> bool:
    """Whether a move's log entry is a gray wall tiling (`wall <line> <column>`)."""
    try:
        return isinstance(azul.parse_move(data.get("move", "")), azul.Place)
    except azul.InvalidNotation:
        return False


def computer_to_play(game: Game) -> tuple[Seat, azul.State] | None:
    """The computer seat to move in an active game, with the game's state; else None."""
    if game.status != Game.Status.ACTIVE:
        return None
    state = game.started_state()
    seat = Seat.computer_to_move(game.seat_list, state.to_move)
    return None if seat is None else (seat, state)


def computer_move_play(*, game_id: Any, expected_ply: int) -> Game | None:
    """Play for the computer seat to move at `expected_ply`; does nothing if the world moved on.

    The computer thinks (up to its time cap) without holding the game's lock: its move depends
    only on the position at `expected_ply`, and is applied under the lock only if the game is
    still there. Returns the game after the move, or None when there was nothing to do (a
    retry, or a task that arrived after the game changed).
    """
    try:
        game = read_game(game_id, lock=False)
    except GameNotFound:
        return None
    to_play = computer_to_play(game) if game.ply == expected_ply else None
    if to_play is None:
        return None
    if result_settled(list(game.seat_list)):
        return _settled_play_out(game_id, expected_ply)
    move = computer_choice(game, *to_play)
    try:
        with transaction.atomic():
            game = lock_game(game_id)
            to_play = computer_to_play(game) if game.ply == expected_ply else None
            if to_play is None:
                return None
            # Same ply, so the same position: the move chosen above still applies.
            seat, _state = to_play
            time_answer_on_commit(game, seat)
            return play_and_write(game, list(game.seat_list), seat.position, move)
    except IntegrityError:
        return None


def time_answer_on_commit(game: Game, seat: Seat) -> None:
    """Once the computer's move commits, record how long the turn was the computer's: since the
    game's last write (which made it so), at its level (`greedy` for a seat it plays for a
    player)."""
    waiting_since, level = game.updated_at, str(seat.bot)

    def committed() -> None:
        waited = (timezone.now() - waiting_since).total_seconds()
        metrics.COMPUTER_ANSWER_SECONDS.labels(level=level).observe(max(waited, 0.0))

    transaction.on_commit(committed)


def _settled_play_out(game_id: Any, expected_ply: int) -> Game | None:
    """A game with no person left to move (a game from before such games were played out at
    once): played out now by the greedy computer, rather than one computer move at a time."""
    try:
        with transaction.atomic():
            game = lock_game(game_id)
            seats = list(game.seat_list)
            if game.status != Game.Status.ACTIVE or game.ply != expected_ply:
                return None
            if not result_settled(seats):
                return None
            before = game.started_state()
            write_moves(game, seats, play_out(game, seats), before)
            return game
    except IntegrityError:
        return None


def timeouts_play(*, game_id: Any, expected_ply: int) -> Game | None:
    """The turn's deadline passed with the game at `expected_ply`: the server moves (as the
    greedy computer player) for each player still to move, marks the moves as timeouts, and
    tells them. At a player's third timeout in the game, the computer plays their seat to the
    end. Does nothing if the game moved on, or its deadline has not passed (a retried or
    duplicated task): so any number of these for one deadline act once. Returns the game after
    the moves, or None."""
    try:
        with transaction.atomic():
            game = lock_game(game_id)
            deadline = game.turn_deadline
            if game.status != Game.Status.ACTIVE or game.ply != expected_ply:
                return None
            if deadline is None or deadline > timezone.now():
                return None
            seats, before = list(game.seat_list), game.started_state()
            absent = [s for s in seats if s.position in before.to_move and not s.played_by_computer]
            if not absent:
                return None  # the computer's own turn: the computer sweep sees to it
            entries: list[LogEntry] = []
            for seat in absent:
                state = game.started_state()
                if game.status != Game.Status.ACTIVE or seat.position not in state.to_move:
                    continue
                move = computer_choice(game, seat, state)
                entries += play_in_memory(game, seats, state, seat.position, move, timeout=True)
                seat.timeouts += 1
                seat.autoplay = seat.timeouts >= TIMEOUTS_BEFORE_AUTOPLAY
                effects.tell_players(
                    kind="timeout",
                    game=game,
                    recipient_ids=Seat.human_player_ids([seat]),
                    context={"move": move, "autoplay": seat.autoplay},
                )
            if game.status == Game.Status.ACTIVE and result_settled(seats):
                # The last person's seat is now the computer's: nobody is left to move, so the
                # game is played out now, as at a resignation, not one computer move at a time.
                entries += play_out(game, seats)
            write_moves(game, seats, entries, before, ("timeouts", "autoplay"))
            return game
    except (GameNotFound, IntegrityError):
        return None


def fairest_first(turns: list[ComputerTurn]) -> list[ComputerTurn]:
    """`turns` in the order the lane serves them: the owners with the fewest games waiting
    first, then the longest waiting."""
    waiting = Counter(turn.owner_id for turn in turns)
    return sorted(turns, key=lambda turn: (waiting[turn.owner_id], turn.waiting_since))


def _lock_key(game_id: Any) -> int:
    """The advisory lock's key for a game: the first 8 bytes of its id, as a signed bigint."""
    return int.from_bytes(uuid.UUID(str(game_id)).bytes[:8], "big", signed=True)


@contextmanager
def thinking_about(game_id: Any) -> Iterator[bool]:
    """Whether this worker may think for the game (no other worker is): held for the block."""
    if connection.vendor != "postgresql":
        yield True
        return
    key = _lock_key(game_id)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s)", [key])
        (mine,) = cursor.fetchone()
    try:
        yield mine
    finally:
        if mine:
            try:
                with connection.cursor() as cursor:
                    cursor.execute("SELECT pg_advisory_unlock(%s)", [key])
            except DatabaseError:
                pass  # the connection is gone, and the lock with it


def slow_computer_move_play(
    *, game_id: Any, expected_ply: int, level: str | None = None
) -> Game | None:
    """Take a place in the lane of the slow computer `level` (None, as sent before there were
    lanes a level: every slow level): play the move of the fairest game waiting now (see the
    module), or of the game that sent this place (`game_id` at `expected_ply`) when the lane
    is empty. Returns the game moved, or None when there was nothing to do (or every game
    waiting is being thought about by another worker)."""
    turns = computer_turns_waiting(SLOW_LEVELS if level is None else {level})
    if not turns:
        return computer_move_play(game_id=game_id, expected_ply=expected_ply)
    for turn in fairest_first(turns):
        with thinking_about(turn.game_id) as mine:
            if mine:
                return computer_move_play(game_id=turn.game_id, expected_ply=turn.ply)
    return None
