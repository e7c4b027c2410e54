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
from django.utils.formats import date_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

import azul
from accounts.models import Profile
from accounts.names import player_name
from accounts.selectors import player_get
from azul.ai.bots import choose_move
from core.tasks import send_on_commit
from games import follow_ups
from games.engine_messages import engine_error_text
from games.errors import (
    AlreadyMoved,
    GameConflict,
    GameNotFound,
    IllegalMoveError,
    InvalidAction,
    InvalidNotation,
    NotAPlayer,
    NotYourTurn,
    StaleMove,
)
from games.models import DAYS_PER_MOVE_CHOICES, Game, LogEntry, Seat
from games.selectors import (
    game_pk,
    games_waiting_forget,
    rematches_of,
    seats_to_move,
)
from games.standings import resigned_last
from notifications.services import event_ply, game_seen, notify_players
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


def _computer_seat(seats: list[Seat], state: azul.State) -> Seat | None:
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


def _notify_event(kind: str, game: Game, recipients: list[Any], **context: Any) -> None:
    """`_notify` for an event that may happen more than once at the game's ply (an invitation
    declined or given again before the game starts, a resignation): each is its own email
    (`notifications.services.event_ply`)."""
    if recipients:
        ply = event_ply(game_id=game.id, kind=kind, at_least=game.ply)
        notify_players(
            recipient_ids=recipients, kind=kind, game_id=game.id, ply=ply, context=context
        )


def _notify_turn(game: Game, seats: list[Seat], before: azul.State | None) -> None:
    """Tell the players who are newly to move (not those the computer plays) that it is their
    turn: the email waits a grace period, and goes only if they have not moved by then."""
    state = game.engine_state()
    if game.status != Game.Status.ACTIVE or state is None:
        return
    newly = set(state.to_move)
    if before is not None and state.round == before.round:
        newly -= set(before.to_move)
    _notify("your_turn", game, _people([s for s in seats if not s.autoplay], newly))


def _enqueue_computer_move(game: Game, seat: Seat) -> None:
    """After commit, ask a worker to play for the computer `seat`, to move at this ply."""
    queue = follow_ups.computer_move_queue(seat.bot)
    send_on_commit(follow_ups.COMPUTER_MOVE, str(game.id), game.ply, queue=queue)


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


def _deal(game: Game, state: azul.State, entries: list[LogEntry]) -> azul.State:
    """Draw the next round's factory fill now, log it, and return the state after it."""
    tiles = azul.draw_tiles(state, random.SystemRandom())
    entries.append(_append(game, azul.deal_entry(tiles)))
    return azul.deal(state, tiles=tiles)


def _finish(game: Game, seats: list[Seat], state: azul.State) -> None:
    """The game is over: the seats' final scores and places, where the players who resigned
    come last whatever their scores (`standings.resigned_last`), and the ratings that follow
    from those places (`_write`)."""
    resigned = [s.position for s in seats if s.resigned_at is not None]
    outcome = resigned_last(azul.result(state), resigned)
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
    state = azul.new_game(game.num_players, game.variant, first_player)
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
    if (computer := _computer_seat(seats, state)) is not None:
        _enqueue_computer_move(game, computer)


def _start_if_full(game: Game, seats: list[Seat], by: AbstractBaseUser) -> None:
    if game.status == Game.Status.OPEN and all(s.is_filled for s in seats):
        _start(game, seats, by)


def _require_open(game: Game) -> None:
    if game.status != Game.Status.OPEN:
        raise InvalidAction(
            _("This game is %(status)s, not waiting for players.")
            % {"status": game.get_status_display().lower()},
            status_code=409,
        )


# -- creating and filling games ------------------------------------------------------------------


