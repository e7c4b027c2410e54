"""One choice for the emails an event sends its players (registration, start, rounds, standings):
on for every player, as the other choices of the games one is in."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0019_username_skeleton_unique"),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name="profile",
            name="profile_email_delivery_choice",
        ),
        migrations.AddField(
            model_name="profile",
            name="email_events",
            field=models.CharField(
                choices=[
                    ("immediate", "Immediately"),
                    ("digest", "In the daily digest"),
                    ("never", "Never"),
                ],
                default="immediate",
                help_text=(
                    "Registration confirmed, its start, each new round and the final standings."
                ),
                max_length=9,
                verbose_name="When an event I entered has news",
            ),
        ),
        migrations.AddConstraint(
            model_name="profile",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("email_chat__in", ["immediate", "digest", "never"]),
                    ("email_events__in", ["immediate", "digest", "never"]),
                    ("email_game_over__in", ["immediate", "digest", "never"]),
                    ("email_game_started__in", ["immediate", "digest", "never"]),
                    ("email_invitation__in", ["immediate", "digest", "never"]),
                    ("email_reminder__in", ["immediate", "digest", "never"]),
                    ("email_timeout__in", ["immediate", "digest", "never"]),
                    ("email_your_turn__in", ["immediate", "digest", "never"]),
                ),
                name="profile_email_delivery_choice",
            ),
        ),
    ]
