"""Invitations to a game waiting for players: answered by the invited player, and the creator's
choices for a seat whose invitation was declined or is not answered yet (invite someone else,
or open it to the lobby)."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from accounts.models import User
from accounts.names import player_name
from accounts.selectors import player_get
from games import effects
from games.errors import GameConflict, InvalidAction
from games.models import Game, Seat
from games.services.playing import forget_waiting_counts, lock_game
from games.services.setup import (
    contribution_or_new,
    decline_record,
    lobby_filter,
    require_may_invite,
    require_open,
    require_room,
    require_room_for,
    start_if_full,
)


def invitation_respond(
    *, game_id: Any, user: User, accept: bool, contribution: str | None = None
) -> Game:
    """Accept or decline an invitation; accepting, with the player's `contribution` to the
    deals (made up for them if they sent none).

    Declining does not abort the game, nor open the seat to the lobby: the seat is left
    declined (no player, not joinable) and the creator is told (an email, and a notice on their
    home page and "My games"), who then invites someone else to it (`seat_invite`), opens it
    to the lobby (`seat_open`) or cancels the game (`game_cancel`).
    """
    if accept:
        contribution = contribution_or_new(contribution)
    with transaction.atomic():
        game = lock_game(game_id)
        seats = list(game.seat_list)
        seat = Seat.of_user(seats, user)
        if seat is None or seat.invitation != Seat.Invitation.PENDING:
            raise InvalidAction(
                _("You have no pending invitation to this game."),
                status_code=404 if seat is None else 409,
            )
        require_open(game)
        if accept:
            require_room_for(user, seats, lobby=False)
            seat.invitation = Seat.Invitation.ACCEPTED
            seat.deal_contribution = contribution or ""
            seat.save(update_fields=["invitation", "deal_contribution"])
        else:
            seat.user = None
            seat.invitation = Seat.Invitation.DECLINED
            seat.declined_by = user
            seat.save(update_fields=["user", "invitation", "declined_by"])
            decline_record(game=game, invitee=user)
            tell_creator_declined(game, seat, user)
        game.save(update_fields=["updated_at"])
        if accept:
            start_if_full(game, seats, user)
    return game


def tell_creator_declined(game: Game, seat: Seat, user: User) -> None:
    """The game's creator hears that `user` gave up `seat`: they choose who takes it now."""
    effects.tell_players(
        kind="invitation_declined",
        game=game,
        recipient_ids=[game.created_by_id],
        repeatable=True,
        context={
            "name": player_name(user),
            "username": user.get_username(),
            "seat": seat.position + 1,
        },
    )


def creators_seat(game_id: Any, user: User, position: Any) -> tuple[Game, Seat]:
    """The game (locked) and its seat at `position`, if `user` created the game and it is
    still waiting for players; else the error that says why not."""
    game = lock_game(game_id)
    if game.created_by_id != user.pk:
        raise InvalidAction(
            _("Only the player who created this game can choose who sits at its seats."),
            status_code=403,
        )
    require_open(game)
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


def seat_invite(*, game_id: Any, user: User, position: int, username: str) -> Game:
    """The creator of a game waiting for players invites `username` to the seat at `position`
    (numbered from 0), whose invitation was declined or is not answered yet (that invitation is
    withdrawn). The invited player is told as at the game's creation."""
    with transaction.atomic():
        game, seat = creators_seat(game_id, user, position)
        name = (username or "").strip() if isinstance(username, str) else ""
        if not name:
            raise InvalidAction(_("Name the player to invite."))
        invited = player_get(username=name)
        if invited is None:
            raise InvalidAction(_("There is no player called %(name)s.") % {"name": repr(name)})
        if invited.pk == user.pk:
            raise InvalidAction(_("You cannot invite yourself."))
        if Seat.of_user(game.seat_list, invited) is not None:
            raise GameConflict(
                _("%(name)s already has a seat or an invitation in this game.")
                % {"name": invited.get_username()},
                current_ply=game.ply,
                code="already_invited",
            )
        require_may_invite(inviter=user, invitees=[invited])
        seat.user = invited
        seat.invitation = Seat.Invitation.PENDING
        seat.declined_by = None
        seat.save(update_fields=["user", "invitation", "declined_by"])
        forget_waiting_counts([seat])  # their count of invitations waiting
        game.save(update_fields=["updated_at"])
        effects.tell_players(
            kind="invitation", game=game, recipient_ids=[invited.pk], repeatable=True
        )
    return game


def seat_open(*, game_id: Any, user: User, position: int) -> Game:
    """The creator of a game waiting for players opens the seat at `position` (numbered from
    0), whose invitation was declined or is not answered yet, to anyone in the lobby."""
    with transaction.atomic():
        game, seat = creators_seat(game_id, user, position)
        if not Game.objects.filter(lobby_filter(user), pk=game.pk).exists():
            require_room(user, computer=False, master=False, lobby=True)
        seat.user = None
        seat.invitation = Seat.Invitation.NONE
        seat.declined_by = None
        seat.save(update_fields=["user", "invitation", "declined_by"])
        game.save(update_fields=["updated_at"])
    return game