def _validate_settings(
    *, creator: AbstractBaseUser, num_players: Any, variant: Any, days_per_move: Any, seats: Any
) -> list[tuple[SeatSpec, AbstractBaseUser | None]]:
    if type(num_players) is not int or num_players not in (2, 3, 4):
        raise InvalidAction(
            _("Azul is for 2, 3 or 4 players, not %(number)s.") % {"number": repr(num_players)}
        )
    if variant not in Game.Variant.values:
        raise InvalidAction(
            _("The variant must be 'colored' or 'gray', not %(variant)s.")
            % {"variant": repr(variant)}
        )
    if type(days_per_move) is not int or days_per_move not in DAYS_PER_MOVE:
        choices = ", ".join(str(d) for d in DAYS_PER_MOVE)
        raise InvalidAction(
            _("Days per move must be one of %(choices)s, not %(days)s.")
            % {"choices": choices, "days": repr(days_per_move)}
        )
    seats = list(seats)
    if len(seats) != num_players - 1:
        raise InvalidAction(
            ngettext(
                "A %(players)s-player game needs %(others)s other seat besides yours, not"
                " %(given)s.",
                "A %(players)s-player game needs %(others)s other seats besides yours, not"
                " %(given)s.",
                num_players - 1,
            )
            % {"players": num_players, "others": num_players - 1, "given": len(seats)}
        )
    resolved: list[tuple[SeatSpec, AbstractBaseUser | None]] = []
    invited: set[int] = set()
    for number, spec in enumerate(seats, 2):
        if not isinstance(spec, SeatSpec):
            raise InvalidAction(_("Seat %(number)s: not a seat description.") % {"number": number})
        if spec.kind == "invite":
            username = (spec.username or "").strip()
            if not username:
                raise InvalidAction(
                    _("Seat %(number)s: name the player to invite.") % {"number": number}
                )
            user = player_get(username=username)
            if user is None:
                raise InvalidAction(
                    _("Seat %(number)s: there is no player called %(name)s.")
                    % {"number": number, "name": repr(username)}
                )
            if user.pk == creator.pk:
                raise InvalidAction(
                    _("Seat %(number)s: you cannot invite yourself.") % {"number": number}
                )
            if user.pk in invited:
                raise InvalidAction(
                    _("Seat %(number)s: %(name)s is already invited.")
                    % {"number": number, "name": repr(username)}
                )
            invited.add(user.pk)
            resolved.append((spec, user))
        elif spec.kind == "computer":
            if spec.level not in BOT_LEVELS:
                levels = ", ".join(BOT_LEVELS)
                raise InvalidAction(
                    _("Seat %(number)s: unknown computer level %(level)s (levels: %(levels)s).")
                    % {"number": number, "level": repr(spec.level), "levels": levels}
                )
            resolved.append((spec, None))
        elif spec.kind == "open":
            resolved.append((spec, None))
        else:
            raise InvalidAction(
                _("Seat %(number)s: the kind must be 'invite', 'open' or 'computer', not %(kind)s.")
                % {"number": number, "kind": repr(spec.kind)}
            )
    return resolved


