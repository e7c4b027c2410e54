"""Panels that an app higher up adds to a page of an app below it (the analysis on a finished
game's page and on its replay's positions), without the page's app importing the panel's.

Each slot of a page is a Django signal (`game_page_panels`, ...). The page's view asks for the
slot's panels with what it knows (`panels_render(game_page_panels, request, game_id=...,
status=...)`), putting the HTML in its context for the template to print. An app higher up
connects a receiver to the slot from its AppConfig.ready: a function that reads what its panel
needs and returns the panel's template and context, or None for no panel. So the reads happen in
the view, before the template renders (template tags do not query), and an app that is not
installed adds nothing. The panels come in the order their receivers were connected: their apps'
order in INSTALLED_APPS, then the order of their `connect` calls.
A receiver whose panel changes seldom may keep its rendered markup (`Panel.rendered`), with its
forms' CSRF token left as `core.pages.holes.CSRF_HOLE`: filled here for each request.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

from django.dispatch import Signal
from django.http import HttpRequest
from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe

from core.pages.holes import csrf_filled


@dataclass(frozen=True)
class Panel:
    """A template and its context, or markup the receiver rendered (and kept) already."""

    template: str = ""
    context: dict[str, Any] = field(default_factory=dict)
    html: str | None = None

    @classmethod
    def rendered(cls, html: str) -> Panel:
        """A panel of markup the template engine rendered (so escaped) before."""
        return cls(html=html)


# The slots. Each receiver is called as `receiver(signal=..., sender=None, request=..., **page)`
# with what the page knows, and returns a Panel or None.
game_page_panels = Signal()
"""A game's page: `game_id`, `status`, `is_study`, `seat_names`, `viewer_position`."""
game_over_panels = Signal()
"""A finished game's banner: `game_id`."""
replay_position_panels = Signal()
"""A position of a game's replay: `game`, `ply`."""
settings_page_panels = Signal()
"""The settings page: what a panel's own form refused, when it did, for that panel."""
new_game_levels_panels = Signal()
"""The computer levels on the new-game form: nothing more."""


def panels_render(slot: Signal, request: HttpRequest, **page: Any) -> SafeString:
    """The HTML of `slot`'s panels for this request ("" when there is none). A panel's template
    gets its receiver's context only, not the page's nor the context processors': what it
    shows, its receiver reads."""
    html: list[str] = []
    # The receivers' answers, in order (django-stubs says `str | None`).
    answers = cast(list[tuple[Any, Panel | None]], slot.send(None, request=request, **page))
    for _receiver, panel in answers:
        if panel is None:
            continue
        if panel.html is None:
            html.append(render_to_string(panel.template, panel.context))
        else:
            html.append(csrf_filled(panel.html, request))
    # Each part was rendered, and escaped, by the template engine.
    return mark_safe("".join(html))
