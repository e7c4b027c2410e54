"""`manage.py rate_levels`: fit the computer levels' ratings now (the sweep does it every
RATINGS_LEVELS_EVERY_SECONDS), after shipping a new calibration (`python -m research.calibrate`)
or to see where the levels stand."""

from typing import Any

from django.core.management.base import BaseCommand

from ratings import services


class Command(BaseCommand):
    help = "Fit the computer levels' ratings again, from the calibration and their games."

    def handle(self, *args: Any, **options: Any) -> None:
        for row in services.levels_rate():
            self.stdout.write(
                f"{row.level:7} {row.rating:6.0f}  mu {row.mu:6.2f}  sigma {row.sigma:5.2f}"
                f"  games {row.games} against {row.people} people"
            )
