"""Writes for notifications: the outbox of emails about games.

How a notification goes out, with nothing lost and nothing sent twice:

1. `notify` (or `notify_players`) writes a pending row per recipient in the caller's
   transaction, the one that changes the game, so the row exists exactly when the change
   committed: one INSERT, which the game's writes (a move) can afford. Rows are unique per
   recipient, game, ply and kind: a repeated call writes nothing. A row is due now or, for
   "your turn", after the grace period.
2. Once that transaction commits, one Celery task is sent for the event (game, ply, kind), by
   name, if it is due now; a row due later (a "your turn" in its grace period) is sent by the
   sweep, every minute, once it is due. A broker that is down loses nothing: the sweep also
   sends what is still pending a minute after it was written.
3. The task (and the sweep) claims each row with one compare-and-swap UPDATE (pending, due, not
   claimed or claim run out), and only the one that claimed it goes on. The recipient's choice
   for the kind is read then, so a change of mind in between counts: "never" skips the row,
   "digest" holds it for the daily digest, "immediately" sends it, and so does a "your turn"
   or reminder only while it is still true (the player has not moved since). Then the row is
   marked sent, or after a failed send `send_after` is pushed back (exponential backoff) until
   NOTIFY_MAX_ATTEMPTS attempts, and then it is marked failed.

The one way an email can go twice: a sender that dies after the SMTP server accepted the message
and before it marked the row sent leaves a claim that runs out, and the row is sent again. SMTP
cannot be asked whether a message went, so this errs on the side of sending.
"""

from __future__ import annotations

import datetime
import logging
import zoneinfo
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta
from functools import partial
from typing import Any

from allauth.account.models import EmailAddress
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import F, Max, Q, QuerySet
from django.utils import timezone

from accounts.models import DELIVERY_FIELDS, Delivery, time_zone_names
from accounts.services import profile_update
from core.tasks import send
from games.models import Game
from games.presenters.lists import games_for_user
from notifications import emails, seen, selectors
from notifications.models import PREFERENCE_FIELDS, Notification, kinds_sharing_choice

logger = logging.getLogger(__name__)

Kind = Notification.Kind
Status = Notification.Status

SEND_TASK = "notifications.tasks.send_notification"
SEND_EVENT_TASK = "notifications.tasks.send_event"
# The sweep leaves a row sent at once to its own task for this long after it was written.
SWEEP_LAG = timedelta(minutes=1)
SWEEP_BATCH = 500
DIGEST_BATCH = 500
# How long a sender owns a claimed row: well over the SMTP timeout (EMAIL_TIMEOUT), so that a
# slow send is never claimed again while it is still going.
CLAIM = timedelta(minutes=5)
RETRY_FIRST = timedelta(minutes=1)
RETRY_LONGEST = timedelta(hours=2)
ERROR_MAX_LENGTH = 2000


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
    due = now + timedelta(seconds=settings.NOTIFY_GRACE_SECONDS) if kind == Kind.YOUR_TURN else now
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
        # Not due yet (a "your turn" in its grace period): the sweep sends it when it is, rather
        # than a task held back by the broker (lost if the broker restarts, and a move's
        # costliest step).
        return
    for game_id, ply in sends:
        transaction.on_commit(partial(_enqueue_event, game_id, ply, kind.value))


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
    _send_task(SEND_EVENT_TASK, [game_id, ply, kind], countdown)


def _enqueue(notification_ids: list[int], countdown: float = 0) -> None:
    for notification_id in notification_ids:
        _send_task(SEND_TASK, [notification_id], countdown)


def event_send(*, game_id: Any, ply: int, kind: str) -> int:
    """Send the due, pending notifications of one event (game, ply, kind); how many went."""
    pending = Notification.objects.filter(
        game_id=game_id, ply=ply, kind=kind, status=Status.PENDING
    ).values_list("pk", flat=True)
    return sum(notification_send(notification_id=pk) for pk in list(pending))


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


# -- sending -------------------------------------------------------------------------------------


