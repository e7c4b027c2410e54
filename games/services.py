"""Writes for games. Each runs in one transaction that locks the game's row
(`select_for_update`, the seats read once the lock is granted) and changes `updated_at`, which
is the version that views and boards are cached under.

The move path (`move_submit`, and `computer_move_play` for computer seats) is the only way a
log entry is written: lock the game -> check status, seat, `expected_ply` and turn -> apply the
move through the engine -> append the log entries (the move, then the next round's deal when one
is due) and save the game's changed fields -> on commit, enqueue follow-ups
(`games.follow_ups`). The unique (game, number) constraint on the log is the backstop.

Deals are drawn by the server with `random.SystemRandom()` at the moment a round starts; nothing
about future draws exists before then, and no seed is stored anywhere.
"""

from __future__ import annotations

import random
import zlib
from dataclasses import dataclass
from datetime import timedelta
from functools import partial
from typing import Any, Literal

from django.contrib.auth.base_user import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from accounts.models import Profile
from accounts.selectors import player_get
from games import engine, follow_ups
from games.engine.bots import choose_move
from games.errors import (
    GameNotFound,
    IllegalMoveError,
    InvalidAction,
    NotAPlayer,
    NotYourTurn,
    StaleMove,
)
from games.models import DAYS_PER_MOVE_CHOICES, Game, LogEntry, Seat
from games.selectors import game_pk, games_waiting_forget, seats_to_move
from notifications.services import notify_players
from ratings import services as ratings

DAYS_PER_MOVE = tuple(d for d, _ in DAYS_PER_MOVE_CHOICES)
BOT_LEVELS = tuple(Seat.BotLevel.values)

SeatKind = Literal["invite", "open", "computer"]


@dataclass(frozen=True)
class SeatSpec:
    """One seat other than the creator's: invite a named player, leave open, or a computer."""

    kind: SeatKind
    username: str | None = None
    level: str = Seat.BotLevel.RANDOM


# -- helpers -------------------------------------------------------------------------------------


def _read_game(game_id: Any, *, lock: bool) -> Game:
    """The game with its seats and their players as `seat_list` (so that the caller can answer
    with the game as it is after the write, without reading it again); with `lock`, its row
    locked until the end of the transaction, and the seats read once the lock is granted.

    Two plain queries rather than `with_seats()`: the creator is one of the seats' players, and
    a prefetch costs a move more than the query it runs."""
    games = Game.objects.select_for_update() if lock else Game.objects.all()
    try:
        game = games.get(pk=game_pk(game_id))
    except Game.DoesNotExist:
        raise GameNotFound() from None
    game.seat_list = list(Seat.with_players().filter(game=game))
    creator = next((s.user for s in game.seat_list if s.user_id == game.created_by_id), None)
    if creator is not None:
        game.created_by = creator
    return game


def _lock_game(game_id: Any) -> Game:
    return _read_game(game_id, lock=True)


def _seat_of(seats: list[Seat], user: AbstractBaseUser) -> Seat | None:
    return next((s for s in seats if s.user_id is not None and s.user_id == user.pk), None)


def _deadline(game: Game, seats: list[Seat], to_move: Any) -> Any:
    """When the turn of the players at `to_move` ends: the game's pace from now, and, if one of
    them is on vacation, the rest of their vacation on top (their clock is stopped)."""
    now = timezone.now()
    paused = [
        seat.user.profile.vacation_until - now
        for seat in seats
        if seat.position in to_move
        and seat.user is not None
        and not seat.played_by_computer
        and seat.user.profile.on_vacation(now)
    ]
    return now + timedelta(days=game.days_per_move) + max(paused, default=timedelta(0))


def _computer_seat(seats: list[Seat], state: engine.State) -> Seat | None:
    """The seat the computer plays that is to move in `state`, if any (the first, when several
    tile)."""
    to_move = set(state.to_move)
    return next((s for s in seats if s.played_by_computer and s.position in to_move), None)


def _people(seats: list[Seat], positions: Any = None) -> list[Any]:
    """The ids of the players who sit at `seats` (those at `positions`, if given)."""
    return [
        s.user_id
        for s in seats
        if s.user_id is not None
        and s.kind == Seat.Kind.HUMAN
        and (positions is None or s.position in positions)
    ]


