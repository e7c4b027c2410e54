from typing import Any

from django import template

register = template.Library()


@register.filter
def rating_change(after: Any, before: Any) -> str:
    """`{{ after|rating_change:before }}`: "+14", "-3" or "±0"; "" when the game was unrated."""
    if after is None or before is None:
        return ""
    change = after - before
    return f"+{change}" if change > 0 else f"{change}" if change < 0 else "±0"
