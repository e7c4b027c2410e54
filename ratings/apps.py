from django.apps import AppConfig


class RatingsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "ratings"

    def ready(self) -> None:
        from ratings import receivers
        from ratings.panels import panels_register

        receivers.connect()
        panels_register()