def _waiting_changed(seats: list[Seat]) -> None:
    """Whose turn it is changed: the players' counts of games waiting for them are read afresh,
    now (for the rest of this transaction) and once it commits (in case a reader stored the
    count from before in between)."""
    players = _people(seats)
    games_waiting_forget(players)
    transaction.on_commit(partial(games_waiting_forget, players))


def _notify(kind: str, game: Game, recipients: list[Any], **context: Any) -> None:
    if recipients:
        notify_players(
            recipient_ids=recipients, kind=kind, game_id=game.id, ply=game.ply, context=context
        )


def _notify_turn(game: Game, seats: list[Seat], before: engine.State | None) -> None:
    """Tell the players who are newly to move (not those the computer plays) that it is their
    turn: the email waits a grace period, and goes only if they have not moved by then."""
    state = game.engine_state()
    if game.status != Game.Status.ACTIVE or state is None:
        return
    newly = set(state.to_move)
    if before is not None and state.round == before.round:
        newly -= set(before.to_move)
    _notify("your_turn", game, _people([s for s in seats if not s.autoplay], newly))


def _enqueue_computer_move(game: Game) -> None:
    """After commit, ask a worker to play for the computer seat to move at this ply."""
    follow_ups.on_commit(follow_ups.COMPUTER_MOVE, str(game.id), game.ply)


def _append(game: Game, entry: dict[str, Any]) -> LogEntry:
    log_entry = LogEntry(
        game=game,
        number=game.ply,
        kind=entry["kind"],
        player=entry.get("player"),
        data=entry,
    )
    game.ply += 1
    return log_entry


def _deal(game: Game, state: engine.State, entries: list[LogEntry]) -> engine.State:
    """Draw the next round's factory fill now, log it, and return the state after it."""
    tiles = engine.draw_tiles(state, random.SystemRandom())
    entries.append(_append(game, engine.deal_entry(tiles)))
    return engine.deal(state, tiles=tiles)


def _finish(game: Game, seats: list[Seat], state: engine.State) -> None:
    outcome = engine.result(state)
    for standing in outcome.standings:
        seat = seats[standing.player]
        seat.final_score = standing.score
        seat.place = standing.place
    game.status = Game.Status.FINISHED
    game.finished_at = timezone.now()
    game.turn_deadline = None
    _notify("game_over", game, _people(seats))


def _start(game: Game, seats: list[Seat], by: AbstractBaseUser) -> None:
    """Every seat is filled (`by` filled the last): pick the first player, draw the first deal,
    start the clock, and tell the others."""
    first_player = random.SystemRandom().randrange(game.num_players)
    state = engine.new_game(game.num_players, game.variant, first_player)
    entries: list[LogEntry] = []
    state = _deal(game, state, entries)
    LogEntry.objects.bulk_create(entries)
    now = timezone.now()
    game.first_player = first_player
    game.set_engine_state(state)
    game.status = Game.Status.ACTIVE
    game.started_at = now
    game.turn_deadline = _deadline(game, seats, state.to_move)
    game.save()
    _waiting_changed(seats)
    # Those who were waiting for the game to fill hear that it started; whoever filled it is
    # at the table, and hears only that it is their turn (after the grace period).
    others = [pk for pk in _people(seats) if pk != by.pk]
    _notify("game_started", game, others)
    _notify_turn(game, [s for s in seats if s.user_id not in others], None)
    if _computer_seat(seats, state) is not None:
        _enqueue_computer_move(game)


def _start_if_full(game: Game, seats: list[Seat], by: AbstractBaseUser) -> None:
    if game.status == Game.Status.OPEN and all(s.is_filled for s in seats):
        _start(game, seats, by)


def _require_open(game: Game) -> None:
    if game.status != Game.Status.OPEN:
        raise InvalidAction(
            f"This game is {game.get_status_display().lower()}, not waiting for players.",
            status_code=409,
        )


# -- creating and filling games ------------------------------------------------------------------


