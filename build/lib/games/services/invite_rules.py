"""Who may invite whom (README, "Fair play"): nobody invites a player who blocked them or whom
they blocked (`accounts.models.Block`), nor, for INVITATION_DECLINE_COOLDOWN_DAYS, a player who
declined one of their invitations; and the lobby keeps players who blocked each other apart.
Checked by every way of inviting (a new game, a seat, a rematch) and by joining from the lobby.
A refusal never says who blocked whom."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from accounts.names import player_name
from accounts.selectors import blocked_either_way
from accounts.time_zones import local_time_text
from games.errors import DeclinedRecently, GameConflict
from games.models import Game, InvitationDecline, Seat


def decline_cooldown() -> timedelta:
    return timedelta(days=settings.INVITATION_DECLINE_COOLDOWN_DAYS)


def require_may_invite(*, inviter: User, invitees: Iterable[User]) -> None:
    """GameConflict (409) if `inviter` may not invite one of `invitees`: `cannot_invite` when
    either has blocked the other, `declined_recently` (with `until`) when the player declined
    an invitation of theirs in the cool-down (two queries at most; none for no invitees)."""
    invitees = [u for u in invitees if u.pk != inviter.pk]
    if not invitees:
        return
    if blocked_either_way(user_id=inviter.pk, other_ids=[u.pk for u in invitees]):
        raise GameConflict(_("You cannot invite this player."), code="cannot_invite")
    decline = (
        InvitationDecline.objects.filter(
            inviter=inviter,
            invitee__in=[u.pk for u in invitees],
            declined_at__gte=timezone.now() - decline_cooldown(),
        )
        .order_by("-declined_at")
        .first()
    )
    if decline is not None:
        invitee = next(u for u in invitees if u.pk == decline.invitee_id)
        until = decline.declined_at + decline_cooldown()
        raise DeclinedRecently(
            _(
                "%(name)s declined an invitation of yours lately: you can invite them again"
                " from %(until)s."
            )
            % {"name": player_name(invitee), "until": local_time_text(until)},
            until=until,
        )


def require_may_join(*, user: User, seats: Iterable[Seat]) -> None:
    """GameConflict (409, `cannot_join`) if a player seated at (or invited to) the game has
    blocked `user` or is blocked by them (one query)."""
    if blocked_either_way(user_id=user.pk, other_ids=[s.user_id for s in seats if s.user_id]):
        raise GameConflict(_("You cannot join this game."), code="cannot_join")


def decline_record(*, game: Game, invitee: User) -> None:
    """`invitee` declined an invitation to `game`, from its creator: remembered for the
    cool-down, whatever becomes of the seat."""
    InvitationDecline.objects.create(invitee=invitee, inviter_id=game.created_by_id, game=game)
