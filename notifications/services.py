"""Writes for notifications: recording them in the game's transaction, dropping those that are no
longer true, unsubscribing, the player's choices per channel, and the sweep's sending.

How a notification is written, with nothing lost:

1. `notify` (or `notify_players`) writes a pending row per recipient in the caller's
   transaction, the one that changes the game, so the row exists exactly when the change
   committed: one INSERT, which the game's writes (a move) can afford. Rows are unique per
   recipient, game, ply and kind: a repeated call writes nothing. A row is due now or, for
   "your turn", chat messages and invitations, after a grace period (`grace_period`).
2. Once that transaction commits, one Celery task is sent for the event (game, ply, kind), by
   name, if it is due now; a row due later (in its grace period) is sent by the sweep, every
   minute, once it is due. A broker that is down loses nothing: the sweep also sends what is
   still pending a minute after it was written.
3. The outbox (`notifications.outbox`) then sends it: the notification's email, its push notices
   and its webhook calls, each claimed, sent and marked once by one mechanism. The recipient's
   choice for the kind is read then, so a change of mind in between counts: "never" skips the
   email, "digest" holds it for the daily digest, "immediately" sends it, and so does a "your
   turn" or reminder only while it is still true (the player has not moved since), an
   invitation only while it is still pending, and only the first of the day from the same player
   (a hostile player cannot mail someone by inviting and cancelling over and over).

An event's news (`notify_event`, from `events.telling`) goes the same way, about an event rather
than a game: once per recipient, event, round and kind, due at once.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta
from functools import partial
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Max, Q
from django.utils import timezone

from accounts.models import DELIVERY_FIELDS, Delivery
from accounts.services import profile_update
from core.tasks import send
from notifications import outbox, seen, selectors
from notifications.email import digests
from notifications.models import (
    EVENT_KINDS,
    PREFERENCE_FIELDS,
    Channel,
    ChannelChoice,
    ChannelDelivery,
    Notification,
    PushSubscription,
    Webhook,
    WebhookTest,
    choice_of_kind,
    kinds_sharing_choice,
)

logger = logging.getLogger(__name__)

Kind = Notification.Kind
Status = Notification.Status


# -- writing notifications -----------------------------------------------------------------------


def notify(
    *,
    recipient_id: Any,
    kind: str,
    game_id: Any = None,
    ply: int = 0,
    context: dict[str, Any] | None = None,
) -> None:
    """Record a notification for one player about a game; see `notify_players`."""
    notify_players(
        recipient_ids=[recipient_id], kind=kind, game_id=game_id, ply=ply, context=context
    )


def notify_players(
    *,
    recipient_ids: Iterable[Any],
    kind: str,
    game_id: Any,
    ply: int = 0,
    context: dict[str, Any] | None = None,
) -> None:
    """Record a notification of `kind` about game `game_id` at `ply` for each recipient (one
    INSERT, however many recipients); each one's choice for the kind is applied when it is
    sent.

    Call it inside the transaction that writes the change to the game, so that the
    notification exists if and only if the change does; a call repeated for the same
    recipient, game, ply and kind writes nothing. The emails are sent by a task once the
    transaction commits; nothing here can fail the caller's write after it commits.

    `ply` is the game's ply the notification is about (one "your turn" per move, one reminder
    per turn). `context` is what the email shows that the game does not keep: for a timeout,
    `{"move": "F3 blue 2"}`, the move the server made.
    """
    notify_each(kind=kind, events=[(recipient_ids, game_id, ply)], context=context)


def notify_each(
    *,
    kind: str,
    events: Iterable[tuple[Iterable[Any], Any, int]],
    context: dict[str, Any] | None = None,
) -> None:
    """`notify_players` for several events of one kind, each (recipient ids, game id, ply), in
    one INSERT: the sweep's reminders for many games at once."""
    kind = Kind(kind)
    if kind == Kind.DIGEST:
        raise ValueError("Digests are built by the sweep, not notified.")
    now = timezone.now()
    due = now + grace_period(kind)
    rows, sends = [], []
    for recipient_ids, game_id, ply in events:
        if game_id is None:
            raise ValueError(f"A {kind.label.lower()} notification is about a game: give game_id.")
        # In a fixed order, so that two transactions inserting the same rows wait for each
        # other in the same order rather than deadlock.
        recipients = sorted(set(recipient_ids))
        rows += [
            Notification(
                recipient_id=user_id,
                kind=kind,
                game_id=game_id,
                ply=ply,
                context=context or {},
                send_after=due,
            )
            for user_id in recipients
        ]
        if recipients:
            sends.append((str(game_id), ply))
    if not rows:
        return
    Notification.objects.bulk_create(rows, ignore_conflicts=True)
    if due > now:
        # Not due yet (in its grace period): the sweep sends it when it is, rather
        # than a task held back by the broker (lost if the broker restarts, and a move's
        # costliest step).
        return
    for game_id, ply in sends:
        transaction.on_commit(partial(_enqueue_event, game_id, ply, kind.value))


