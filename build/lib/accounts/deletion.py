"""Deleting an account: what `accounts` erases of a player who deletes theirs.

The user row stays: the seats of finished games and the ratings point at it, so that the other
players' history, replays and ratings stay whole. What made it a person goes: the username (a
placeholder takes its place, `DELETED_USERNAME_PREFIX` and the id), the names and email
addresses, the profile's details and preferences, the password (an unusable one: sessions
signed with the old one end, and none can start), the blocks and follows both ways and the
API tokens.
Every page, list and email names the account "deleted player" (`accounts.names`).

The old username stays reserved: the row keeps its skeleton (`User.username_skeleton`, which a
deleted account's saves leave alone), and a new name with that skeleton is refused at sign-up
(`name_rules.check_not_confusable`), so that nobody can come back as the player who left and
pass for them in the games and emails the others still have.

The whole deletion, games included, is `azul_site.account_deletion`: `accounts` may not touch
games.
"""

from __future__ import annotations

from typing import Any

from django.apps import apps
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import (
    DELETED_USERNAME_PREFIX,
    DELIVERY_FIELDS,
    Block,
    Delivery,
    Follow,
    Profile,
    User,
)
from core.errors import ServiceError


class AccountDeletionRefused(ServiceError):
    code = "wrong_password"

    def __init__(self) -> None:
        super().__init__(
            _("That is not your password: your account was not deleted."), status_code=400
        )


def deletion_password_check(*, user: User, password: object) -> None:
    """AccountDeletionRefused unless `password` is the player's own."""
    if not isinstance(password, str) or not password or not user.check_password(password):
        raise AccountDeletionRefused()


def deleted_username(user: User) -> str:
    return f"{DELETED_USERNAME_PREFIX}{user.pk}"


def account_erase(*, user: User) -> None:
    """Erase `user`'s personal data and mark the account deleted (see the module docstring).
    Call it inside the deletion's transaction, the user's row locked."""
    old_username = user.get_username()
    user.username = deleted_username(user)
    user.first_name = ""
    user.last_name = ""
    user.email = ""
    user.is_active = False
    user.is_staff = False
    user.is_superuser = False
    user.deleted_at = timezone.now()
    user.set_unusable_password()
    # `username_skeleton` keeps the old name's: `User.save` leaves it alone once deleted.
    user.save()
    user.groups.clear()
    user.user_permissions.clear()
    # A fresh profile with the defaults, no email wanted: nothing of the old one is kept.
    Profile.objects.filter(user=user).delete()
    user.profile = Profile.objects.create(
        user=user,
        email_digest=False,
        **{field: Delivery.NEVER for field in DELIVERY_FIELDS},
    )
    Block.objects.filter(Q(blocker=user) | Q(blocked=user)).delete()
    Follow.objects.filter(Q(follower=user) | Q(followed=user)).delete()
    _tokens_delete(user)
    _email_addresses_delete(user)
    _sign_in_records_delete(old_username)


def _tokens_delete(user: User) -> None:
    """Every API token of the user's, whatever model keeps them: each model that points at the
    user and is named a token."""
    for relation in User._meta.related_objects:
        model: Any = relation.related_model
        if (relation.one_to_many or relation.one_to_one) and "token" in model._meta.model_name:
            model._default_manager.filter(**{relation.field.name: user}).delete()


def _email_addresses_delete(user: User) -> None:
    if apps.is_installed("allauth.account"):
        from allauth.account.models import EmailAddress

        EmailAddress.objects.filter(user=user).delete()


def _sign_in_records_delete(username: str) -> None:
    """The failed and successful sign-ins recorded under the old username (with addresses)."""
    if not apps.is_installed("axes"):
        return
    from axes.models import AccessAttempt, AccessFailureLog, AccessLog

    for model in (AccessAttempt, AccessFailureLog, AccessLog):
        model.objects.filter(username=username).delete()
