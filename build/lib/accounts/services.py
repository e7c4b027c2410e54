"""Writes for accounts: profiles, API tokens, blocks and follows."""

import secrets
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from accounts.locking import lock_player
from accounts.models import DELIVERY_FIELDS, ApiToken, Block, Follow, Profile, User
from accounts.selectors import blocked_either_way, player_get
from core.errors import ServiceError

PROFILE_EDITABLE_FIELDS = (
    "display_name",
    "time_zone",
    "language",
    "confirm_moves",
    "theme",
    "next_game_after_move",
    *DELIVERY_FIELDS,
    "email_digest",
)


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


# -- API tokens ----------------------------------------------------------------------------------

# A player's tokens at once: one per program or machine is plenty, and a script cannot fill
# the table.
API_TOKENS_MAX = 10
# 240 random bits, URL-safe: 40 characters, no spaces, as long as DRF's keys were.
API_KEY_BYTES = 30


class TokenError(ServiceError):
    """A token that cannot be made, and why (`code`)."""

    code = "token_error"

    def __init__(self, message: str, *, code: str, status_code: int = 400) -> None:
        self.code = code
        super().__init__(message, status_code=status_code)


def token_create(
    *, user: User, name: str = "", expires_at: datetime | None = None
) -> tuple[ApiToken, str]:
    """A new API token for `user`, and its key: the one time the key exists outside the
    program it is given to (only its digest is kept). Up to `API_TOKENS_MAX` a player."""
    name = name.strip()
    if len(name) > ApiToken.NAME_MAX or "\x00" in name:
        raise TokenError(
            _("A token's name has at most %(max)d characters.") % {"max": ApiToken.NAME_MAX},
            code="token_name_invalid",
        )
    if expires_at is not None and expires_at <= timezone.now():
        raise TokenError(_("A token's expiry must be in the future."), code="token_expiry_past")
    with transaction.atomic():
        # One creation of a player's at a time counts their tokens and adds one.
        lock_player(user.pk)
        if ApiToken.objects.filter(user=user).count() >= API_TOKENS_MAX:
            raise TokenError(
                _(
                    "You have %(count)d API tokens, the most one player may: revoke one before"
                    " you create another."
                )
                % {"count": API_TOKENS_MAX},
                code="too_many_tokens",
                status_code=409,
            )
        key = secrets.token_urlsafe(API_KEY_BYTES)
        token = ApiToken.objects.create(
            user=user,
            name=name,
            prefix=key[: ApiToken.PREFIX_LENGTH],
            digest=ApiToken.digest_of(key),
            expires_at=expires_at,
        )
    return token, key


def token_revoke(*, user: User, token_id: Any) -> bool:
    """Delete `user`'s token `token_id`; False when `user` has no such token (another
    player's is not theirs to revoke, nor to learn of)."""
    try:
        token_id = int(token_id)
    except (TypeError, ValueError):
        return False
    if not 0 < token_id < 2**63:  # past a bigint, PostgreSQL would refuse the query
        return False
    deleted, _ = ApiToken.objects.filter(user=user, pk=token_id).delete()
    return bool(deleted)


# -- blocks --------------------------------------------------------------------------------------


class BlockError(ServiceError):
    """A block or an unblock that cannot be done, and why (`code`)."""

    code = "block_error"

    def __init__(self, message: str, *, code: str, status_code: int = 400) -> None:
        self.code = code
        super().__init__(message, status_code=status_code)


def _player_named(username: Any) -> User:
    name = username.strip() if isinstance(username, str) else ""
    if not name:
        raise BlockError(_("Name the player."), code="no_username")
    player = player_get(username=name)
    if player is None:
        raise BlockError(
            _("There is no player called %(name)s.") % {"name": repr(name)},
            code="unknown_player",
            status_code=404,
        )
    return player


