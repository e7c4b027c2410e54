"""`manage.py sweep`: every app's periodic work, what Celery beat runs every minute in production
(each app's own `<app>.tasks.sweep`), run here in-process.

An app with periodic work says so with a `sweep()` method on its AppConfig (games: turns whose
time ran out and lost computer turns; notifications: reminders, pending mail and digests), which
returns what it did, printable in a line; so this command names no app.

`make run` has no broker and no beat, and starts `manage.py sweep --every 60` beside the
development server, so that all of that is dealt with there too. Without `--every`, one sweep
and out (for cron, or to see what is due).

Between two sweeps, every `QUICK_CHECK_SECONDS`, the apps' quick checks run: an AppConfig with
a `quick_check()` method (games: computer turns whose task was lost, which Celery beat checks
every ten seconds; notifications: what came due, a "your turn" at the end of its grace period),
so that `make run` waits for the computer no longer than production does, and its notices go
within seconds of being due.
"""

import logging
import time
from typing import Any

from django.apps import apps
from django.core.management.base import BaseCommand, CommandParser
from django.db import close_old_connections

logger = logging.getLogger(__name__)

QUICK_CHECK_SECONDS = 10.0


class Command(BaseCommand):
    help = "Deal with what is due: timeouts, reminders, lost computer turns, pending mail, digests."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--every", type=float, help="sweep every this many seconds, until stopped"
        )

    def handle(self, *args: Any, every: float | None = None, **options: Any) -> None:
        sweepers = [config for config in apps.get_app_configs() if hasattr(config, "sweep")]
        checkers = [c for c in apps.get_app_configs() if hasattr(c, "quick_check")]
        if not every:
            self.sweep_once(sweepers)
            return
        while True:
            try:
                self.sweep_once(sweepers)
            except Exception:
                # A round that failed (the database restarted, its connection dropped) is
                # logged and the next one runs, as beat sends the next sweep after a failed one:
                # what was due is still due then.
                logger.exception("sweep failed: the next in %g s", every)
            # The connection a failed round broke is not reused; a healthy one is kept.
            close_old_connections()
            self.wait(every, checkers)

    def wait(self, seconds: float, checkers: list[Any]) -> None:
        """Sleep `seconds`, running the quick checks every `QUICK_CHECK_SECONDS` meanwhile (a
        failed one as a failed sweep: logged, and the next one runs)."""
        until = time.monotonic() + seconds
        while (left := until - time.monotonic()) > 0:
            time.sleep(min(left, QUICK_CHECK_SECONDS))
            for config in checkers:
                try:
                    config.quick_check()
                except Exception:
                    logger.exception("%s's quick check failed", config.label)
                close_old_connections()

    def sweep_once(self, sweepers: list[Any]) -> None:
        done = [str(config.sweep()) for config in sweepers]
        self.stdout.write(f"sweep: {', '.join(done)}")
