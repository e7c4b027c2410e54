"""Panels that an app higher up adds to a page of an app below it (the analysis on a finished
game's page and on its replay's positions), without the page's app importing the panel's.

The page names a slot and its view asks for the slot's panels with what it knows
(`panels_render("game_page", request, game_id=..., status=...)`), putting the HTML in its
context for the template to print. An app higher up fills a slot from its AppConfig.ready
(`panel_register`) with a builder: a function that reads what its panel needs and returns the
panel's template and context, or None for no panel. So the reads happen in the view, before the
template renders (template tags do not query), and an app that is not installed adds nothing.
A builder whose panel changes seldom may keep its rendered markup (`Panel.rendered`), with its
forms' CSRF token left as `core.holes.CSRF_HOLE`: filled here for each request.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.http import HttpRequest
from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe

from core.holes import csrf_filled


@dataclass(frozen=True)
class Panel:
    """A template and its context, or markup the builder rendered (and kept) already."""

    template: str = ""
    context: dict[str, Any] = field(default_factory=dict)
    html: str | None = None

    @classmethod
    def rendered(cls, html: str) -> Panel:
        """A panel of markup the template engine rendered (so escaped) before."""
        return cls(html=html)


PanelBuilder = Callable[..., Panel | None]
"""Called as `builder(request, **what_the_page_knows)`."""

_builders: dict[str, list[PanelBuilder]] = {}


def panel_register(slot: str, builder: PanelBuilder) -> None:
    """Adds `builder`'s panel to the pages that show `slot`, after those registered before it."""
    builders = _builders.setdefault(slot, [])
    if builder not in builders:
        builders.append(builder)


def panels_render(slot: str, request: HttpRequest, **page: Any) -> SafeString:
    """The HTML of `slot`'s panels for this request ("" when there is none). A panel's template
    gets its builder's context only, not the page's nor the context processors': what it shows,
    its builder reads."""
    html: list[str] = []
    for builder in _builders.get(slot, ()):
        panel = builder(request, **page)
        if panel is None:
            continue
        if panel.html is None:
            html.append(render_to_string(panel.template, panel.context))
        else:
            html.append(csrf_filled(panel.html, request))
    # Each part was rendered, and escaped, by the template engine.
    return mark_safe("".join(html))
