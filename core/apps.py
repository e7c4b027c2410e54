from typing import Any

from django.apps import AppConfig


class CoreConfig(AppConfig):
    """Plumbing shared by the apps: its template tags and commands, and the rate limits' shared
    counts (`core.models`)."""

    name = "core"
    default_auto_field = "django.db.models.BigAutoField"

    def sweep(self) -> Any:
        """This app's periodic work, for `manage.py sweep` (Celery beat runs `core.tasks.sweep`):
        the rate limits' expired counts and locks."""
        from core.outages import cache

        return f"{cache.expired_counts_delete()} expired rate-limit counts"
