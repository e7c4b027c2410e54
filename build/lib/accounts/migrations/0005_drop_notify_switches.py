from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ('accounts', '0004_carry_over_notify_switches'),
    ]

    operations = [
        migrations.RemoveField(
            model_name='profile',
            name='notify_game_end',
        ),
        migrations.RemoveField(
            model_name='profile',
            name='notify_reminder',
        ),
        migrations.RemoveField(
            model_name='profile',
            name='notify_turn',
        ),
        migrations.AddConstraint(
            model_name='profile',
            constraint=models.CheckConstraint(condition=models.Q(('email_game_over__in', ['immediate', 'digest', 'never']), ('email_game_started__in', ['immediate', 'digest', 'never']), ('email_invitation__in', ['immediate', 'digest', 'never']), ('email_reminder__in', ['immediate', 'digest', 'never']), ('email_timeout__in', ['immediate', 'digest', 'never']), ('email_your_turn__in', ['immediate', 'digest', 'never'])), name='profile_email_delivery_choice'),
        ),
    ]
