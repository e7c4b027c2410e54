from django.apps import AppConfig


class AnalysisConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "analysis"

    def ready(self) -> None:
        from analysis import (
            panels,
            tasks,  # noqa: F401  (registers them, so they run in-process when eager)
        )
        from core import slots

        # Its panels on the game's pages (`core.slots`).
        slots.game_page_panels.connect(panels.game_page_panel)
        slots.replay_position_panels.connect(panels.replay_position_panel)
