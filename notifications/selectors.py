"""Reads for notifications: what is due in the outbox, whether what a notification says is still
true, and which kinds each channel beside the email takes (the email's own reads:
`email.selectors`)."""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from typing import Any

from django.db.models import Exists, F, OuterRef, Q, QuerySet

from accounts.models import Delivery, Profile
from games.models import Game, LogEntry, Seat
from games.selectors import seats_to_move
from notifications.models import (
    CHANNEL_CHOICES_DEFAULT,
    PREFERENCE_FIELDS,
    ChannelChoice,
    Notification,
    PushSubscription,
    Webhook,
    choice_of_kind,
)


def waiting_seats() -> Any:
    """The seats whose player is to move in an active game."""
    return seats_to_move().filter(game__status=Game.Status.ACTIVE)


def due(*, written_before: datetime.datetime, now: datetime.datetime) -> QuerySet[Notification]:
    """Pending rows due now that no sender holds a live claim on, oldest first: those written to
    be sent later (a grace period, a retry's backoff), for which no task waits; and those sent
    at once, written before `written_before` (their own task had its chance). Read through the
    partial index of pending rows by `send_after`, so the cost follows the backlog, not the
    history."""
    return (
        Notification.objects.filter(status=Notification.Status.PENDING, send_after__lte=now)
        .filter(Q(send_after__gt=F("created_at")) | Q(created_at__lte=written_before))
        .filter(Q(claimed_until__isnull=True) | Q(claimed_until__lt=now))
        .order_by("send_after")
    )


def due_ids(*, written_before: datetime.datetime, now: datetime.datetime, limit: int) -> list[int]:
    return list(due(written_before=written_before, now=now).values_list("pk", flat=True)[:limit])


def still_to_move(*, user_id: Any, game_id: Any, since_ply: int) -> bool:
    """Whether the player is to move in the game and has not moved since `since_ply` (the ply a
    "your turn" or a reminder is about): what such an email says must still be true when it
    goes (3 queries)."""
    game = Game.objects.filter(pk=game_id, status=Game.Status.ACTIVE).first()
    seat = Seat.objects.filter(game_id=game_id, user_id=user_id).first()
    if game is None or seat is None:
        return False
    state = game.engine_state()
    assert state is not None, "an active game has its state"
    if seat.position not in state.to_move:
        return False
    return not LogEntry.objects.filter(
        game_id=game_id, kind=LogEntry.Kind.MOVE, player=seat.position, number__gte=since_ply
    ).exists()


def invitation_obsolete(*, user_id: Any, game_id: Any) -> str:
    """Why an invitation email to the player about the game is no longer true, or "" while it
    is: the game was cancelled or no longer waits for players, or the invitation was answered or
    withdrawn (the seat given to someone else, or opened). One query."""
    game = (
        Game.objects.filter(pk=game_id)
        .annotate(
            invited=Exists(
                Seat.objects.filter(
                    game_id=OuterRef("pk"), user_id=user_id, invitation=Seat.Invitation.PENDING
                )
            )
        )
        .values("status", "invited")
        .first()
    )
    if game is None or game["status"] != Game.Status.OPEN:
        return "The game was cancelled or no longer waits for players."
    if not game["invited"]:
        return "The invitation was answered or withdrawn."
    return ""


def told_of_cancelled_game(*, game_id: Any, recipient_ids: Iterable[Any]) -> list[Any]:
    """Of `recipient_ids`, the players of a cancelled game who are to hear that it is off:
    those who joined it, and those invited whose invitation email reached them. An invitation
    not sent yet (in its grace period, held for a digest not sent yet, or never sent) is simply
    dropped (`services.invitations_drop`), and so is its cancellation: nobody hears of a game
    that is already off. One query."""
    reached = Notification.objects.filter(
        kind=Notification.Kind.INVITATION,
        game_id=game_id,
        recipient_id=OuterRef("user_id"),
        status=Notification.Status.SENT,
    )
    return list(
        Seat.objects.filter(game_id=game_id, user_id__in=list(recipient_ids))
        .filter(~Q(invitation=Seat.Invitation.PENDING) | Exists(reached))
        .values_list("user_id", flat=True)
    )


def without_chat_email_waiting(*, game_id: Any, recipient_ids: Iterable[Any]) -> list[Any]:
    """Of `recipient_ids`, those who want chat emails (`Profile.email_chat` not "never") and
    have no chat email about the game waiting (in its grace period, or held for the digest):
    that one will list the new message too, so several messages make one email. One query."""
    waiting = Notification.objects.filter(
        kind=Notification.Kind.CHAT_MESSAGE,
        game_id=game_id,
        recipient_id=OuterRef("user_id"),
        status__in=[Notification.Status.PENDING, Notification.Status.HELD],
    )
    return list(
        Profile.objects.filter(user_id__in=list(recipient_ids))
        .exclude(email_chat=Delivery.NEVER)
        .filter(~Exists(waiting))
        .values_list("user_id", flat=True)
    )


def channel_choices(*, user_id: Any, channel: str) -> list[str]:
    """The CHANNEL_CHOICES names the player has go to `channel` (push or webhook)."""
    row = ChannelChoice.objects.filter(user_id=user_id, channel=channel).first()
    return list(row.choices) if row is not None else list(CHANNEL_CHOICES_DEFAULT)


def unsubscribed_from(*, player: Any, kind: str, channel: str = "email") -> bool:
    """Whether `player` gets no email (or push notice, or webhook call: `channel`) of `kind`
    already (what the unsubscribe link would do is done): the digest turned off, or the kind's
    choice on the settings page set to never, or left out of the channel's."""
    if channel != "email":
        return choice_of_kind(kind) not in channel_choices(user_id=player.pk, channel=channel)
    profile = player.profile
    if kind == Notification.Kind.DIGEST:
        return not profile.email_digest
    field = PREFERENCE_FIELDS.get(Notification.Kind(kind))
    return field is not None and getattr(profile, field) == Delivery.NEVER


def channels_of(*, user_id: Any) -> dict[str, Any]:
    """The player's push devices, webhooks and the kinds each channel takes, for their data
    download (`azul_site.player_data`): names, addresses and states, not the devices' keys nor
    the webhooks' signing secrets."""
    return {
        "channel_choices": {
            channel: channel_choices(user_id=user_id, channel=channel)
            for channel in ("push", "webhook")
        },
        "push_devices": list(
            PushSubscription.objects.filter(user_id=user_id)
            .order_by("created_at", "pk")
            .values("name", "created_at", "last_success_at")
        ),
        "webhooks": list(
            Webhook.objects.filter(user_id=user_id)
            .order_by("created_at", "pk")
            .values("name", "url", "style", "enabled", "created_at", "last_success_at")
        ),
    }
