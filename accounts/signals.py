from django.conf import settings
from django.contrib.auth.signals import user_logged_in
from django.db.models.signals import post_save
from django.dispatch import receiver

from accounts.middleware import language_at_sign_in
from accounts.services import profile_create


@receiver(
    post_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="accounts.profile_on_user_create"
)
def create_profile_for_new_user(sender, instance, created: bool, raw: bool = False, **kwargs):
    # Every user has a profile, however the user came to be (signup, admin, createsuperuser,
    # tests), so readers never need to handle a missing one.
    if created and not raw:
        profile_create(user=instance)


@receiver(user_logged_in, dispatch_uid="accounts.language_on_sign_in")
def language_on_sign_in(sender, request, user, **kwargs):
    # A fresh browser signing in gets the player's own language, not the browser's.
    profile = getattr(user, "profile", None)
    if request is not None and profile is not None:
        language_at_sign_in(request, profile.language)