def grace_period(kind: str) -> timedelta:
    """How long a new notification of `kind` waits before it is sent: a "your turn", so that
    two players playing live get no email per move; an invitation, so that an invitation
    withdrawn at once (the game cancelled, the seat given to someone else) sends nothing
    (`outbox` drops what is no longer true when it is due)."""
    seconds = {
        Kind.YOUR_TURN: settings.NOTIFY_GRACE_SECONDS,
        # As "your turn": the messages of a live exchange make one email, none if the player
        # has the game open.
        Kind.CHAT_MESSAGE: settings.NOTIFY_GRACE_SECONDS,
        Kind.INVITATION: settings.NOTIFY_INVITATION_GRACE_SECONDS,
    }.get(Kind(kind), 0)
    return timedelta(seconds=seconds)


def event_ply(*, game_id: Any, kind: str, at_least: int) -> int:
    """The `ply` to record a notification of `kind` about a game under, for an event that can
    happen more than once at the same ply of the game: invitations declined and seats
    invited again before the game starts (all at ply 0), two players resigning between two
    moves. `at_least` (the game's ply) when no notification of the kind about the game has it
    yet, else one past the last: so each event is one row per recipient, where the game's ply
    alone would make the second a repeat, and send nothing. Call it under the game's lock, so
    that two events cannot take the same number (one query)."""
    last = Notification.objects.filter(game_id=game_id, kind=kind).aggregate(last=Max("ply"))[
        "last"
    ]
    return at_least if last is None or last < at_least else last + 1


def _send_task(name: str, args: list[Any], countdown: float = 0) -> None:
    """Send a task by name; one that cannot be sent now is left to the sweep."""
    if not send(name, args, countdown):
        logger.warning("Could not send %s%r; the sweep will send its emails.", name, args)


def _enqueue_event(game_id: str, ply: int, kind: str, countdown: float = 0) -> None:
    _send_task(outbox.SEND_EVENT_TASK, [game_id, ply, kind], countdown)


def _enqueue(notification_ids: list[int], countdown: float = 0) -> None:
    for notification_id in notification_ids:
        _send_task(outbox.SEND_TASK, [notification_id], countdown)


def event_send(*, game_id: Any, ply: int, kind: str) -> int:
    """Send the due, pending notifications of one event (game, ply, kind); how many went."""
    pending = Notification.objects.filter(
        game_id=game_id, ply=ply, kind=kind, status=Status.PENDING
    ).values_list("pk", flat=True)
    return sum(outbox.notification_send(notification_id=pk) for pk in list(pending))


