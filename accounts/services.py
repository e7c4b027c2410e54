"""Writes for accounts: profiles and API tokens."""

from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction
from rest_framework.authtoken.models import Token

from accounts.models import DELIVERY_FIELDS, Profile

PROFILE_EDITABLE_FIELDS = ("display_name", "time_zone", *DELIVERY_FIELDS, "email_digest")


def profile_create(*, user: AbstractBaseUser) -> Profile:
    profile, _ = Profile.objects.get_or_create(user=user)
    return profile


def profile_update(*, user: AbstractBaseUser, **changes) -> Profile:
    """Change the named profile fields; validates them as the model does."""
    unknown = set(changes) - set(PROFILE_EDITABLE_FIELDS)
    if unknown:
        raise TypeError(f"Not editable on a profile: {', '.join(sorted(unknown))}")
    profile = profile_create(user=user)
    for field, value in changes.items():
        setattr(profile, field, value)
    profile.full_clean()
    profile.save(update_fields=list(changes) or None)
    return profile


@transaction.atomic
def token_create(*, user: AbstractBaseUser) -> Token:
    """Issue a new API token, replacing any earlier one: its key is shown to the user once."""
    Token.objects.filter(user=user).delete()
    return Token.objects.create(user=user)


def token_revoke(*, user: AbstractBaseUser) -> bool:
    """Delete the user's API token; returns whether there was one."""
    deleted, _ = Token.objects.filter(user=user).delete()
    return bool(deleted)
