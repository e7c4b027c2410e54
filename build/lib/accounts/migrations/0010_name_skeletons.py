from django.db import migrations, models

from accounts.confusables import skeleton

BATCH = 2000


def fill_skeletons(apps, schema_editor):
    """Every existing username's and display name's skeleton, as `save()` sets them from now on
    (in batches, so a large table is not read into memory at once)."""
    for model, name_field, skeleton_field in (
        (apps.get_model("accounts", "User"), "username", "username_skeleton"),
        (apps.get_model("accounts", "Profile"), "display_name", "display_name_skeleton"),
    ):
        # The user's manager joins the profile; nothing here needs it.
        rows = model.objects.select_related(None).only("pk", name_field).order_by("pk")
        batch = []
        for row in rows.iterator(chunk_size=BATCH):
            setattr(row, skeleton_field, skeleton(getattr(row, name_field)))
            batch.append(row)
            if len(batch) == BATCH:
                model.objects.bulk_update(batch, [skeleton_field])
                batch = []
        model.objects.bulk_update(batch, [skeleton_field])


class Migration(migrations.Migration):
    """The fill comes last: PostgreSQL refuses to alter or index a table in the transaction
    that updated its rows while their deferred foreign-key checks are pending."""

    dependencies = [
        ("accounts", "0009_blocks"),
    ]

    operations = [
        migrations.AddField(
            model_name="profile",
            name="display_name_skeleton",
            field=models.TextField(default="", editable=False),
        ),
        migrations.AddField(
            model_name="user",
            name="username_skeleton",
            field=models.TextField(default="", editable=False),
        ),
        migrations.AddIndex(
            model_name="profile",
            index=models.Index(fields=["display_name_skeleton"], name="profile_name_skeleton_idx"),
        ),
        migrations.AddIndex(
            model_name="user",
            index=models.Index(fields=["username_skeleton"], name="user_username_skeleton_idx"),
        ),
        migrations.RunPython(fill_skeletons, migrations.RunPython.noop),
    ]