def notification_send(*, notification_id: int) -> bool:
    """Send the notification if it is pending and due and this call claims it; True if this call
    sent it. Harmless to call any number of times, at once or one after another."""
    now = timezone.now()
    claimed = (
        Notification.objects.filter(pk=notification_id, status=Status.PENDING, send_after__lte=now)
        .filter(Q(claimed_until__isnull=True) | Q(claimed_until__lt=now))
        .update(claimed_until=now + CLAIM, attempts=F("attempts") + 1)
    )
    if claimed != 1:
        return False
    notification = Notification.objects.select_related("recipient__profile").get(pk=notification_id)
    if seen.seen_since_written(notification):
        Notification.objects.filter(pk=notification_id, status=Status.PENDING).update(
            status=Status.SKIPPED, last_error=seen.SEEN_REASON, claimed_until=None
        )
        return False
    if _held_for_digest(notification):
        Notification.objects.filter(pk=notification_id, status=Status.PENDING).update(
            status=Status.HELD, send_after=None, claimed_until=None
        )
        return False
    address, reason = _address_for(notification)
    if address is None:
        Notification.objects.filter(pk=notification_id, status=Status.PENDING).update(
            status=Status.SKIPPED, last_error=reason, claimed_until=None
        )
        return False
    try:
        email = emails.build(notification, to=address)
        email.message.send()
    except Exception as exc:
        # Whatever failed (the SMTP server, the connection, the rendering) fails this attempt.
        _record_failure(notification, exc)
        return False
    sent_at = timezone.now()
    with transaction.atomic():
        # By id alone: the email went, whatever happened to the row meanwhile (turn_emails_skip).
        Notification.objects.filter(pk=notification_id).update(
            status=Status.SENT, sent_at=sent_at, claimed_until=None, last_error=""
        )
        if notification.kind == Kind.DIGEST:
            carried = Notification.objects.filter(status=Status.HELD, digest_id=notification_id)
            carried.filter(pk__in=email.carried_ids).update(status=Status.SENT, sent_at=sent_at)
            # Held for this digest, but of a kind turned off since: left out of it, and done.
            carried.update(status=Status.SKIPPED, last_error="The player turned this kind off.")
    return True


def _held_for_digest(notification: Notification) -> bool:
    """The player wants this kind in the daily digest (and gets the digest)."""
    if notification.kind == Kind.DIGEST:
        return False
    profile = notification.recipient.profile
    delivery = getattr(profile, PREFERENCE_FIELDS[Kind(notification.kind)])
    return delivery == Delivery.DIGEST and profile.email_digest


def _address_for(notification: Notification) -> tuple[str | None, str]:
    """Where to send it, or None and why not: the player has since turned the kind off, left,
    has moved since (a "your turn" or a reminder that is no longer true), or has no verified
    address (mail goes only to addresses their owner confirmed)."""
    recipient = notification.recipient
    profile = recipient.profile
    if not recipient.is_active:
        return None, "The player's account is inactive."
    if notification.kind == Kind.DIGEST:
        if not profile.email_digest:
            return None, "The player turned the digest off."
    elif getattr(profile, PREFERENCE_FIELDS[Kind(notification.kind)]) != Delivery.IMMEDIATELY:
        return None, "The player turned this kind of email off."
    if notification.kind in (Kind.YOUR_TURN, Kind.REMINDER) and not selectors.still_to_move(
        user_id=recipient.pk, game_id=notification.game_id, since_ply=notification.ply
    ):
        return None, "The player has moved since."
    address = (
        EmailAddress.objects.filter(user_id=recipient.pk, verified=True)
        .order_by("-primary", "id")
        .values_list("email", flat=True)
        .first()
    )
    if address is None:
        return None, "The player has no verified email address."
    return address, ""


def retry_delay(attempts: int) -> timedelta:
    """How long to wait after the `attempts`-th failed attempt: 1, 2, 4, ... minutes."""
    return min(RETRY_FIRST * 2 ** max(attempts - 1, 0), RETRY_LONGEST)


def _record_failure(notification: Notification, exc: Exception) -> None:
    error = f"{type(exc).__name__}: {exc}"[:ERROR_MAX_LENGTH]
    mine = Notification.objects.filter(pk=notification.pk, status=Status.PENDING)
    if notification.attempts >= settings.NOTIFY_MAX_ATTEMPTS:
        logger.error(
            "Notification %s failed for good after %s attempts: %s",
            notification.pk,
            notification.attempts,
            error,
        )
        mine.update(status=Status.FAILED, last_error=error, claimed_until=None)
        return
    delay = retry_delay(notification.attempts)
    logger.warning(
        "Notification %s failed (attempt %s), retrying in %s: %s",
        notification.pk,
        notification.attempts,
        delay,
        error,
    )
    # No task with a countdown for the retry: the sweep sends it (within a minute of its new
    # time), and a broker holding a message for hours would redeliver it meanwhile.
    mine.update(send_after=timezone.now() + delay, last_error=error, claimed_until=None)


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