def game_create(
    *,
    creator: AbstractBaseUser,
    num_players: int,
    variant: str,
    days_per_move: int,
    seats: list[SeatSpec],
    rematch_of: Game | None = None,
) -> Game:
    """Create a game with the creator at seat 0 and the other seats as `seats` describe (as a
    rematch of the finished game `rematch_of`, for `game_rematch`).

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
            rematch_of=rematch_of,
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
                    _("You are invited to this game: accept the invitation instead."),
                    status_code=409,
                )
            raise InvalidAction(_("You already have a seat in this game."), status_code=409)
        seat = next((s for s in seats if s.is_open), None)
        if seat is None:
            raise InvalidAction(_("This game has no open seat left."), status_code=409)
        seat.user = user
        seat.invitation = Seat.Invitation.NONE
        seat.save(update_fields=["user", "invitation"])
        game.save(update_fields=["updated_at"])
        _start_if_full(game, seats, user)
    return game


def invitation_respond(*, game_id: Any, user: AbstractBaseUser, accept: bool) -> Game:
    """Accept or decline an invitation.

    Declining does not abort the game, nor open the seat to the lobby: the seat is left
    declined (no player, not joinable) and the creator is told (an email, and a notice on their
    home page and "My games"), who then invites someone else to it (`seat_invite`), opens it
    to the lobby (`seat_open`) or cancels the game (`game_cancel`).
    """
    with transaction.atomic():
        game = _lock_game(game_id)
        seats = list(game.seat_list)
        seat = _seat_of(seats, user)
        if seat is None or seat.invitation != Seat.Invitation.PENDING:
            raise InvalidAction(
                _("You have no pending invitation to this game."),
                status_code=404 if seat is None else 409,
            )
        _require_open(game)
        if accept:
            seat.invitation = Seat.Invitation.ACCEPTED
            seat.save(update_fields=["invitation"])
        else:
            seat.user = None
            seat.invitation = Seat.Invitation.DECLINED
            seat.declined_by = user
            seat.save(update_fields=["user", "invitation", "declined_by"])
            _notify_event(
                "invitation_declined",
                game,
                [game.created_by_id],
                name=player_name(user),
                seat=seat.position + 1,
            )
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
                _("Only the player who created this game can cancel it."), status_code=403
            )
        if game.status != Game.Status.OPEN:
            raise InvalidAction(
                _("Only a game that has not started yet can be cancelled; this one is %(status)s.")
                % {"status": game.get_status_display().lower()},
                status_code=409,
            )
        game.status = Game.Status.ABORTED
        game.finished_at = timezone.now()
        game.turn_deadline = None
        game.save(update_fields=["status", "finished_at", "turn_deadline", "updated_at"])
        if game.rematch_of_id is not None:
            # The finished game's board offered this rematch: it is drawn afresh (a new version).
            Game.objects.filter(pk=game.rematch_of_id).update(updated_at=game.updated_at)
    return game


def _creators_seat(game_id: Any, user: AbstractBaseUser, position: Any) -> tuple[Game, Seat]:
    """The game (locked) and its seat at `position`, if `user` created the game and it is
    still waiting for players; else the error that says why not."""
    game = _lock_game(game_id)
    if game.created_by_id != user.pk:
        raise InvalidAction(
            _("Only the player who created this game can choose who sits at its seats."),
            status_code=403,
        )
    _require_open(game)
    seat = next((s for s in game.seat_list if s.position == position), None)
    if type(position) is not int or seat is None:
        raise InvalidAction(
            _("This game has no seat %(number)s.")
            % {"number": position + 1 if type(position) is int else repr(position)},
            status_code=404,
        )
    if not (seat.is_declined or seat.invitation == Seat.Invitation.PENDING):
        raise GameConflict(
            _(
                "Seat %(number)s is not waiting for an answer: only a seat whose invitation was"
                " declined, or is not answered yet, can be given to someone else or opened."
            )
            % {"number": position + 1},
            current_ply=game.ply,
            code="seat_not_declined",
        )
    return game, seat


def seat_invite(*, game_id: Any, user: AbstractBaseUser, position: int, username: str) -> Game:
    """The creator of a game waiting for players invites `username` to the seat at `position`
    (numbered from 0), whose invitation was declined or is not answered yet (that invitation is
    withdrawn). The invited player is told as at the game's creation."""
    with transaction.atomic():
        game, seat = _creators_seat(game_id, user, position)
        name = (username or "").strip() if isinstance(username, str) else ""
        if not name:
            raise InvalidAction(_("Name the player to invite."))
        invited = player_get(username=name)
        if invited is None:
            raise InvalidAction(_("There is no player called %(name)s.") % {"name": repr(name)})
        if invited.pk == user.pk:
            raise InvalidAction(_("You cannot invite yourself."))
        if _seat_of(game.seat_list, invited) is not None:
            raise GameConflict(
                _("%(name)s already has a seat or an invitation in this game.")
                % {"name": invited.get_username()},
                current_ply=game.ply,
                code="already_invited",
            )
        seat.user = invited
        seat.invitation = Seat.Invitation.PENDING
        seat.declined_by = None
        seat.save(update_fields=["user", "invitation", "declined_by"])
        game.save(update_fields=["updated_at"])
        _notify_event("invitation", game, [invited.pk])
    return game


