"""The analysis's tasks, routed to the `analysis` queue (settings' `CELERY_TASK_ROUTES`)."""

from celery import shared_task

from analysis import services
from core.ops.metrics import SWEEP_SECONDS
from core.tasks import RETRYING


@shared_task(name=services.ANALYSE_TASK, **RETRYING)
def analyse_game(game_id: str) -> None:
    """Compute the game's pending analysis; does nothing if it is done already."""
    services.analysis_run(game_id=game_id)


@shared_task(name="analysis.tasks.sweep", **RETRYING)
def sweep() -> None:
    """Every few minutes (Celery beat): send again the analyses whose task was lost."""
    with SWEEP_SECONDS.labels(sweep="analysis").time():
        services.analyses_resend()
