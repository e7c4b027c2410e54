from django.db import migrations, models

from accounts.confusables import skeletons_store


def fill_skeletons(apps, schema_editor):
    """Every existing username's and display name's skeleton, as `save()` sets them from now on."""
    for model, name_field, skeleton_field in (
        (apps.get_model("accounts", "User"), "username", "username_skeleton"),
        (apps.get_model("accounts", "Profile"), "display_name", "display_name_skeleton"),
    ):
        skeletons_store(model.objects.all(), name_field=name_field, skeleton_field=skeleton_field)


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
