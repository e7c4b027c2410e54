"""A player leaves every game for good, because they deleted their account
(`azul_site.account_deletion`): each game is left through the service that leaves it for any
player, so that the others are told and the ratings follow the usual rules.

- a game they created that waits for players is cancelled (`game_cancel`);
- an invitation to a game waiting for players is declined (`invitation_respond`);
- a seat they took in another's game waiting for players is given up (`seat_give_up`): opened to
  the lobby again if they joined from it, or left declined (for its creator to decide) if they
  had accepted an invitation to it;
- a game in progress is resigned (`game_resign`);
- finished games keep their seat, which names them "deleted player" from now on.

Called inside the deletion's transaction, with the player's row locked and already marked
deleted (so every message these write names them "deleted player"). Each game is locked by its
own service, one at a time, as every write to a game locks it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db import transaction
from django.db.models import Q

from accounts.models import User
from games.errors import GameError
from games.models import Game, InvitationDecline, Seat
from games.services.endings import game_resign
from games.services.invitations import invitation_respond, tell_creator_declined
from games.services.locking import lock_game, seat_of_user
from games.services.setup import game_cancel


def seat_give_up(*, game_id: Any, user: User) -> None:
    """`user` gives up the seat they took in another player's game that waits for players:
    nothing to do if the game started or ended since, or they have no seat taken there."""
    with transaction.atomic():
        game = lock_game(game_id)
        seat = seat_of_user(game.seat_list, user)
        if (
            game.status != Game.Status.OPEN
            or seat is None
            or seat.invitation == Seat.Invitation.PENDING
        ):
            return
        seat.user = None
        seat.deal_contribution = ""
        if seat.invitation == Seat.Invitation.ACCEPTED:
            # The creator chose this player: they choose again, as after a declined invitation.
            seat.invitation = Seat.Invitation.DECLINED
            seat.declined_by = user
            tell_creator_declined(game, seat, user)
        seat.save(update_fields=["user", "invitation", "declined_by", "deal_contribution"])
        game.save(update_fields=["updated_at"])


def player_games_leave(*, user: User) -> None:
    """`user` leaves every game that is not over (see the module docstring).

    A game that changed between the read and its service (another player's move ended it, the
    last seat was filled) makes that service refuse; the next pass reads the games again and
    leaves each as it is then. Each service runs in a savepoint of its own, so a refusal undoes
    nothing else."""
    for _attempt in range(3):
        left_all = True
        unfinished = Game.objects.filter(status__in=[Game.Status.OPEN, Game.Status.ACTIVE])
        created = unfinished.filter(status=Game.Status.OPEN, created_by=user)
        seats = Seat.objects.filter(user=user, game__in=unfinished, resigned_at__isnull=True)
        for game_id in created.values_list("pk", flat=True):
            left_all &= _leave(game_cancel, game_id=game_id, user=user)
        for seat in seats.select_related("game").order_by("game_id"):
            game = seat.game
            if game.status == Game.Status.ACTIVE:
                left_all &= _leave(game_resign, game_id=game.pk, user=user)
            elif seat.invitation == Seat.Invitation.PENDING:
                left_all &= _leave(invitation_respond, game_id=game.pk, user=user, accept=False)
            else:
                left_all &= _leave(seat_give_up, game_id=game.pk, user=user)
        if left_all:
            break
    # The invitations' cooldowns named them: nobody can invite a deleted player anyway.
    InvitationDecline.objects.filter(Q(invitee=user) | Q(inviter=user)).delete()


def _leave(service: Callable[..., Any], **arguments: Any) -> bool:
    try:
        service(**arguments)
    except GameError:
        return False
    return True
