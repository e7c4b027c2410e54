from django.apps import AppConfig


class CoreConfig(AppConfig):
    """Plumbing shared by the apps (no models): its template tags and commands."""

    name = "core"
