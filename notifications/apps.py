from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "notifications"

    def ready(self) -> None:
        # Registers the tasks in every process, so that a task sent by name runs in-process when
        # Celery is eager (development, tests) instead of going to a broker.
        from notifications import tasks  # noqa: F401
