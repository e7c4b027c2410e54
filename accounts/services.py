"""Writes for accounts: profiles and API tokens."""

from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import translation
from rest_framework.authtoken.models import Token

from accounts.models import DELIVERY_FIELDS, Profile, User

PROFILE_EDITABLE_FIELDS = ("display_name", "time_zone", *DELIVERY_FIELDS, "email_digest")


def profile_create(*, user: User) -> Profile:
    # A new player's emails come in the language they signed up in (the request's).
    profile, _ = Profile.objects.get_or_create(user=user, defaults={"language": current_language()})
    return profile


def current_language() -> str:
    """The active language as one of settings.LANGUAGES (LANGUAGE_CODE when none is)."""
    try:
        return translation.get_supported_language_variant(
            translation.get_language() or settings.LANGUAGE_CODE
        )
    except LookupError:
        return settings.LANGUAGE_CODE


def profile_language_set(*, user: User, language: str) -> None:
    """Remember the language a signed-in player chose, for the emails they get."""
    if language in dict(settings.LANGUAGES):
        Profile.objects.filter(user=user).exclude(language=language).update(language=language)


def profile_update(*, user: User, **changes: Any) -> Profile:
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
def token_create(*, user: User) -> Token:
    """Issue a new API token, replacing any earlier one: its key is shown to the user once."""
    Token.objects.filter(user=user).delete()
    return Token.objects.create(user=user)


def token_revoke(*, user: User) -> bool:
    """Delete the user's API token; returns whether there was one."""
    deleted, _ = Token.objects.filter(user=user).delete()
    return bool(deleted)
