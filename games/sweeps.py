"""What keeps games moving between visits, found in the database by a sweep every minute.

Nothing here waits in a broker for days: a countdown task would be lost with a broker restart.
Each minute the sweep (Celery beat, or `manage.py sweep` under `make run`) reads what is due:

- turns whose deadline passed: a task plays the timeout moves (`services.timeouts_play`);
- turns at 80% of their time without a move: the players to move are reminded, once per turn
  (the notification's unique row is the claim);
- computer turns that have waited more than a minute (their task was lost with the broker, a
  killed worker or an emptied queue): the task is sent again.

Sweeps may overlap (a slow one, or several beat hosts): each task re-checks the game under its
row lock and at its ply, and acts only if the game is still as the sweep saw it, so any number
of them act once.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from core.tasks import send
from games.follow_ups import COMPUTER_MOVE, computer_move_queue
from games.models import DAYS_PER_MOVE_CHOICES, Game, Seat
from games.selectors import seats_to_move
from notifications.models import Notification
from notifications.services import notify_each

logger = logging.getLogger(__name__)

TIMEOUTS_TASK = "games.tasks.play_timeouts"
# A reminder goes when this share of a turn's time has passed.
REMINDER_AT = 0.8
# A computer turn older than this has lost its task.
COMPUTER_STALLED = timedelta(minutes=1)
# At most this many games of each kind per sweep; the next sweep takes the rest.
BATCH = 5000


@dataclass(frozen=True)
class SweepResult:
    timeouts: int
    reminded: int
    computer_turns: int


def sweep(now: datetime | None = None) -> SweepResult:
    now = now or timezone.now()
    return SweepResult(
        timeouts=timeouts_dispatch(now),
        reminded=reminders_send(now),
        computer_turns=computer_turns_dispatch(now),
    )


def _active() -> Q:
    return Q(status=Game.Status.ACTIVE)


def timeouts_dispatch(now: datetime) -> int:
    """Send a task for each game whose turn deadline has passed; how many."""
    due = (
        Game.objects.filter(_active(), turn_deadline__lte=now)
        .order_by("turn_deadline")
        .values_list("pk", "ply")[:BATCH]
    )
    count = 0
    for pk, ply in due:
        send(TIMEOUTS_TASK, [str(pk), ply])
        count += 1
    return count


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
        .filter(_active(), _reminder_due(now), turn_deadline__gt=now)
        .exclude(Exists(reminded))
        .order_by()[:BATCH]
    )
    events = []
    for game in games:
        to_move = set(game.engine_state().to_move)
        recipients = [
            seat.user_id
            for seat in game.seat_list
            if seat.position in to_move
            and seat.user_id is not None
            and not seat.played_by_computer
            and not seat.user.profile.on_vacation(now)
        ]
        if recipients:
            events.append((recipients, game.pk, game.ply))
    # One INSERT for all of them, in one transaction; their tasks are sent once it commits.
    with transaction.atomic():
        notify_each(kind="reminder", events=events)
    return len(events)


def computer_turns_dispatch(now: datetime) -> int:
    """Send the task again for each computer turn that has waited more than a minute; how many."""
    stalled = (
        seats_to_move()
        .filter(Q(kind=Seat.Kind.COMPUTER) | Q(autoplay=True))
        .filter(game__status=Game.Status.ACTIVE, game__updated_at__lt=now - COMPUTER_STALLED)
        .values_list("game_id", "game__ply", "kind", "bot_level")
        .distinct()[:BATCH]
    )
    count = 0
    sent = set()
    for game_id, ply, kind, level in stalled:
        if game_id in sent:  # two computer seats tiling at once: one task plays both
            continue
        sent.add(game_id)
        level = level if kind == Seat.Kind.COMPUTER else Seat.BotLevel.GREEDY
        send(COMPUTER_MOVE, [str(game_id), ply], queue=computer_move_queue(level))
        count += 1
    if count:
        logger.info("sent %d computer turns again", count)
    return count
