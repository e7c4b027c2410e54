from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0007_player_search_indexes"),
    ]

    operations = [
        migrations.AddField(
            model_name="profile",
            name="language",
            field=models.CharField(
                choices=[("en", "English"), ("ko", "한국어")],
                default="en",
                max_length=8,
                verbose_name="language",
            ),
        ),
    ]