# -- the sweep and the daily digest --------------------------------------------------------------


@dataclass(frozen=True)
class SweepResult:
    sent: int
    digests_built: int
    digests_sent: int


def sweep() -> SweepResult:
    """Send what is still pending a minute after it was due (its task was lost, or never sent
    because the broker was down), then build and send the daily digests that are due. Any
    number of sweeps may run at once: each row is sent by the one that claims it."""
    now = timezone.now()
    due = selectors.due_ids(written_before=now - SWEEP_LAG, now=now, limit=SWEEP_BATCH)
    sent = sum(notification_send(notification_id=pk) for pk in due)
    built = digests_build()
    digests_sent = sum(notification_send(notification_id=pk) for pk in built)
    return SweepResult(sent=sent, digests_built=len(built), digests_sent=digests_sent)


def digest_days(now: datetime.datetime) -> dict[datetime.date, list[str]]:
    """The time zones where it is now the digest hour (08:00-08:59), by their local date."""
    days: dict[datetime.date, list[str]] = defaultdict(list)
    for name in time_zone_names():
        local = now.astimezone(zoneinfo.ZoneInfo(name))
        if local.hour == settings.NOTIFY_DIGEST_HOUR:
            days[local.date()].append(name)
    return days


def digests_build() -> list[int]:
    """Build the digests due now: for each player whose local time is in the digest hour, with
    the digest on, none for today yet, and a game waiting for them or something held for the
    digest. Returns the new digests' ids (pending, due now).

    The digest goes in the first sweep of the digest hour. A day the sweep misses that whole
    hour has no digest: what was held goes in the next one.
    """
    now = timezone.now()
    built = []
    for local_date, zones in digest_days(now).items():
        recipients = selectors.digest_recipients(
            time_zones=zones, local_date=local_date, limit=DIGEST_BATCH
        )
        for user_id in recipients:
            digest_id = _digest_create(user_id=user_id, local_date=local_date, now=now)
            if digest_id is not None:
                built.append(digest_id)
    return built


def _digest_game(summary: dict[str, Any]) -> dict[str, Any]:
    deadline = summary["turn_deadline"]
    return {
        "id": str(summary["id"]),
        "opponents": [p["display_name"] for p in summary["players"] if not p["is_viewer"]],
        "deadline": deadline.isoformat() if deadline else None,
    }


def _digest_drop_seen(held: QuerySet[Notification]) -> None:
    """Skip the held "your turn" and reminder emails whose game the player has seen since they
    were written: the digest does not carry them."""
    rows = list(
        held.filter(kind__in=seen.SEEN_KINDS).values_list(
            "pk", "recipient_id", "game_id", "created_at"
        )
    )
    dropped = seen.seen_since_written_ids(rows)
    if dropped:
        held.filter(pk__in=dropped).update(status=Status.SKIPPED, last_error=seen.SEEN_REASON)


def _digest_create(
    *, user_id: Any, local_date: datetime.date, now: datetime.datetime
) -> int | None:
    """The player's digest for `local_date`, carrying what is held for it; None when there is
    nothing for one after all, or another sweep built it first (the unique (recipient, day)
    constraint decides)."""
    user = get_user_model().objects.get(pk=user_id)
    waiting = games_for_user(user=user, status=Game.Status.ACTIVE)["my_turn"]
    with transaction.atomic():
        held = Notification.objects.filter(
            recipient_id=user_id, status=Status.HELD, digest__isnull=True
        )
        _digest_drop_seen(held)
        if not waiting and not held.exists():
            return None
        try:
            with transaction.atomic():  # a savepoint: the constraint may refuse the row
                digest = Notification.objects.create(
                    recipient_id=user_id,
                    kind=Kind.DIGEST,
                    digest_date=local_date,
                    status=Status.PENDING,
                    send_after=now,
                    context={"games": [_digest_game(g) for g in waiting]},
                )
        except IntegrityError:
            return None  # another sweep built today's digest first
        digest_id = digest.pk
        held.update(digest_id=digest_id)
    return digest_id


# -- unsubscribing -------------------------------------------------------------------------------


def unsubscribe(*, user_id: Any, kind: str) -> None:
    """Turn this kind of email off for the player (the one-click link), and drop what of that
    kind has not gone yet. Turning the digest off turns off what was routed to it too."""
    kind = Kind(kind)
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
