"""Who made each move (`LogEntry.mover_kind`, `LogEntry.mover`), from now on.

The moves already written are left unknown (blank, null), not filled from their seats' current
accounts: a seat given to another account before this migration would have its moves written
as that account's, and `check_game_logs` could never see it; unknown is what the log knows.
Both columns are added without rewriting the table (a nullable column, and a constant default).
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0015_calendar_feed"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="logentry",
            name="mover",
            field=models.ForeignKey(
                blank=True,
                db_constraint=False,
                db_index=False,
                null=True,
                on_delete=django.db.models.deletion.DO_NOTHING,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name="logentry",
            name="mover_kind",
            field=models.CharField(
                blank=True,
                choices=[("person", "Person"), ("computer", "Computer"), ("server", "Server")],
                default="",
                max_length=8,
            ),
        ),
    ]
