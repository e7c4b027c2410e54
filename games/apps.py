from typing import Any

from django.apps import AppConfig


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"

    def ready(self) -> None:
        from django.conf import settings
        from django.db.models.signals import post_save, pre_save

        import games.tasks  # noqa: F401  (registers them, so they run in-process when eager)
        from accounts.models import Profile
        from core.slots import settings_page_panels
        from games.services.players import player_saved, player_saving
        from games.web import calendar

        # Games show players' names, vacations and times in their zone: a change to one of those
        # is a new version of each of their games.
        for name, sender in (("user", settings.AUTH_USER_MODEL), ("profile", Profile)):
            pre_save.connect(player_saving, sender=sender, dispatch_uid=f"games.{name}.saving")
            post_save.connect(player_saved, sender=sender, dispatch_uid=f"games.{name}.saved")

        # The calendar feed's panel on the settings page (an accounts page).
        settings_page_panels.connect(calendar.settings_page_panel)

    def sweep(self) -> Any:
        """This app's periodic work, for `manage.py sweep` (Celery beat runs
        `games.tasks.sweep`): turns whose time ran out, and computer turns left waiting."""
        from games import sweeps

        return sweeps.sweep()

    def quick_check(self) -> int:
        """For `manage.py sweep --every` between sweeps (Celery beat runs
        `games.tasks.computer_turns_check`): computer turns whose task was lost."""
        from games import sweeps

        return sweeps.computer_turns_check()
