from django.db import migrations, models


def flag_shared_skeletons(apps, schema_editor):
    """Accounts whose usernames already look alike (the same skeleton, as made by 0017) all
    stay: the oldest of each such group holds the skeleton, and the others are marked as sharing
    it, so that the unique constraint (0019) leaves them out."""
    User = apps.get_model("accounts", "User")
    shared = (
        User.objects.values("username_skeleton")
        .annotate(accounts=models.Count("pk"))
        .filter(accounts__gt=1)
        .values_list("username_skeleton", flat=True)
    )
    for skeleton in shared.iterator():
        alike = User.objects.filter(username_skeleton=skeleton).order_by("pk")
        younger = list(alike.values_list("pk", flat=True))[1:]
        User.objects.filter(pk__in=younger).update(username_skeleton_shared=True)


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0017_recompute_name_skeletons"),
    ]

    operations = [
        migrations.AddField(
            model_name="user",
            name="username_skeleton_shared",
            field=models.BooleanField(default=False, editable=False),
        ),
        migrations.RunPython(flag_shared_skeletons, migrations.RunPython.noop),
    ]
