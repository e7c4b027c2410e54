from typing import Any

from django.apps import AppConfig


def _user_saved(sender: Any, instance: Any, created: bool, update_fields: Any, **kw: Any) -> None:
    if created or (update_fields is not None and set(update_fields) <= {"last_login"}):
        return  # a new player sits nowhere; a login changes nothing a game shows
    from games.services import games_touch_for_player

    games_touch_for_player(user_id=instance.pk)


def _profile_saved(sender: Any, instance: Any, created: bool, **kwargs: Any) -> None:
    if not created:
        from games.services import games_touch_for_player

        games_touch_for_player(user_id=instance.user_id)


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"

    def ready(self) -> None:
        from django.conf import settings
        from django.db.models.signals import post_save

        from accounts.models import Profile
        from games import tasks  # noqa: F401  (registers them, so they run in-process when eager)

        # Games show players' names: a new name is a new version of each of their games.
        post_save.connect(_user_saved, sender=settings.AUTH_USER_MODEL, dispatch_uid="games.user")
        post_save.connect(_profile_saved, sender=Profile, dispatch_uid="games.profile")
