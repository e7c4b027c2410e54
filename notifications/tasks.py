"""Celery tasks for notifications: thin wrappers that take ids and call a service.

Both are harmless when run twice, or many times at once: a row is sent only by the call that
claims it (`services.notification_send`).
"""

from celery import shared_task
from django.db import OperationalError

from notifications import services

RETRY_ON_DATABASE_ERRORS = {
    "autoretry_for": (OperationalError,),
    "retry_backoff": True,
    "retry_backoff_max": 60,
    "retry_jitter": True,
    "max_retries": 5,
    # Acknowledged once done: a worker that dies mid-send leaves the message to another (whose
    # claim waits for the first one's to run out).
    "acks_late": True,
}


@shared_task(name=services.SEND_TASK, **RETRY_ON_DATABASE_ERRORS)
def send_notification(notification_id: int) -> None:
    """Send notification `notification_id` if it is pending and due (failures are retried by
    the service, with backoff)."""
    services.notification_send(notification_id=notification_id)


@shared_task(name=services.SEND_EVENT_TASK, **RETRY_ON_DATABASE_ERRORS)
def send_event(game_id: str, ply: int, kind: str) -> None:
    """Send the due notifications of one event: a game, its ply and the kind."""
    services.event_send(game_id=game_id, ply=ply, kind=kind)


@shared_task(name="notifications.tasks.sweep", **RETRY_ON_DATABASE_ERRORS)
def sweep() -> None:
    """Every minute (Celery beat): send what is overdue, and the daily digests that are due."""
    services.sweep()
