"""`manage.py sweep`: what Celery beat runs every minute in production, run here in-process.

`make run` has no broker and no beat, and starts `manage.py sweep --every 60` beside the
development server, so that deadlines, reminders, lost computer turns and pending mail are
dealt with there too. Without `--every`, one sweep and out (for cron, or to see what is due).
"""

import time

from django.core.management.base import BaseCommand

from games import sweeps
from notifications import services as notifications


class Command(BaseCommand):
    help = "Deal with what is due: timeouts, reminders, lost computer turns, pending mail, digests."

    def add_arguments(self, parser):
        parser.add_argument(
            "--every", type=float, help="sweep every this many seconds, until stopped"
        )

    def handle(self, *args, every: float | None = None, **options):
        while True:
            games = sweeps.sweep()
            mail = notifications.sweep()
            self.stdout.write(
                f"sweep: {games.timeouts} timeouts, {games.reminded} games reminded, "
                f"{games.computer_turns} computer turns sent again, {mail.sent} emails, "
                f"{mail.digests_sent} digests"
            )
            if not every:
                return
            time.sleep(every)
