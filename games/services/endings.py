"""How a game ends besides its last move (`playing.record_result`): a player resigns, and, when
that leaves nothing to play for, the game is played out at once; and a rematch of a finished
game."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from accounts.names import player_name
from games import effects
from games.errors import GameConflict, NotAPlayer
from games.models import Game, LogEntry, Seat
from games.selectors import rematches_of
from games.services.game_settings import SeatSpec
from games.services.playing import computer_choice, lock_game, play_in_memory, write_moves
from games.services.setup import game_create


def result_settled(seats: list[Seat]) -> bool:
    """Nothing is left to play for: at most one seat has not resigned (it is first, and the
    resigned ones after it), or every seat that has not resigned is played by the computer
    (nobody is at the table to care how the computer's seats finish)."""
    contenders = [s for s in seats if s.resigned_at is None]
    return len(contenders) <= 1 or all(s.played_by_computer for s in contenders)


def play_out(game: Game, seats: list[Seat]) -> list[LogEntry]:
    """Play the game to its end now, in memory, the greedy computer moving for every seat (the
    quickest of the computer players that plays the rules' game sensibly: a whole game takes
    tens of milliseconds); returns the log entries to write."""
    entries: list[LogEntry] = []
    while game.status == Game.Status.ACTIVE:
        state = game.started_state()
        seat = seats[state.to_move[0]]
        move = computer_choice(game, seat, state, Seat.BotLevel.GREEDY)
        entries += play_in_memory(game, seats, state, seat.position, move)
    return entries


def game_resign(*, game_id: Any, user: User) -> Game:
    """A player resigns a game in progress. From then the greedy computer plays their seat to
    the end (as it does after three timeouts: `Seat.autoplay`), and the result ranks the seat
    after every seat that did not resign, whatever its score (`playing.record_result`); the
    other players are told.

    When that leaves nothing to play for (`result_settled`: one player left, as in a two-player
    game, or only the computer's seats), the game is played out at once by the greedy computer
    for every seat, and finishes now: the player who is left wins without playing a game whose
    result is decided. Otherwise the others play on against the computer in the resigned seat.
    Returns the game after it, with its seats.
    """
    with transaction.atomic():
        game = lock_game(game_id)
        seats = list(game.seat_list)
        seat = Seat.of_user(seats, user)
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
        before = game.started_state()
        seat.resigned_at = timezone.now()
        seat.autoplay = True
        effects.player_resigned(user_id=user.pk, game_id=game.id)
        if result_settled(seats):
            # The game-over email, which names who resigned, tells everyone.
            entries = play_out(game, seats)
        else:
            entries = []
            effects.tell_players(
                kind="resigned",
                game=game,
                recipient_ids=[pk for pk in Seat.human_player_ids(seats) if pk != user.pk],
                repeatable=True,
                context={
                    "name": player_name(user),
                    "username": user.get_username(),
                    "seat": seat.position + 1,
                },
            )
        write_moves(game, seats, entries, before, ("resigned_at", "autoplay"))
    return game


def game_rematch(*, game_id: Any, user: User) -> tuple[Game, bool]:
    """A player of a finished game asks for a rematch: a new game with the same settings
    (variant, number of players, days per move) and the same seats, created by them, the other
    players invited (as any invitation), the computer seats at the same levels. Returns the
    game with its seats, and whether it was created now: a player who has a rematch of this
    game already (theirs, or another player's they are invited to or sit at) gets that one, so
    asking twice makes one game."""
    with transaction.atomic():
        game = lock_game(game_id)  # one request at a time decides whether to create it
        seats = list(game.seat_list)
        mine = Seat.of_user(seats, user)
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
        others = [_rematch_seat(s) for s in seats if s is not mine]
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


def _rematch_seat(seat: Seat) -> SeatSpec:
    """The seat of a finished game as a rematch's: the same computer level, or its player
    invited; the seat of a player who deleted their account is open to the lobby."""
    if seat.kind == Seat.Kind.COMPUTER:
        return SeatSpec(kind="computer", level=seat.bot_level)
    assert seat.user is not None, "a finished game's human seats all have their player"
    if seat.user.deleted_at is not None:
        return SeatSpec(kind="open")
    return SeatSpec(kind="invite", username=seat.user.get_username())
