from typing import Any

from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "notifications"

    def ready(self) -> None:
        # Registers the tasks in every process, so that a task sent by name runs in-process when
        # Celery is eager (development, tests) instead of going to a broker.
        import notifications.tasks  # noqa: F401
        from notifications import receivers

        receivers.connect()
        from core.slots import settings_page_panels
        from notifications.push import panels as push_panels
        from notifications.webhooks import panels as webhook_panels

        # Its panels on the settings page (an accounts page): push, then webhooks.
        settings_page_panels.connect(push_panels.settings_page_panel)
        settings_page_panels.connect(webhook_panels.settings_page_panel)

    def sweep(self) -> Any:
        """This app's periodic work, for `manage.py sweep` (Celery beat runs
        `notifications.tasks.sweep`): reminders, pending mail, digests."""
        from notifications import sweeps

        return sweeps.sweep()

    def quick_check(self) -> int:
        """For `manage.py sweep --every` between sweeps (`make run`, no worker): the emails,
        push notices and webhook calls that came due (a grace period ended), sent within
        seconds rather than at the next minute's sweep."""
        from notifications import outbox

        return outbox.due_send()
