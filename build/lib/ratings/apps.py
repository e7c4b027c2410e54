from typing import Any

from django.apps import AppConfig


class RatingsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "ratings"

    def ready(self) -> None:
        from ratings import receivers, tasks  # noqa: F401  (registers them, for eager runs)
        from ratings.panels import panels_register

        receivers.connect()
        panels_register()

    def sweep(self) -> Any:
        """This app's periodic work, for `manage.py sweep` (Celery beat runs
        `ratings.tasks.sweep`): the computer levels' ratings, when due."""
        from ratings import services

        return "levels rated" if services.levels_rate_if_due() else "levels rated recently"
