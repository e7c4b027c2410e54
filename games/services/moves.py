"""Who moves, and when: a player (`move_submit`), the computer for a seat it plays
(`computer_move_play`), and the server for the players whose time ran out (`timeouts_play`).
Each checks under the game's lock that the move is still wanted, then plays through `playing`.
"""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction
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
from games.models import Game, LogEntry, Seat
from games.selectors import TIMEOUTS_BEFORE_TAKEOVER, game_ply, parse_game_id
from games.services.endings import play_out, result_settled
from games.services.locking import (
    human_player_ids,
    lock_game,
    read_game,
    seat_of_user,
    started_state,
)
from games.services.playing import (
    computer_choice,
    computer_seat_to_move,
    play_and_write,
    play_in_memory,
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
    seat = seat_of_user(seats, user)
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
    if seat.position not in started_state(game).to_move:
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
    state = started_state(game)
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
    state = started_state(game)
    seat = computer_seat_to_move(list(game.seat_list), state)
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
            before = started_state(game)
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
            seats, before = list(game.seat_list), started_state(game)
            absent = [s for s in seats if s.position in before.to_move and not s.played_by_computer]
            if not absent:
                return None  # the computer's own turn: the computer sweep sees to it
            entries: list[LogEntry] = []
            for seat in absent:
                state = started_state(game)
                if game.status != Game.Status.ACTIVE or seat.position not in state.to_move:
                    continue
                move = computer_choice(game, seat, state)
                entries += play_in_memory(game, seats, state, seat.position, move, timeout=True)
                seat.timeouts += 1
                seat.autoplay = seat.timeouts >= TIMEOUTS_BEFORE_AUTOPLAY
                effects.tell_players(
                    kind="timeout",
                    game=game,
                    recipient_ids=human_player_ids([seat]),
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