def _validate_settings(
    *, creator: AbstractBaseUser, num_players: Any, variant: Any, days_per_move: Any, seats: Any
) -> list[tuple[SeatSpec, AbstractBaseUser | None]]:
    if type(num_players) is not int or num_players not in (2, 3, 4):
        raise InvalidAction(f"Azul is for 2, 3 or 4 players, not {num_players!r}.")
    if variant not in Game.Variant.values:
        raise InvalidAction(f"The variant must be 'colored' or 'gray', not {variant!r}.")
    if type(days_per_move) is not int or days_per_move not in DAYS_PER_MOVE:
        choices = ", ".join(str(d) for d in DAYS_PER_MOVE)
        raise InvalidAction(f"Days per move must be one of {choices}, not {days_per_move!r}.")
    seats = list(seats)
    if len(seats) != num_players - 1:
        raise InvalidAction(
            f"A {num_players}-player game needs {num_players - 1} other seat"
            f"{'s' if num_players > 2 else ''} besides yours, not {len(seats)}."
        )
    resolved: list[tuple[SeatSpec, AbstractBaseUser | None]] = []
    invited: set[int] = set()
    for number, spec in enumerate(seats, 2):
        if not isinstance(spec, SeatSpec):
            raise InvalidAction(f"Seat {number}: not a seat description.")
        if spec.kind == "invite":
            username = (spec.username or "").strip()
            if not username:
                raise InvalidAction(f"Seat {number}: name the player to invite.")
            user = player_get(username=username)
            if user is None:
                raise InvalidAction(f"Seat {number}: there is no player called {username!r}.")
            if user.pk == creator.pk:
                raise InvalidAction(f"Seat {number}: you cannot invite yourself.")
            if user.pk in invited:
                raise InvalidAction(f"Seat {number}: {username!r} is already invited.")
            invited.add(user.pk)
            resolved.append((spec, user))
        elif spec.kind == "computer":
            if spec.level not in BOT_LEVELS:
                levels = ", ".join(BOT_LEVELS)
                raise InvalidAction(
                    f"Seat {number}: unknown computer level {spec.level!r} (levels: {levels})."
                )
            resolved.append((spec, None))
        elif spec.kind == "open":
            resolved.append((spec, None))
        else:
            raise InvalidAction(
                f"Seat {number}: the kind must be 'invite', 'open' or 'computer', not "
                f"{spec.kind!r}."
            )
    return resolved


def game_create(
    *,
    creator: AbstractBaseUser,
    num_players: int,
    variant: str,
    days_per_move: int,
    seats: list[SeatSpec],
) -> Game:
    """Create a game with the creator at seat 0 and the other seats as `seats` describe.

    Invited players must accept and open seats be joined before the game starts; a game whose
    other seats are all computers starts at once.
    """
    resolved = _validate_settings(
        creator=creator,
        num_players=num_players,
        variant=variant,
        days_per_move=days_per_move,
        seats=seats,
    )
    with transaction.atomic():
        game = Game.objects.create(
            variant=variant,
            num_players=num_players,
            days_per_move=days_per_move,
            created_by=creator,
        )
        seat_rows = [Seat(game=game, position=0, kind=Seat.Kind.HUMAN, user=creator)]
        for position, (spec, user) in enumerate(resolved, 1):
            if spec.kind == "computer":
                seat_rows.append(
                    Seat(
                        game=game, position=position, kind=Seat.Kind.COMPUTER, bot_level=spec.level
                    )
                )
            elif spec.kind == "invite":
                seat_rows.append(
                    Seat(
                        game=game,
                        position=position,
                        user=user,
                        invitation=Seat.Invitation.PENDING,
                    )
                )
            else:
                seat_rows.append(Seat(game=game, position=position))
        Seat.objects.bulk_create(seat_rows)
        # Lock it like every other write, so a join arriving first waits for the start.
        game = _lock_game(game.id)
        invited = [s.user_id for s in seat_rows if s.invitation == Seat.Invitation.PENDING]
        _notify("invitation", game, invited)
        _start_if_full(game, list(game.seat_list), creator)
    return game


