"""Celery tasks for notifications: thin wrappers that take ids and call a service.

Each is harmless when run twice, or many times at once: a row is sent only by the call that
claims it (`outbox`: `notification_send`, `delivery_send`; `webhook_test_send`).
"""

from celery import shared_task

from core.ops.metrics import SWEEP_SECONDS
from core.tasks import RETRYING
from notifications import outbox, services, sweeps
from notifications.webhooks import services as webhook_services


@shared_task(name=outbox.SEND_TASK, **RETRYING)
def send_notification(notification_id: int) -> None:
    """Send notification `notification_id` if it is pending and due (failures are retried by
    the service, with backoff)."""
    outbox.notification_send(notification_id=notification_id)


@shared_task(name=outbox.SEND_EVENT_TASK, **RETRYING)
def send_event(game_id: str, ply: int, kind: str) -> None:
    """Send the due notifications of one event: a game, its ply and the kind."""
    services.event_send(game_id=game_id, ply=ply, kind=kind)


@shared_task(name=outbox.SEND_DELIVERY_TASK, **RETRYING)
def send_delivery(delivery_id: int) -> None:
    """Send push notice or webhook call `delivery_id` if it is pending and due."""
    outbox.delivery_send(delivery_id=delivery_id)


@shared_task(name=webhook_services.TEST_TASK, **RETRYING)
def send_webhook_test(test_id: int) -> None:
    """Send webhook test `test_id` if it has no answer yet, and keep the answer."""
    webhook_services.webhook_test_send(test_id=test_id)


@shared_task(name="notifications.tasks.sweep", **RETRYING)
def sweep() -> None:
    """Every minute (Celery beat): reminders, what is overdue, and the daily digests that are
    due."""
    with SWEEP_SECONDS.labels(sweep="notifications").time():
        sweeps.sweep()
