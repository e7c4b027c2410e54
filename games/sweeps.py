"""What keeps games moving between visits, found in the database by a sweep every minute.

Nothing here waits in a broker for days: a countdown task would be lost with a broker restart.
Each minute the sweep (Celery beat, or `manage.py sweep` under `make run`) reads what is due:

- turns whose deadline passed: a task plays the timeout moves (`services.timeouts_play`);
- computer turns that have waited more than a minute (their task was lost with the broker, a
  killed worker or an emptied queue): the task is sent again.

A minute is long to wait for the computer, so a short check (`computer_turns_check`, every
`COMPUTER_CHECK_SECONDS`) looks at computer turns alone, sooner: a turn that waited its level's
thinking time and `COMPUTER_CHECK_MARGIN` (in a slow lane, the thinking of the games served
before it too) has lost its task, which is sent again, once; if that one is lost as well, the
minute's sweep sends it again, as before.

(The reminders at 80% of a turn's time are the notifications app's: `notifications.sweeps`.)

Sweeps may overlap (a slow one, or several beat hosts): each task re-checks the game under its
row lock and at its ply, and acts only if the game is still as the sweep saw it, so any number
of them act once.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.core.cache import cache
from django.db.models import Q
from django.utils import timezone

from azul.ai.bots import LEVELS
from core.tasks import send
from games.follow_ups import SLOW_LEVELS, computer_move_task
from games.models import Game, Seat
from games.selectors import seats_to_move
from games.selectors.turns import computer_turns_waiting
from games.services.moves import fairest_first

logger = logging.getLogger(__name__)

TIMEOUTS_TASK = "games.tasks.play_timeouts"
# A computer turn older than this has lost its task.
COMPUTER_STALLED = timedelta(minutes=1)
# At most this many games of each kind per sweep; the next sweep takes the rest.
BATCH = 5000

CHECK_TASK = "games.tasks.computer_turns_check"
COMPUTER_CHECK_SECONDS = 10
"""How often the short check runs (Celery beat, `manage.py sweep --every`)."""
COMPUTER_CHECK_MARGIN = timedelta(seconds=10)
"""Beyond its level's thinking time, how long a computer turn waits before the check takes its
task for lost: the time a worker takes to pick a task up, with room for a busy machine. The
worst answer after a lost task is then the thinking time, this margin, the check's interval and
the thinking again."""
RESENT_SECONDS = 3600
"""How long the check remembers the turns it sent again (in the cache): each once."""


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


def _thinking(level: str) -> timedelta:
    """The level's search budget (the levels that search a number of iterations: none)."""
    return timedelta(seconds=LEVELS[level].budget or 0.0)


def computer_turns_check(now: datetime | None = None) -> int:
    """Send again, once, each computer turn that waited longer than its level's thinking time
    and the margin; how many.

    A slow level's turn waits, besides, for the thinking of the games its lane serves before it
    (`games.services.moves`' slow lane: the fairest first): one player's many games queued for
    `strong` are not lost, and get no place sooner than their turn in the lane. The turns sent are
    remembered, so that checks that overlap send each once (a lost task is rare; the sweep sends
    it again a minute on)."""
    now = now or timezone.now()
    waiting = (
        seats_to_move()
        .filter(Q(kind=Seat.Kind.COMPUTER) | Q(autoplay=True))
        .filter(game__status=Game.Status.ACTIVE)
        .filter(game__updated_at__lt=now - COMPUTER_CHECK_MARGIN)
        .values_list("game_id", "game__ply", "kind", "bot_level", "game__updated_at")
        .order_by("game__updated_at")
        .distinct()[:BATCH]
    )
    lanes: dict[str, dict[Any, int]] = {}  # a slow level: its games' places in the lane's order
    count = 0
    seen = set()
    for game_id, ply, kind, level, since in waiting:
        if game_id in seen:  # two computer seats tiling at once: one task plays both
            continue
        seen.add(game_id)
        level = level if kind == Seat.Kind.COMPUTER else Seat.BotLevel.GREEDY
        ahead = 0
        if level in SLOW_LEVELS:
            if level not in lanes:
                order = fairest_first(computer_turns_waiting({level}))
                lanes[level] = {turn.game_id: place for place, turn in enumerate(order)}
            ahead = lanes[level].get(game_id, 0)
        if now < since + _thinking(level) * (ahead + 1) + COMPUTER_CHECK_MARGIN:
            continue
        if not cache.add(f"games:computer-turn-resent:{game_id}:{ply}", 1, RESENT_SECONDS):
            continue
        task, queue, lane = computer_move_task(level)
        send(task, [str(game_id), ply, *lane], queue=queue)
        count += 1
    if count:
        logger.info("sent %d stalled computer turns again", count)
    return count