def block_create(*, blocker: User, username: Any) -> Block:
    """`blocker` blocks the player called `username`: from now neither can invite the other,
    ask the other for a rematch, or meet the other in the lobby (games already made go on).
    At most ACCOUNTS_MAX_BLOCKS blocks a player, so that a script cannot write rows without
    end."""
    blocked = _player_named(username)
    if blocked.pk == blocker.pk:
        raise BlockError(_("You cannot block yourself."), code="block_self")
    with transaction.atomic():
        # One block of a player's at a time counts their blocks and adds one.
        lock_player(blocker.pk)
        if Block.objects.filter(blocker=blocker, blocked=blocked).exists():
            raise BlockError(
                _("You have already blocked %(name)s.") % {"name": blocked.get_username()},
                code="already_blocked",
                status_code=409,
            )
        limit = settings.ACCOUNTS_MAX_BLOCKS
        if Block.objects.filter(blocker=blocker).count() >= limit:
            raise BlockError(
                _(
                    "You have blocked %(count)s players, the most one player may: unblock one"
                    " before you block another."
                )
                % {"count": limit},
                code="too_many_blocks",
                status_code=409,
            )
        # Blocking ends following, both ways (and `follow_create` refuses it while blocked).
        Follow.objects.filter(
            Q(follower=blocker, followed=blocked) | Q(follower=blocked, followed=blocker)
        ).delete()
        try:
            with transaction.atomic():
                return Block.objects.create(blocker=blocker, blocked=blocked)
        except IntegrityError:  # pragma: no cover - the lock above makes this a backstop
            raise BlockError(
                _("You have already blocked %(name)s.") % {"name": blocked.get_username()},
                code="already_blocked",
                status_code=409,
            ) from None


def block_delete(*, blocker: User, username: Any) -> None:
    """`blocker` unblocks the player called `username` (whose account may be closed since)."""
    name = username.strip() if isinstance(username, str) else ""
    if not name:
        raise BlockError(_("Name the player."), code="no_username")
    deleted, _count = Block.objects.filter(blocker=blocker, blocked__username__iexact=name).delete()
    if not deleted:
        raise BlockError(
            _("You have not blocked %(name)s.") % {"name": repr(name)},
            code="not_blocked",
            status_code=404,
        )


class FollowError(ServiceError):
    """A follow or an unfollow that cannot be done, and why (`code`)."""

    code = "follow_error"

    def __init__(self, message: str, code: str, status_code: int = 400) -> None:
        self.code = code
        super().__init__(message, status_code=status_code)


def _player_to_follow(username: Any) -> User:
    name = username.strip() if isinstance(username, str) else ""
    if not name:
        raise FollowError(_("Name the player."), code="no_username")
    player = player_get(username=name)  # an active player: never a deleted account
    if player is None:
        raise FollowError(
            _("There is no player called %(name)s.") % {"name": repr(name)},
            code="unknown_player",
            status_code=404,
        )
    return player


def follow_create(*, follower: User, username: Any) -> tuple[Follow, bool]:
    """`follower` follows the player called `username` (whether they followed them already:
    following twice is one follow). Refused for oneself, for a player either of the two has
    blocked (without saying who blocked whom), and past ACCOUNTS_MAX_FOLLOWS follows."""
    followed = _player_to_follow(username)
    if followed.pk == follower.pk:
        raise FollowError(_("You cannot follow yourself."), code="follow_self")
    with transaction.atomic():
        # One follow of a player's at a time counts their follows and adds one.
        lock_player(follower.pk)
        existing = Follow.objects.filter(follower=follower, followed=followed).first()
        if existing is not None:
            return existing, False
        if blocked_either_way(user_id=follower.pk, other_ids=[followed.pk]):
            raise FollowError(
                _("You cannot follow %(name)s: one of you has blocked the other.")
                % {"name": followed.get_username()},
                code="follow_blocked",
                status_code=409,
            )
        limit = settings.ACCOUNTS_MAX_FOLLOWS
        if Follow.objects.filter(follower=follower).count() >= limit:
            raise FollowError(
                _(
                    "You follow %(count)s players, the most one player may: unfollow one before"
                    " you follow another."
                )
                % {"count": limit},
                code="too_many_follows",
                status_code=409,
            )
        return Follow.objects.create(follower=follower, followed=followed), True


def follow_delete(*, follower: User, username: Any) -> None:
    """`follower` stops following the player called `username`."""
    name = username.strip() if isinstance(username, str) else ""
    if not name:
        raise FollowError(_("Name the player."), code="no_username")
    deleted, _count = Follow.objects.filter(
        follower=follower, followed__username__iexact=name
    ).delete()
    if not deleted:
        raise FollowError(
            _("You do not follow %(name)s.") % {"name": repr(name)},
            code="not_following",
            status_code=404,
        )
