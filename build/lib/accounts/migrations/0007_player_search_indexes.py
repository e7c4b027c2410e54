"""Indexes for finding a player by the start of their username or display name, any letter
case (`accounts.selectors.players_search`): Django's `istartswith` is `UPPER(col) LIKE
UPPER('pre%')`, which a btree on `UPPER(col)` serves only with `text_pattern_ops` under a
collation other than C. PostgreSQL only: SQLite (development) has no operator classes, and its
LIKE is case-insensitive anyway. Kept out of the models' state, as `Index` can state an operator
class on an expression only with django.contrib.postgres installed."""

from django.db import migrations

INDEXES = {
    "user_username_prefix_idx": ("User", "username"),
    "profile_name_prefix_idx": ("Profile", "display_name"),
}


def create_indexes(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    quote = schema_editor.quote_name
    for name, (model, column) in INDEXES.items():
        table = apps.get_model("accounts", model)._meta.db_table
        schema_editor.execute(
            f"CREATE INDEX IF NOT EXISTS {quote(name)} ON {quote(table)} "
            f"(UPPER({quote(column)}) text_pattern_ops)"
        )


def drop_indexes(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for name in INDEXES:
        schema_editor.execute(f"DROP INDEX IF EXISTS {schema_editor.quote_name(name)}")


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0006_profile_vacation"),
    ]

    operations = [
        migrations.RunPython(create_indexes, drop_indexes, elidable=False),
    ]
