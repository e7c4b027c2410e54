"""`{{ user|player_name }}`: a player as other players see them (`accounts.names.player_name`)."""

from typing import Any

from django import template

from accounts.names import player_name as _player_name

register = template.Library()


@register.filter
def player_name(user: Any) -> str:
    if user is None or not getattr(user, "is_authenticated", False):
        return ""
    return _player_name(user)