def turn_emails_skip(*, user_id: Any, game_id: Any) -> int:
    """The game needs nothing more of the player (they resigned it): their "your turn" and
    reminder emails about it that have not gone yet are skipped (one UPDATE, in the caller's
    write). Returns how many were skipped."""
    return Notification.objects.filter(
        recipient_id=user_id,
        game_id=game_id,
        kind__in=seen.SEEN_KINDS,
        status__in=[Status.PENDING, Status.HELD],
    ).update(status=Status.SKIPPED, last_error=seen.SEEN_REASON)


def invitations_drop(*, game_id: Any) -> int:
    """The game was cancelled: its invitation emails not sent yet (in their grace period, or
    held for a digest) are skipped, rather than tell of a game that is off (one UPDATE, in the
    cancellation's write). Returns how many."""
    return Notification.objects.filter(
        game_id=game_id, kind=Kind.INVITATION, status__in=[Status.PENDING, Status.HELD]
    ).update(
        status=Status.SKIPPED, last_error="The game was cancelled or no longer waits for players."
    )


def notifications_forget_player(*, user_id: Any, old_username: str, new_username: str) -> int:
    """The player deleted their account (`azul_site.account_deletion`): every notification to
    them goes (sent ones held their address's history), and those not sent yet that name them
    to others (who resigned, who declined) name them by `new_username`, the deleted account's
    placeholder, which emails show as "deleted player" in the recipient's language. Returns how
    many rows went."""
    deleted, _by_model = Notification.objects.filter(recipient_id=user_id).delete()
    # Their webhooks (URLs and secrets of theirs) and the record of their tests go too.
    Webhook.objects.filter(user_id=user_id).delete()
    WebhookTest.objects.filter(user_id=user_id).delete()
    # So do their devices (each endpoint a secret of theirs) and their channels' choices.
    PushSubscription.objects.filter(user_id=user_id).delete()
    ChannelChoice.objects.filter(user_id=user_id).delete()
    about_them = Notification.objects.filter(
        context__username=old_username, status__in=[Status.PENDING, Status.HELD]
    )
    for notification in about_them:
        context = {**notification.context, "name": new_username, "username": new_username}
        notification.context = context
        notification.save(update_fields=["context"])
    return deleted


def notifications_retry(*, notification_ids: Iterable[int]) -> int:
    """Give failed notifications a new set of attempts, from now (the admin's action)."""
    ids = list(
        Notification.objects.filter(
            pk__in=list(notification_ids), status=Status.FAILED
        ).values_list("pk", flat=True)
    )
    with transaction.atomic():
        count = Notification.objects.filter(pk__in=ids, status=Status.FAILED).update(
            status=Status.PENDING,
            attempts=0,
            send_after=timezone.now(),
            claimed_until=None,
        )
        transaction.on_commit(partial(_enqueue, ids))
    return count


# -- the sweep (the daily digest is in notifications.email.digests) -----------------------------


@dataclass(frozen=True)
class SweepResult:
    sent: int
    digests_built: int
    digests_sent: int


def sweep() -> SweepResult:
    """Send what is still pending a minute after it was due (its task was lost, or never sent
    because the broker was down), then build and send the daily digests that are due. Any
    number of sweeps may run at once: each row is sent by the one that claims it."""
    sent = outbox.due_send()
    built = digests.digests_build()
    digests_sent = sum(outbox.notification_send(notification_id=pk) for pk in built)
    return SweepResult(sent=sent, digests_built=len(built), digests_sent=digests_sent)


# -- the choices per channel ---------------------------------------------------------------------


def channel_choices_set(*, user_id: Any, channel: str, choices: list[str]) -> None:
    """Store the player's choices for `channel` (the settings page, the API, a turn-off link)."""
    ChannelChoice.objects.update_or_create(
        user_id=user_id, channel=channel, defaults={"choices": sorted(set(choices))}
    )


# -- unsubscribing -------------------------------------------------------------------------------


