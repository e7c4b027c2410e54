"""What keeps games moving between visits, found in the database by a sweep every minute.

Nothing here waits in a broker for days: a countdown task would be lost with a broker restart.
Each minute the sweep (Celery beat, or `manage.py sweep` under `make run`) reads what is due:

- turns whose deadline passed: a task plays the timeout moves (`services.timeouts_play`);
- computer turns that have waited more than a minute (their task was lost with the broker, a
  killed worker or an emptied queue): the task is sent again.

(The reminders at 80% of a turn's time are the notifications app's: `notifications.sweeps`.)

Sweeps may overlap (a slow one, or several beat hosts): each task re-checks the game under its
row lock and at its ply, and acts only if the game is still as the sweep saw it, so any number
of them act once.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import Q
from django.utils import timezone

from core.tasks import send
from games.follow_ups import computer_move_task
from games.models import Game, Seat
from games.selectors import seats_to_move

logger = logging.getLogger(__name__)

TIMEOUTS_TASK = "games.tasks.play_timeouts"
# A computer turn older than this has lost its task.
COMPUTER_STALLED = timedelta(minutes=1)
# At most this many games of each kind per sweep; the next sweep takes the rest.
BATCH = 5000


@dataclass(frozen=True)
class SweepResult:
    timeouts: int
    computer_turns: int

    def __str__(self) -> str:
        return f"{self.timeouts} timeouts, {self.computer_turns} computer turns sent again"


def sweep(now: datetime | None = None) -> SweepResult:
    now = now or timezone.now()
    return SweepResult(
        timeouts=timeouts_dispatch(now),
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
        task, queue, lane = computer_move_task(level)
        send(task, [str(game_id), ply, *lane], queue=queue)
        count += 1
    if count:
        logger.info("sent %d computer turns again", count)
    return count