def game_join(*, game_id: Any, user: AbstractBaseUser) -> Game:
    """Take the first open seat of a game waiting for players; starts it if that fills it."""
    with transaction.atomic():
        game = _lock_game(game_id)
        _require_open(game)
        seats = list(game.seat_list)
        mine = _seat_of(seats, user)
        if mine is not None:
            if mine.invitation == Seat.Invitation.PENDING:
                raise InvalidAction(
                    "You are invited to this game: accept the invitation instead.",
                    status_code=409,
                )
            raise InvalidAction("You already have a seat in this game.", status_code=409)
        seat = next((s for s in seats if s.is_open), None)
        if seat is None:
            raise InvalidAction("This game has no open seat left.", status_code=409)
        seat.user = user
        seat.invitation = Seat.Invitation.NONE
        seat.save(update_fields=["user", "invitation"])
        game.save(update_fields=["updated_at"])
        _start_if_full(game, seats, user)
    return game


def invitation_respond(*, game_id: Any, user: AbstractBaseUser, accept: bool) -> Game:
    """Accept or decline an invitation.

    Declining does not abort the game: the seat becomes open, so the game can still fill from
    the lobby (the creator can cancel it if they would rather not).
    """
    with transaction.atomic():
        game = _lock_game(game_id)
        seats = list(game.seat_list)
        seat = _seat_of(seats, user)
        if seat is None or seat.invitation != Seat.Invitation.PENDING:
            raise InvalidAction(
                "You have no pending invitation to this game.",
                status_code=404 if seat is None else 409,
            )
        _require_open(game)
        if accept:
            seat.invitation = Seat.Invitation.ACCEPTED
            seat.save(update_fields=["invitation"])
        else:
            seat.user = None
            seat.invitation = Seat.Invitation.DECLINED
            seat.save(update_fields=["user", "invitation"])
        game.save(update_fields=["updated_at"])
        if accept:
            _start_if_full(game, seats, user)
    return game


def game_cancel(*, game_id: Any, user: AbstractBaseUser) -> Game:
    """The creator calls off a game that has not started yet."""
    with transaction.atomic():
        game = _lock_game(game_id)
        if game.created_by_id != user.pk:
            raise InvalidAction(
                "Only the player who created this game can cancel it.", status_code=403
            )
        if game.status != Game.Status.OPEN:
            raise InvalidAction(
                "Only a game that has not started yet can be cancelled; this one is "
                f"{game.get_status_display().lower()}.",
                status_code=409,
            )
        game.status = Game.Status.ABORTED
        game.finished_at = timezone.now()
        game.turn_deadline = None
        game.save(update_fields=["status", "finished_at", "turn_deadline", "updated_at"])
    return game


# -- moves ---------------------------------------------------------------------------------------


def _play(
    game: Game,
    seats: list[Seat],
    state: engine.State,
    position: int,
    move: str,
    *,
    timeout: bool = False,
) -> list[LogEntry]:
    """Play `move` for `position` on `game` in memory (state, ply, deadline; the result and the
    seats' scores if it ends the game) and return the log entries to append: the move (marked
    as the server's if it was made at a `timeout`), then the next round's deal when one is due.
    The caller has checked that `position` may move."""
    try:
        parsed = engine.parse_move(move)
        new_state = engine.play(state, parsed, position)
    except (engine.IllegalMove, engine.InvalidNotation) as exc:
        raise IllegalMoveError(f"Illegal move {move!r}: {exc}") from None

    entry = engine.move_entry(position, parsed)
    if timeout:
        entry["timeout"] = True
    entries = [_append(game, entry)]
    if new_state.phase == "deal":
        new_state = _deal(game, new_state, entries)

    if new_state.phase == "over":
        _finish(game, seats, new_state)
    elif set(new_state.to_move) - set(state.to_move) or new_state.round != state.round:
        # Someone new is to move: their clock starts now.
        game.turn_deadline = _deadline(game, seats, new_state.to_move)
    game.set_engine_state(new_state)
    return entries


MOVE_FIELDS = ["state", "ply", "status", "finished_at", "turn_deadline", "updated_at"]


