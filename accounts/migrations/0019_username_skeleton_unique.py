from django.db import migrations, models


class Migration(migrations.Migration):
    # Apart from 0018, whose rows it checks: PostgreSQL alters no table with updates to it still
    # pending in the same transaction.
    dependencies = [
        ("accounts", "0018_username_skeleton_shared"),
    ]

    operations = [
        migrations.AddConstraint(
            model_name="user",
            constraint=models.UniqueConstraint(
                condition=models.Q(("username_skeleton_shared", False)),
                fields=("username_skeleton",),
                name="user_username_skeleton_unique",
            ),
        ),
    ]
