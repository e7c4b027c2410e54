from typing import Any

from django.apps import AppConfig


class EventsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "events"

    def ready(self) -> None:
        from core import slots
        from events import (
            panels,
            receivers,
            tasks,  # noqa: F401  (registers them, so they run in-process when eager)
        )

        receivers.connect()
        # Which event a game is, on its page; a player's events, on theirs (`core.slots`).
        slots.game_page_panels.connect(panels.game_page_panel)
        slots.player_page_panels.connect(panels.player_page_panel)
        slots.calendar_feed_entries.connect(panels.calendar_feed_entries)

    def sweep(self) -> Any:
        """This app's periodic work, for `manage.py sweep` (Celery beat runs
        `events.tasks.sweep`): events due to start, rounds whose task was lost, seasons due."""
        from events import sweeps

        return sweeps.sweep()
