"""What keeps events moving between visits, found in the database by a sweep every minute
(Celery beat, or `manage.py sweep` under `make run`): events whose start date came, full events
whose start was lost, rounds that are over but were not moved on (their task was lost), and
league seasons that ended. A task stuck in a broker is never the only copy: the rows say what is
due, and every service re-checks under the event's lock, so overlapping sweeps act once."""

from __future__ import annotations

from django.utils import timezone

from core.tasks import send
from events import leagues, selectors, services

SWEEP_TASK = "events.tasks.sweep"
BATCH = 500


def sweep() -> dict[str, int]:
    now = timezone.now()
    starting = list(selectors.events_due_to_start(now).values_list("pk", flat=True)[:BATCH])
    starting += list(selectors.events_full_waiting().values_list("pk", flat=True)[:BATCH])
    for event_id in starting:
        send(services.START_TASK, [event_id])
    over = list(selectors.events_round_over().values_list("pk", flat=True)[:BATCH])
    for event_id in over:
        send(services.ADVANCE_TASK, [event_id])
    # In the sweep itself rather than a task: a rollover is rare (once a season), and the
    # season's row says whether it is due, so a sweep that dies half way is done by the next.
    seasons = leagues.seasons_roll_over(now, batch=BATCH)
    return {"starting": len(starting), "rounds_over": len(over), "seasons": seasons}
