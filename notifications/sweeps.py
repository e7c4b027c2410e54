"""What notifications does every minute (Celery beat's `notifications.tasks.sweep`, or
`manage.py sweep`): remind the players whose turn has run 80% of its time, send again the
webhook tests whose task was lost, then send what is still pending and the daily digests that
are due (`services.sweep`).

Sweeps may overlap (a slow one, or several beat hosts): a reminder's unique row (recipient,
game, ply, kind) is its claim, and each email is sent by the one call that claims its row.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from games.models import DAYS_PER_MOVE_CHOICES, Game
from notifications import services
from notifications.models import Notification
from notifications.webhooks import services as webhook_services

# A reminder goes when this share of a turn's time has passed.
REMINDER_AT = 0.8
# At most this many games are reminded per sweep; the next sweep takes the rest.
BATCH = 5000


@dataclass(frozen=True)
class SweepResult:
    reminded: int
    sent: int
    digests_built: int
    digests_sent: int

    def __str__(self) -> str:
        return f"{self.reminded} games reminded, {self.sent} emails, {self.digests_sent} digests"


def sweep(now: datetime | None = None) -> SweepResult:
    now = now or timezone.now()
    reminded = reminders_send(now)
    webhook_services.lost_tests_send(now)
    mail = services.sweep()
    return SweepResult(
        reminded=reminded,
        sent=mail.sent,
        digests_built=mail.digests_built,
        digests_sent=mail.digests_sent,
    )


def _reminder_due(now: datetime) -> Q:
    """The turn's deadline is within the last fifth of its time: as a condition per pace, so
    that the database compares plain times."""
    condition = Q()
    for days, _ in DAYS_PER_MOVE_CHOICES:
        left = timedelta(days=days) * (1 - REMINDER_AT)
        condition |= Q(days_per_move=days, turn_deadline__lte=now + left)
    return condition


def reminders_send(now: datetime) -> int:
    """Remind the players to move in each game past 80% of its turn's time and not reminded at
    this ply yet, unless the computer plays their seat or they are away; how many games."""
    reminded = Notification.objects.filter(
        game=OuterRef("pk"), ply=OuterRef("ply"), kind=Notification.Kind.REMINDER
    )
    games = (
        Game.objects.with_seats()
        .filter(Q(status=Game.Status.ACTIVE), _reminder_due(now), turn_deadline__gt=now)
        .exclude(Exists(reminded))
        .order_by()[:BATCH]
    )
    events = []
    for game in games:
        state = game.engine_state()
        assert state is not None, "an active game has its state"
        to_move = set(state.to_move)
        recipients = [
            seat.user_id
            for seat in game.seat_list
            if seat.position in to_move
            and seat.user is not None
            and not seat.played_by_computer
            and not seat.user.profile.on_vacation(now)
        ]
        if recipients:
            events.append((recipients, game.pk, game.ply))
    # One INSERT for all of them, in one transaction; their tasks are sent once it commits.
    with transaction.atomic():
        services.notify_each(kind="reminder", events=events)
    return len(events)
