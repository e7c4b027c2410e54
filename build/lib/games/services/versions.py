"""A game's version (`Game.updated_at`) is what every view and board cached for it is keyed by:
each write to the game gives it a new one, and so does a change, elsewhere, to what it shows of
its players (`games_touch_for_player`, called when a player or profile is saved:
`games.apps`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.utils import timezone

from games.models import Game

# What a game shows of its players: the name (`accounts.names.player_name`) and that they are
# away (`vacation_until`). The viewer's language and time zone are part of the keys the views
# and boards are cached under, so a change of those needs no new version; nor do the email
# choices and the rest of a profile, nor a login.
USER_FIELDS_SHOWN = frozenset({"username"})
PROFILE_FIELDS_SHOWN = frozenset({"display_name", "vacation_until"})
# Set on the instance being saved, from `pre_save` to `post_save`.
_CHANGED = "_games_show_change"


def games_touch_for_player(*, user_id: Any) -> int:
    """Something games show of a player changed (their display name, username or vacation):
    give every game where they sit a new version, so that views and boards cached for the
    old one are not shown again. Returns the number of games."""
    return Game.objects.filter(seats__user_id=user_id).update(updated_at=timezone.now())


def _shown_fields_change(
    instance: Any, fields: frozenset[str], update_fields: Iterable[str] | None
) -> bool:
    """Whether saving `instance` changes one of `fields`: by the fields it saves when it names
    them (no query), else by the stored row (one query)."""
    if update_fields is not None:
        return not fields.isdisjoint(update_fields)
    stored = type(instance)._default_manager.filter(pk=instance.pk).values(*fields).first()
    return stored is None or any(stored[f] != getattr(instance, f) for f in fields)


def player_saving(
    sender: Any, instance: Any, raw: bool = False, update_fields: Any = None, **kwargs: Any
) -> None:
    """`pre_save` of a user or a profile: note whether the save changes what games show."""
    if raw or instance.pk is None:
        return  # a new player sits nowhere
    user_model = sender._meta.label == settings.AUTH_USER_MODEL
    fields = USER_FIELDS_SHOWN if user_model else PROFILE_FIELDS_SHOWN
    setattr(instance, _CHANGED, _shown_fields_change(instance, fields, update_fields))


def player_saved(sender: Any, instance: Any, created: bool, **kwargs: Any) -> None:
    """`post_save` of a user or a profile: a new version of their games if what games show of
    them changed."""
    if created or not instance.__dict__.pop(_CHANGED, False):
        return
    user_model = sender._meta.label == settings.AUTH_USER_MODEL
    games_touch_for_player(user_id=instance.pk if user_model else instance.user_id)