def unsubscribe(*, user_id: Any, kind: str, channel: str = Channel.EMAIL) -> None:
    """Turn this kind of email (or push notice, or webhook call: `channel`) off for the player
    (the one-click link), and drop what of that kind has not gone yet on that channel. Turning
    the digest off turns off what was routed to it too."""
    kind = Kind(kind)
    if channel != Channel.EMAIL:
        choice = choice_of_kind(kind)
        with transaction.atomic():
            choices = selectors.channel_choices(user_id=user_id, channel=channel)
            channel_choices_set(
                user_id=user_id, channel=channel, choices=[c for c in choices if c != choice]
            )
            ChannelDelivery.objects.filter(
                notification__recipient_id=user_id,
                notification__kind__in=kinds_sharing_choice(kind),
                channel=channel,
                status=ChannelDelivery.Status.PENDING,
            ).update(status=ChannelDelivery.Status.SKIPPED, last_error="The player unsubscribed.")
        return
    user = get_user_model().objects.select_related("profile").get(pk=user_id)
    if kind == Kind.DIGEST:
        changes: dict[str, Any] = {"email_digest": False}
        changes.update(
            {
                f: Delivery.NEVER
                for f in DELIVERY_FIELDS
                if getattr(user.profile, f) == Delivery.DIGEST
            }
        )
        dropped = Q(status=Status.HELD) | Q(kind=Kind.DIGEST, status=Status.PENDING)
    else:
        # The choice may cover other kinds too (`kinds_sharing_choice`): what of those has not
        # gone yet goes with it.
        changes = {PREFERENCE_FIELDS[kind]: Delivery.NEVER}
        dropped = Q(kind__in=kinds_sharing_choice(kind), status__in=[Status.PENDING, Status.HELD])
    with transaction.atomic():
        profile_update(user=user, **changes)
        Notification.objects.filter(dropped, recipient_id=user_id).update(
            status=Status.SKIPPED, last_error="The player unsubscribed."
        )


def notify_event(
    *,
    recipient_ids: Iterable[Any],
    kind: str,
    event_id: Any,
    round: int = 0,
    context: dict[str, Any] | None = None,
) -> None:
    """Record a notification of `kind` (one of EVENT_KINDS) about event `event_id` at its
    `round` for each recipient (one INSERT), in the caller's transaction (the event's write):
    told once per recipient, event, round and kind, so a repeated call writes nothing (and a
    player cannot be mailed over and over by entering and leaving). `context` is what the
    messages show that the notifications do not keep: the event's name (`{"event": name}`).

    Due at once (no grace period: nothing an event tells is undone a moment later), and sent as
    any notification is: by a task per row once the transaction commits, else by the sweep; the
    player's choice (`Profile.email_events`, and "events" on push and webhooks) is read then,
    "digest" holding the email for the daily digest like any other kind.
    """
    kind = Kind(kind)
    if kind not in EVENT_KINDS:
        raise ValueError(f"{kind} is not about an event.")
    if event_id is None:
        raise ValueError("An event's notification is about an event: give event_id.")
    # In a fixed order, as `notify_each`: two writes of the same rows wait rather than deadlock.
    recipients = sorted(set(recipient_ids))
    if not recipients:
        return
    now = timezone.now()
    Notification.objects.bulk_create(
        [
            Notification(
                recipient_id=user_id,
                kind=kind,
                event_ref=event_id,
                ply=round,
                context=context or {},
                send_after=now,
            )
            for user_id in recipients
        ],
        ignore_conflicts=True,
    )
    transaction.on_commit(
        partial(_enqueue_event_news, int(event_id), round, kind.value, recipients)
    )


def _enqueue_event_news(event_id: int, round: int, kind: str, recipient_ids: list[Any]) -> None:
    """Once the event's write committed: a task for each of its rows still pending (their ids
    are looked up now, which keeps the event's write to its one INSERT)."""
    pending = Notification.objects.filter(
        kind=kind,
        event_ref=event_id,
        ply=round,
        recipient_id__in=recipient_ids,
        status=Status.PENDING,
    ).values_list("pk", flat=True)
    _enqueue(list(pending))
