"""When a webhook test had its answer, now that a worker sends it. The tests before were
answered within their request: theirs is the moment they were made."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("notifications", "0006_webhooks"),
    ]

    operations = [
        migrations.AddField(
            model_name="webhooktest",
            name="answered_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddIndex(
            model_name="webhooktest",
            index=models.Index(
                condition=models.Q(("answered_at__isnull", True)),
                fields=["created_at"],
                name="webhook_test_waiting_idx",
            ),
        ),
        migrations.RunSQL(
            "UPDATE notifications_webhooktest SET answered_at = created_at",
            migrations.RunSQL.noop,
        ),
    ]