def _write(
    game: Game,
    seats: list[Seat],
    entries: list[LogEntry],
    before: engine.State,
    seat_fields: tuple[str, ...] = (),
) -> None:
    """Write moves played in memory (`_play`) since `before`: the log entries, the seats' changed
    fields, the game's; tell whoever is newly to move; and once this commits, ask a worker to
    play for the computer if it is to move."""
    LogEntry.objects.bulk_create(entries)
    _waiting_changed(seats)
    if game.status == Game.Status.FINISHED:
        # Rated with the result, in its transaction: the ratings move exactly when it is recorded.
        ratings.game_rate(game=game, seats=seats)
        seat_fields += ("final_score", "place", *ratings.SEAT_FIELDS)
    if seat_fields:
        Seat.objects.bulk_update(seats, list(seat_fields))
    game.save(update_fields=MOVE_FIELDS)
    _notify_turn(game, seats, before)
    if game.status == Game.Status.ACTIVE and _computer_seat(seats, game.engine_state()):
        _enqueue_computer_move(game)


def _apply_move(game: Game, seats: list[Seat], position: int, move: str) -> Game:
    """Play and write a move; the caller holds the game's lock and has checked that `position`
    may move."""
    before = game.engine_state()
    _write(game, seats, _play(game, seats, before, position, move), before)
    return game


def _current_ply(game_id: Any) -> int:
    return Game.objects.filter(pk=game_pk(game_id)).values_list("ply", flat=True).first() or 0


def _mover(game: Game, user: AbstractBaseUser, expected_ply: Any) -> tuple[list[Seat], Seat]:
    """The game's seats and the user's seat, if the user may move in `game` now; else the error
    that says why not."""
    seats = list(game.seat_list)
    seat = _seat_of(seats, user)
    if seat is None or seat.invitation == Seat.Invitation.PENDING:
        raise NotAPlayer()
    if game.status != Game.Status.ACTIVE:
        if game.status == Game.Status.FINISHED:
            raise InvalidAction("The game is over: no more moves.", status_code=409)
        raise InvalidAction(
            f"This game is {game.get_status_display().lower()}: no moves yet.", status_code=409
        )
    # Staleness first: a player whose view is out of date learns to reload, rather than being
    # told it is not their turn in a position they have not seen.
    if type(expected_ply) is not int or expected_ply != game.ply:
        raise StaleMove(game.ply)
    if seat.position not in game.engine_state().to_move:
        raise NotYourTurn()
    return seats, seat


def move_submit(*, game_id: Any, user: AbstractBaseUser, move: str, expected_ply: int) -> Game:
    """A player's move, in canonical notation (`F3 blue 2`, `C red floor`, `wall 2 4`).

    `expected_ply` is the ply the player saw; if the game has moved on since, nothing is written
    and `StaleMove` says where it is now. Nothing is written unless the move is accepted.
    Returns the game after the move, with its seats.
    """
    pk = game_pk(game_id)
    try:
        with transaction.atomic():
            game = _lock_game(pk)
            seats, seat = _mover(game, user, expected_ply)
            return _apply_move(game, seats, seat.position, move)
    except IntegrityError:
        # The unique (game, number) backstop: another writer appended this ply first.
        raise StaleMove(_current_ply(pk)) from None


def _bot_move(game: Game, seat: Seat, state: engine.State) -> str:
    """The computer's move for the seat; seeded by game and ply, so a retried task picks the
    same one."""
    seed = zlib.crc32(f"{game.id}:{game.ply}".encode())
    return str(choose_move(state, seat.position, seat.bot, seed=seed))


def _computer_to_play(game: Game) -> tuple[Seat, engine.State] | None:
    """The computer seat to move in an active game, with the game's state; else None."""
    if game.status != Game.Status.ACTIVE:
        return None
    state = game.engine_state()
    seat = _computer_seat(list(game.seat_list), state)
    return None if seat is None else (seat, state)


def computer_move_play(*, game_id: Any, expected_ply: int) -> Game | None:
    """Play for the computer seat to move at `expected_ply`; does nothing if the world moved on.

    The computer thinks (up to its time cap) without holding the game's lock: its move depends
    only on the position at `expected_ply`, and is applied under the lock only if the game is
    still there. Returns the game after the move, or None when there was nothing to do (a
    retry, or a task that arrived after the game changed).
    """
    try:
        game = _read_game(game_id, lock=False)
    except GameNotFound:
        return None
    found = _computer_to_play(game) if game.ply == expected_ply else None
    if found is None:
        return None
    move = _bot_move(game, *found)
    try:
        with transaction.atomic():
            game = _lock_game(game_id)
            found = _computer_to_play(game) if game.ply == expected_ply else None
            if found is None:
                return None
            # Same ply, so the same position: the move chosen above still applies.
            return _apply_move(game, list(game.seat_list), found[0].position, move)
    except IntegrityError:
        return None


