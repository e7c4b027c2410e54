"""Celery tasks for events: thin wrappers that take ids and call a service, each safe to run
twice (the service re-checks the event under its row lock)."""

from celery import shared_task

from core.ops.metrics import SWEEP_SECONDS
from core.tasks import RETRYING
from events import services, sweeps


@shared_task(name=services.START_TASK, **RETRYING)
def event_start(event_id: int) -> None:
    """Start event `event_id` if it is due and has not started."""
    services.event_start(event_id=event_id)


@shared_task(name=services.ADVANCE_TASK, **RETRYING)
def event_advance(event_id: int) -> None:
    """Seat the next round of event `event_id`, or finish it, if its round is over."""
    services.event_advance(event_id=event_id)


@shared_task(name=sweeps.SWEEP_TASK, **RETRYING)
def sweep() -> None:
    """Every minute (Celery beat): events due to start, rounds over whose task was lost."""
    with SWEEP_SECONDS.labels(sweep="events").time():
        sweeps.sweep()
