from django.apps import AppConfig


class AnalysisConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "analysis"

    def ready(self) -> None:
        from analysis import tasks  # noqa: F401  (registers them, so they run in-process when eager)
        from analysis.panels import panels_register

        # Its panels on the game's pages (`core.panels`).
        panels_register()
