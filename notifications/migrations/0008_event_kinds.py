"""The events' kinds: notifications about an event (its id in `event_ref`, its round in `ply`)
rather than a game, once per recipient, event, round and kind."""

from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0017_game_for_ratings"),
        ("notifications", "0007_webhook_test_answered_at"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name="notification",
            name="notification_game_unless_digest",
        ),
        migrations.RemoveConstraint(
            model_name="notification",
            name="notification_kind_choice",
        ),
        migrations.AddField(
            model_name="notification",
            name="event_ref",
            field=models.BigIntegerField(blank=True, null=True),
        ),
        migrations.AlterField(
            model_name="notification",
            name="kind",
            field=models.CharField(
                choices=[
                    ("your_turn", "Your turn"),
                    ("invitation", "Invitation"),
                    ("game_started", "Game started"),
                    ("game_over", "Game over"),
                    ("reminder", "Reminder"),
                    ("timeout", "Timeout"),
                    ("digest", "Daily digest"),
                    ("invitation_declined", "Invitation declined"),
                    ("resigned", "Player resigned"),
                    ("game_cancelled", "Game cancelled"),
                    ("chat_message", "Chat message"),
                    ("webhook_disabled", "Webhook turned off"),
                    ("event_entered", "Registration confirmed"),
                    ("event_started", "Event started"),
                    ("event_cancelled", "Event cancelled"),
                    ("event_round", "New round of an event"),
                    ("event_finished", "Event finished"),
                ],
                max_length=24,
            ),
        ),
        migrations.AddConstraint(
            model_name="notification",
            constraint=models.UniqueConstraint(
                condition=models.Q(
                    (
                        "kind__in",
                        (
                            "event_entered",
                            "event_started",
                            "event_cancelled",
                            "event_round",
                            "event_finished",
                        ),
                    )
                ),
                fields=("recipient", "event_ref", "ply", "kind"),
                name="notification_once_per_event_round",
            ),
        ),
        migrations.AddConstraint(
            model_name="notification",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(
                        ("digest_date__isnull", False),
                        ("event_ref__isnull", True),
                        ("game__isnull", True),
                        ("kind", "digest"),
                    ),
                    models.Q(
                        ("digest_date__isnull", True),
                        ("event_ref__isnull", True),
                        ("game__isnull", True),
                        ("kind", "webhook_disabled"),
                    ),
                    models.Q(
                        ("digest_date__isnull", True),
                        ("event_ref__isnull", False),
                        ("game__isnull", True),
                        (
                            "kind__in",
                            (
                                "event_entered",
                                "event_started",
                                "event_cancelled",
                                "event_round",
                                "event_finished",
                            ),
                        ),
                    ),
                    models.Q(
                        models.Q(
                            (
                                "kind__in",
                                [
                                    "digest",
                                    "webhook_disabled",
                                    "event_entered",
                                    "event_started",
                                    "event_cancelled",
                                    "event_round",
                                    "event_finished",
                                ],
                            ),
                            _negated=True,
                        ),
                        ("digest_date__isnull", True),
                        ("event_ref__isnull", True),
                        ("game__isnull", False),
                    ),
                    _connector="OR",
                ),
                name="notification_about_its_kind",
            ),
        ),
        migrations.AddConstraint(
            model_name="notification",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    (
                        "kind__in",
                        [
                            "your_turn",
                            "invitation",
                            "game_started",
                            "game_over",
                            "reminder",
                            "timeout",
                            "digest",
                            "invitation_declined",
                            "resigned",
                            "game_cancelled",
                            "chat_message",
                            "webhook_disabled",
                            "event_entered",
                            "event_started",
                            "event_cancelled",
                            "event_round",
                            "event_finished",
                        ],
                    )
                ),
                name="notification_kind_choice",
            ),
        ),
    ]
