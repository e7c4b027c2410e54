"""Reads for accounts."""

from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from rest_framework.authtoken.models import Token

from accounts.models import Profile


def player_get(*, username: str) -> AbstractBaseUser | None:
    """The active player with this username (any letter case), with the profile joined."""
    User = get_user_model()
    return (
        User.objects.filter(username__iexact=username, is_active=True)
        .select_related("profile")
        .first()
    )


def profile_for(*, user: AbstractBaseUser) -> Profile:
    return Profile.objects.select_related("user").get(user=user)


def token_for(*, user: AbstractBaseUser) -> Token | None:
    """The user's API token, if any. Pages show only its creation date, never the key again."""
    return Token.objects.filter(user=user).first()