def seat_open(*, game_id: Any, user: AbstractBaseUser, position: int) -> Game:
    """The creator of a game waiting for players opens the seat at `position` (numbered from
    0), whose invitation was declined or is not answered yet, to anyone in the lobby."""
    with transaction.atomic():
        game, seat = _creators_seat(game_id, user, position)
        seat.user = None
        seat.invitation = Seat.Invitation.NONE
        seat.declined_by = None
        seat.save(update_fields=["user", "invitation", "declined_by"])
        game.save(update_fields=["updated_at"])
    return game


# -- moves ---------------------------------------------------------------------------------------


def _play(
    game: Game,
    seats: list[Seat],
    state: azul.State,
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
    before: azul.State,
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
    computer = _computer_seat(seats, game.engine_state())
    if game.status == Game.Status.ACTIVE and computer is not None:
        _enqueue_computer_move(game, computer)


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
        _check_moved_since(game, seat, expected_ply)
    if seat.position not in game.engine_state().to_move:
        raise NotYourTurn()
    return seats, seat


def _check_moved_since(game: Game, seat: Seat, expected_ply: Any) -> None:
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
        kind == LogEntry.Kind.MOVE and _is_tiling(data) for kind, player, data in since
    )
    state = game.engine_state()
    if not (others_tiled and state.phase == "tile" and seat.position in state.to_move):
        raise StaleMove(game.ply)


def _is_tiling(data: dict[str, Any]) -> bool:
    """Whether a move's log entry is a gray wall tiling (`wall <line> <column>`)."""
    try:
        return isinstance(azul.parse_move(data.get("move", "")), azul.Place)
    except azul.InvalidNotation:
        return False


