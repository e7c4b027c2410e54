from typing import Any

from django.apps import AppConfig


class EventsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "events"

    def ready(self) -> None:
        from events import (
            receivers,
            tasks,  # noqa: F401  (registers them, so they run in-process when eager)
        )

        receivers.connect()

    def sweep(self) -> Any:
        """This app's periodic work, for `manage.py sweep` (Celery beat runs
        `events.tasks.sweep`): events due to start, rounds whose task was lost, seasons due."""
        from events import sweeps

        return sweeps.sweep()
