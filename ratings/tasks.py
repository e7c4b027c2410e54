"""The ratings' periodic work, routed to the `sweeps` queue (settings' `CELERY_TASK_ROUTES`)."""

from celery import shared_task

from core.ops.metrics import SWEEP_SECONDS
from core.tasks import RETRYING
from ratings import services


@shared_task(name="ratings.tasks.sweep", **RETRYING)
def sweep() -> None:
    """Every ten minutes (Celery beat): the computer levels' ratings fitted again, once their
    last fit is older than RATINGS_LEVELS_EVERY_SECONDS."""
    with SWEEP_SECONDS.labels(sweep="ratings").time():
        services.levels_rate_if_due()
