"""Recompute every rating from the history of finished games, in order of finish, and report any
difference from the stored ratings, players' records, seats' ratings and rated-game marks:
`python manage.py ratings_recompute [--fix]`. With `--fix`, write the recomputed ones (rating
writes wait meanwhile). Also what rates the games finished before ratings existed: run it once
with `--fix` after deploying them."""

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from ratings.recompute import ratings_recompute


class Command(BaseCommand):
    help = "Recompute every rating from the finished games and report (or --fix) differences."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--fix", action="store_true", help="write the recomputed ratings where they differ"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        report = ratings_recompute(fix=options["fix"])
        self.stdout.write(
            f"{report.games} finished games, {report.rated} rated, {report.players} players "
            "with a rating."
        )
        if not report.total:
            self.stdout.write(self.style.SUCCESS("The stored ratings agree with the history."))
            return
        counts = ", ".join(f"{n} {what}" for what, n in report.differences.items() if n)
        for line in report.examples:
            self.stdout.write(f"  {line}")
        if report.fixed:
            self.stdout.write(self.style.WARNING(f"Fixed {report.total} differences ({counts})."))
        else:
            self.stdout.write(
                self.style.ERROR(
                    f"{report.total} differences ({counts}); run with --fix to write the "
                    "recomputed ratings."
                )
            )
