"""`manage.py sweep`: every app's periodic work, what Celery beat runs every minute in production
(each app's own `<app>.tasks.sweep`), run here in-process.

An app with periodic work says so with a `sweep()` method on its AppConfig (games: turns whose
time ran out and lost computer turns; notifications: reminders, pending mail and digests), which
returns what it did, printable in a line; so this command names no app.

`make run` has no broker and no beat, and starts `manage.py sweep --every 60` beside the
development server, so that all of that is dealt with there too. Without `--every`, one sweep
and out (for cron, or to see what is due).
"""

import time
from typing import Any

from django.apps import apps
from django.core.management.base import BaseCommand, CommandParser


class Command(BaseCommand):
    help = "Deal with what is due: timeouts, reminders, lost computer turns, pending mail, digests."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--every", type=float, help="sweep every this many seconds, until stopped"
        )

    def handle(self, *args: Any, every: float | None = None, **options: Any) -> None:
        sweepers = [config for config in apps.get_app_configs() if hasattr(config, "sweep")]
        while True:
            done = [str(config.sweep()) for config in sweepers]
            self.stdout.write(f"sweep: {', '.join(done)}")
            if not every:
                return
            time.sleep(every)
