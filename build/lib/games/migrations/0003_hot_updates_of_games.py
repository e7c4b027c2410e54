"""Moves update their game's row in place (HOT updates) on PostgreSQL: no index covers a column a
move changes, and each page of the table keeps room for a new version of its rows."""

from django.db import migrations

# Percent of each page filled by inserts; the rest is left for updated versions of its rows.
GAME_FILLFACTOR = 70


def set_fillfactor(apps, schema_editor, fillfactor=GAME_FILLFACTOR):
    if schema_editor.connection.vendor == "postgresql":
        table = schema_editor.quote_name(apps.get_model("games", "Game")._meta.db_table)
        schema_editor.execute(f"ALTER TABLE {table} SET (fillfactor = {int(fillfactor)})")


def reset_fillfactor(apps, schema_editor):
    set_fillfactor(apps, schema_editor, 100)


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0002_drop_redundant_game_indexes"),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name="game",
            name="game_status_deadline_idx",
        ),
        migrations.RunPython(set_fillfactor, reset_fillfactor, elidable=False),
    ]