def move_submit(*, game_id: Any, user: AbstractBaseUser, move: str, expected_ply: int) -> Game:
    """A player's move, in canonical notation (`F3 blue 2`, `C red floor`, `wall 2 4`).

    `expected_ply` is the ply the player saw; if the game has moved on since, nothing is written
    and `StaleMove` says where it is now (`AlreadyMoved` when the player moved since, from
    another tab or window), except on the gray wall's tiling phase when only other players tiled
    since (`_check_moved_since`). Nothing is written unless the move is accepted. Returns the
    game after the move, with its seats.
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


def _bot_move(game: Game, seat: Seat, state: azul.State, level: str | None = None) -> str:
    """The computer's move for the seat (at its own level, unless `level` says another), seeded
    by game and ply. The searching levels think for a time budget, so a retried task may pick
    another move: harmless, as a move is applied only at the ply it was chosen for."""
    seed = zlib.crc32(f"{game.id}:{game.ply}".encode())
    return str(choose_move(state, seat.position, level or seat.bot, seed=seed))


def _computer_to_play(game: Game) -> tuple[Seat, azul.State] | None:
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


# -- resigning, and rematches -------------------------------------------------------------------


def _result_settled(seats: list[Seat]) -> bool:
    """Nothing is left to play for: at most one seat has not resigned (it is first, and the
    resigned ones after it), or every seat that has not resigned is played by the computer
    (nobody is at the table to care how the computer's seats finish)."""
    contenders = [s for s in seats if s.resigned_at is None]
    return len(contenders) <= 1 or all(s.played_by_computer for s in contenders)


def _play_out(game: Game, seats: list[Seat]) -> list[LogEntry]:
    """Play the game to its end now, in memory, the greedy computer moving for every seat (the
    quickest of the computer players that plays the rules' game sensibly: a whole game takes
    tens of milliseconds); returns the log entries to write."""
    entries: list[LogEntry] = []
    while game.status == Game.Status.ACTIVE:
        state = game.engine_state()
        seat = seats[state.to_move[0]]
        move = _bot_move(game, seat, state, Seat.BotLevel.GREEDY)
        entries += _play(game, seats, state, seat.position, move)
    return entries


def game_resign(*, game_id: Any, user: AbstractBaseUser) -> Game:
    """A player resigns a game in progress. From then the greedy computer plays their seat to
    the end (as it does after three timeouts: `Seat.autoplay`), and the result ranks the seat
    after every seat that did not resign, whatever its score (`_finish`); the other players
    are told.

    When that leaves nothing to play for (`_result_settled`: one player left, as in a two-player
    game, or only the computer's seats), the game is played out at once by the greedy computer
    for every seat, and finishes now: the player who is left wins without playing a game whose
    result is decided. Otherwise the others play on against the computer in the resigned seat.
    Returns the game after it, with its seats.
    """
    with transaction.atomic():
        game = _lock_game(game_id)
        seats = list(game.seat_list)
        seat = _seat_of(seats, user)
        if seat is None or seat.invitation == Seat.Invitation.PENDING:
            raise NotAPlayer()
        if seat.resigned_at is not None:
            raise GameConflict(
                _("You have already resigned this game."),
                current_ply=game.ply,
                code="already_resigned",
            )
        if game.status != Game.Status.ACTIVE:
            raise GameConflict(
                _("Only a game in progress can be resigned; this one is %(status)s.")
                % {"status": game.get_status_display().lower()},
                current_ply=game.ply,
                code="game_not_active",
            )
        before = game.engine_state()
        seat.resigned_at = timezone.now()
        seat.autoplay = True
        # Their "your turn" and reminder emails about this game are no longer needed.
        game_seen(user_id=user.pk, game_id=game.id)
        if _result_settled(seats):
            # The game-over email, which names who resigned, tells everyone.
            entries = _play_out(game, seats)
        else:
            entries = []
            others = [pk for pk in _people(seats) if pk != user.pk]
            _notify_event("resigned", game, others, name=player_name(user), seat=seat.position + 1)
        _write(game, seats, entries, before, ("resigned_at", "autoplay"))
    return game


def game_rematch(*, game_id: Any, user: AbstractBaseUser) -> tuple[Game, bool]:
    """A player of a finished game asks for a rematch: a new game with the same settings
    (variant, number of players, days per move) and the same seats, created by them, the other
    players invited (as any invitation), the computer seats at the same levels. Returns the
    game with its seats, and whether it was created now: a player who has a rematch of this
    game already (theirs, or another player's they are invited to or sit at) gets that one, so
    asking twice makes one game."""
    with transaction.atomic():
        game = _lock_game(game_id)  # one request at a time decides whether to create it
        seats = list(game.seat_list)
        mine = _seat_of(seats, user)
        if mine is None or mine.invitation == Seat.Invitation.PENDING:
            raise NotAPlayer(_("Only a player of this game can ask for a rematch."))
        if game.status != Game.Status.FINISHED:
            raise GameConflict(
                _("Only a finished game can be played again; this one is %(status)s.")
                % {"status": game.get_status_display().lower()},
                current_ply=game.ply,
                code="game_not_finished",
            )
        existing = rematches_of(game_id=game.id, user=user).with_seats().first()
        if existing is not None:
            return existing, False
        others = [
            SeatSpec(kind="computer", level=s.bot_level)
            if s.kind == Seat.Kind.COMPUTER
            else SeatSpec(kind="invite", username=s.user.get_username())
            for s in seats
            if s is not mine
        ]
        rematch = game_create(
            creator=user,
            num_players=game.num_players,
            variant=game.variant,
            days_per_move=game.days_per_move,
            seats=others,
            rematch_of=game,
        )
        # The finished game's board shows its players the rematch: a new version of it.
        game.save(update_fields=["updated_at"])
    return rematch, True


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
                _("You are on vacation already, until %(until)s UTC.")
                % {"until": date_format(profile.vacation_until, "j F Y, H:i")},
                status_code=409,
            )
        left = profile.vacation_days_left(now.year)
        if type(days) is not int or not 1 <= days <= left:
            raise InvalidAction(
                _(
                    "A vacation is 1 to %(left)s days this year (you have %(left)s left), not"
                    " %(days)s."
                )
                % {"left": left, "days": repr(days)}
                if left
                else _("You have no vacation days left this year.")
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
