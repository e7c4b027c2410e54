from django.db import migrations

# The three old switches and the kinds that replace them; the other kinds (invitation, game
# started, timeout) had no switch and start as "immediate", and the digest starts on.
OLD_TO_NEW = {
    "notify_turn": "email_your_turn",
    "notify_reminder": "email_reminder",
    "notify_game_end": "email_game_over",
}


def carry_over_preferences(apps, schema_editor):
    """Keep what players chose: a switch that was off -> "never"; one that was on stays
    "immediate", the new column's default (so only the players who turned one off are written)."""
    Profile = apps.get_model("accounts", "Profile")
    for old, new in OLD_TO_NEW.items():
        Profile.objects.filter(**{old: False}).update(**{new: "never"})


def carry_back_preferences(apps, schema_editor):
    """Back to the switches: on (their default) unless the kind was turned off ("never")."""
    Profile = apps.get_model("accounts", "Profile")
    for old, new in OLD_TO_NEW.items():
        Profile.objects.filter(**{new: "never"}).update(**{old: False})


class Migration(migrations.Migration):
    """A migration of its own, between adding the new fields and dropping the old: PostgreSQL
    refuses to alter a table in the transaction that updated its rows (their deferred
    foreign-key checks are still pending), in either direction."""

    dependencies = [
        ("accounts", "0003_email_preferences"),
    ]

    operations = [
        migrations.RunPython(carry_over_preferences, carry_back_preferences),
    ]
