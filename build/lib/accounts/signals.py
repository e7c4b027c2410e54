from allauth.account.signals import password_reset
from django.conf import settings
from django.contrib.auth.signals import user_logged_in
from django.db.models.signals import post_save
from django.dispatch import receiver

from accounts import lockout
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


@receiver(user_logged_in, dispatch_uid="accounts.login_limits_on_sign_in")
def login_limits_on_sign_in(sender, request, user, **kwargs):
    # The attempt is taken back from the login limits; the browser becomes a known device.
    lockout.forgive_signed_in(request, user)


@receiver(password_reset, dispatch_uid="accounts.login_limits_on_password_reset")
def login_limits_on_password_reset(sender, request, user, **kwargs):
    lockout.forgive_account(request, user)
