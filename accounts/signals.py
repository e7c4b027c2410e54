from django.conf import settings
from django.db.models.signals import post_save
from django.dispatch import receiver

from accounts.services import profile_create


@receiver(
    post_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="accounts.profile_on_user_create"
)
def create_profile_for_new_user(sender, instance, created: bool, raw: bool = False, **kwargs):
    # Every user has a profile, however the user came to be (signup, admin, createsuperuser,
    # tests), so readers never need to handle a missing one.
    if created and not raw:
        profile_create(user=instance)