# -- deadlines -----------------------------------------------------------------------------------

TIMEOUTS_BEFORE_AUTOPLAY = 3


def timeouts_play(*, game_id: Any, expected_ply: int) -> Game | None:
    """The turn's deadline passed with the game at `expected_ply`: the server moves (as the
    greedy computer player) for each player still to move, marks the moves as timeouts, and
    tells them. At a player's third timeout in the game, the computer plays their seat to the
    end. Does nothing if the game moved on, or its deadline has not passed (a retried or
    duplicated task): so any number of these for one deadline act once. Returns the game after
    the moves, or None."""
    try:
        with transaction.atomic():
            game = _lock_game(game_id)
            deadline = game.turn_deadline
            if game.status != Game.Status.ACTIVE or game.ply != expected_ply:
                return None
            if deadline is None or deadline > timezone.now():
                return None
            seats, before = list(game.seat_list), game.engine_state()
            absent = [s for s in seats if s.position in before.to_move and not s.played_by_computer]
            if not absent:
                return None  # the computer's own turn: the computer sweep sees to it
            entries: list[LogEntry] = []
            for seat in absent:
                state = game.engine_state()
                if game.status != Game.Status.ACTIVE or seat.position not in state.to_move:
                    continue
                move = _bot_move(game, seat, state)
                entries += _play(game, seats, state, seat.position, move, timeout=True)
                seat.timeouts += 1
                seat.autoplay = seat.timeouts >= TIMEOUTS_BEFORE_AUTOPLAY
                _notify("timeout", game, _people([seat]), move=move, autoplay=seat.autoplay)
            _write(game, seats, entries, before, ("timeouts", "autoplay"))
            return game
    except (GameNotFound, IntegrityError):
        return None


# -- vacations -----------------------------------------------------------------------------------


def vacation_start(*, user: AbstractBaseUser, days: Any) -> Profile:
    """Stop the player's clocks for `days` days from now: every deadline of theirs moves by that
    much (the turns they are to move in now, and, through `_deadline`, the turns that come to
    them meanwhile), and opponents see until when they are away. Counted against
    VACATION_DAYS_A_YEAR in the calendar year it starts; a vacation once started is not taken
    back (a player back early just moves)."""
    now = timezone.now()
    with transaction.atomic():
        profile = Profile.objects.select_for_update().get(user=user)
        if profile.on_vacation(now):
            raise InvalidAction(
                f"You are on vacation already, until {profile.vacation_until:%d %B %Y, %H:%M} UTC.",
                status_code=409,
            )
        left = profile.vacation_days_left(now.year)
        if type(days) is not int or not 1 <= days <= left:
            raise InvalidAction(
                f"A vacation is 1 to {left} days this year (you have {left} left), not {days!r}."
                if left
                else "You have no vacation days left this year."
            )
        pause = timedelta(days=days)
        waiting = seats_to_move().filter(user=user, game__status=Game.Status.ACTIVE)
        games = Game.objects.select_for_update().filter(
            pk__in=waiting.values("game_id"), turn_deadline__isnull=False
        )
        # Locked first, like every write to a game, so a move in between cannot undo it.
        Game.objects.filter(pk__in=[g.pk for g in games]).update(
            turn_deadline=F("turn_deadline") + pause
        )
        if profile.vacation_year != now.year:
            profile.vacation_year, profile.vacation_days_used = now.year, 0
        profile.vacation_until = now + pause
        profile.vacation_days_used += days
        # Saving the profile gives each of the player's games a new version (games.apps), so
        # boards show the vacation at once.
        profile.save(update_fields=["vacation_until", "vacation_year", "vacation_days_used"])
    return profile


# -- names shown on games ------------------------------------------------------------------------


def games_touch_for_player(*, user_id: Any) -> int:
    """A name that games show changed (a player's display name or username): give every game where
    they sit a new version, so that views and boards cached for the old one are not shown again.
    Returns the number of games."""
    return Game.objects.filter(seats__user_id=user_id).update(updated_at=timezone.now())
