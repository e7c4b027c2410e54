"""The game's words in the page's language: `{{ color|tile_color }}` ("blue" -> "파랑" in
Korean), `{{ phase|game_phase }}` (listed for the translators in
`games/presenters/engine_words.py`), and `{{ variant|variant_label }}` ("gray" -> "Gray wall",
`Game.Variant`)."""

from __future__ import annotations

from django import template

from games.models import Game
from games.presenters.engine_words import color_name, phase_name
from games.presenters.moves import move_text

register = template.Library()


@register.filter
def tile_color(value: object) -> str:
    return color_name(str(value))


@register.filter
def game_phase(value: object) -> str:
    return phase_name(str(value))


@register.filter
def variant_label(value: object) -> str:
    """A variant's name ("colored" -> "Colored wall"), for rows that carry the bare value."""
    try:
        return str(Game.Variant(str(value)).label)
    except ValueError:
        return str(value)


@register.filter
def move_words(value: object) -> str:
    return move_text(str(value))
