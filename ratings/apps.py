from typing import Any

from django.apps import AppConfig


class RatingsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "ratings"

    def ready(self) -> None:
        from core import slots
        from ratings import panels, receivers, tasks  # noqa: F401  (registers them, for eager runs)

        receivers.connect()
        # Why a finished game was not rated, and the levels' ratings on the new-game form.
        slots.game_over_panels.connect(panels.unrated_reason_panel)
        slots.new_game_levels_panels.connect(panels.level_ratings_panel)

    def sweep(self) -> Any:
        """This app's periodic work, for `manage.py sweep` (Celery beat runs
        `ratings.tasks.sweep`): the computer levels' ratings, when due."""
        from ratings import services

        return "levels rated" if services.levels_rate_if_due() else "levels rated recently"
