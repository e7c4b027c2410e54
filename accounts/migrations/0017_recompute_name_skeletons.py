from django.db import migrations

from accounts.confusables import skeletons_store


def recompute_skeletons(apps, schema_editor):
    """The skeletons stored before the whole confusables table counted (#66: "rn" passing for
    "m"), made again. Two existing names that now look alike both stay (the skeletons are not
    unique, and a name kept as it is is not checked again): only a new name like them is refused.
    A deleted account's name is gone: its skeleton is made again from the skeleton it kept (which
    gives the name's new skeleton, but for a few dozen rare characters of the table)."""
    User = apps.get_model("accounts", "User")
    Profile = apps.get_model("accounts", "Profile")
    skeletons_store(
        User.objects.filter(deleted_at__isnull=True),
        name_field="username",
        skeleton_field="username_skeleton",
    )
    skeletons_store(
        User.objects.filter(deleted_at__isnull=False),
        name_field="username_skeleton",
        skeleton_field="username_skeleton",
    )
    skeletons_store(
        Profile.objects.all(), name_field="display_name", skeleton_field="display_name_skeleton"
    )


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0016_theme_and_next_game"),
    ]

    operations = [
        migrations.RunPython(recompute_skeletons, migrations.RunPython.noop),
    ]
