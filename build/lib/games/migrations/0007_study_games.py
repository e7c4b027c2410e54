"""Study games: games imported from an export, to be replayed (unrated, never played)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0006_seat_rating"),
    ]

    operations = [
        migrations.AddField(
            model_name="game",
            name="is_study",
            field=models.BooleanField(
                default=False,
                help_text="Imported from an export to be replayed: unrated, not played.",
            ),
        ),
        migrations.AddField(
            model_name="seat",
            name="name",
            field=models.CharField(blank=True, default="", max_length=150),
        ),
        migrations.AddConstraint(
            model_name="game",
            constraint=models.CheckConstraint(
                condition=models.Q(("is_study", False), ("status", "finished"), _connector="OR"),
                name="game_study_is_finished",
            ),
        ),
    ]
