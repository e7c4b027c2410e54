"""Slots: places in a page, a record or an email of an app where apps higher up add their part,
without the app below importing them (the analysis on a finished game's page, the chat's new
messages in a "your turn" email, the chat in a game's export).

One mechanism for every slot. A slot is a Django signal (`Slot`) with a way to put its parts
together. The app below asks for the slot's parts with what it knows (`game_page_panels.collect(
request=request, game_id=..., status=...)`) and gets them put together: the HTML of its panels,
the HTML and text of its email parts, or the keys its record gains. An app higher up connects a
receiver to the slot from its AppConfig.ready (`slots.game_page_panels.connect(game_page_panel)`):
a function called as `receiver(signal=..., sender=None, **about)` that reads what its part needs
and returns the part, or None for none. So the reads happen in the view, before the template
renders (template tags do not query), and an app that is not installed adds nothing. The parts
come in the order their receivers were connected: their apps' order in INSTALLED_APPS, then the
order of their `connect` calls. A receiver's error is the caller's (the page fails as it would
have with the part written in it).

Three kinds of parts, each with its slots below:
- panels on pages (`Panel`: a template and its context, or markup the receiver rendered and kept,
  its forms' CSRF token left as `core.pages.holes.CSRF_HOLE` and filled here for each request);
- parts of emails (`EmailPart`: an HTML template, a text template and their context);
- additions to records (a dict of the keys to add, merged in order).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, cast

from django.dispatch import Signal
from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe

from core.pages.holes import csrf_filled

Part = TypeVar("Part")
Whole = TypeVar("Whole")


class Slot(Signal, Generic[Part, Whole]):
    """A slot: receivers connected as to any signal, each answering a part or None, and
    `together` putting the parts (in the order their receivers were connected) and what the
    caller knows (`about`) into what the caller gets."""

    def __init__(self, together: Callable[[list[Part], dict[str, Any]], Whole]) -> None:
        super().__init__()
        self.together = together

    def collect(self, **about: Any) -> Whole:
        """The slot's parts for `about`, put together."""
        # The receivers' answers, in order (django-stubs says `str | None`).
        answers = cast(list[tuple[Any, Part | None]], self.send(None, **about))
        return self.together([part for _receiver, part in answers if part is not None], about)


# Panels on pages.


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


def panels_html(panels: list[Panel], about: dict[str, Any]) -> SafeString:
    """The panels' HTML for the request in `about` ("" when there is none). A panel's template
    gets its receiver's context only, not the page's nor the context processors': what it
    shows, its receiver reads."""
    request = about["request"]
    html = [
        render_to_string(panel.template, panel.context)
        if panel.html is None
        else csrf_filled(panel.html, request)
        for panel in panels
    ]
    # Each part was rendered, and escaped, by the template engine.
    return mark_safe("".join(html))


# Each receiver is called with `request=` and what the page knows, and returns a Panel or None.
game_page_panels: Slot[Panel, SafeString] = Slot(panels_html)
"""A game's page: `game_id`, `status`, `is_study`, `seat_names`, `viewer_position`."""
game_over_panels: Slot[Panel, SafeString] = Slot(panels_html)
"""A finished game's banner: `game_id`."""
replay_position_panels: Slot[Panel, SafeString] = Slot(panels_html)
"""A position of a game's replay: `game`, `ply`."""
settings_page_panels: Slot[Panel, SafeString] = Slot(panels_html)
"""The settings page: what a panel's own form refused, when it did, for that panel."""
new_game_levels_panels: Slot[Panel, SafeString] = Slot(panels_html)
"""The computer levels on the new-game form: nothing more."""
player_page_panels: Slot[Panel, SafeString] = Slot(panels_html)
"""A player's public page: `player` (the user whose page it is)."""


# Parts of emails.

EmailPart = tuple[str, str, dict[str, Any]]
"""What a receiver answers: (HTML template, text template, context)."""


@dataclass(frozen=True)
class EmailParts:
    html: SafeString
    text: str


def email_parts_rendered(parts: list[EmailPart], about: dict[str, Any]) -> EmailParts:
    """The parts' HTML and text ("" when there is none), for the email's two templates to print.
    The text template marks itself `autoescape off` (plain text is not HTML); the HTML one is
    escaped as every template."""
    html = [render_to_string(html_template, context) for html_template, _, context in parts]
    text = [render_to_string(text_template, context) for _, text_template, context in parts]
    # Each HTML part was rendered, and escaped, by the template engine.
    return EmailParts(html=mark_safe("".join(html)), text="".join(text))


# Each receiver is called with what the email knows and returns an EmailPart or None.
your_turn_email_parts: Slot[EmailPart, EmailParts] = Slot(email_parts_rendered)
"""A "your turn" email: `user_id` (its recipient's), `game`."""
chat_message_email_parts: Slot[EmailPart, EmailParts] = Slot(email_parts_rendered)
"""A chat email: `user_id`, `game`, `first_message_id` (the first message it tells of)."""


# Additions to records.


def additions_merged(additions: list[dict[str, Any]], about: dict[str, Any]) -> dict[str, Any]:
    """The keys the receivers add, merged in order (a later receiver's key wins)."""
    merged: dict[str, Any] = {}
    for addition in additions:
        merged.update(addition)
    return merged


# Each receiver is called with the record's object and returns the keys to add ({} for none).
game_export_additions: Slot[dict[str, Any], dict[str, Any]] = Slot(additions_merged)
"""A game's export (`games.record.export`): `game`."""


# Entries in a player's calendar feed.


@dataclass(frozen=True)
class CalendarEntry:
    """One event of a player's calendar feed besides their games' turns: `key` makes its UID
    (stable while it is the same event), it ends at `at`, and `stamp` is its last change."""

    key: str
    at: Any  # an aware datetime
    summary: str
    description: str
    url: str
    stamp: Any  # an aware datetime


def entries_joined(parts: list[list[CalendarEntry]], about: dict[str, Any]) -> list[CalendarEntry]:
    """Every receiver's entries, in order."""
    return [entry for part in parts for entry in part]


# Each receiver is called with `user_id` (the feed's player, their language and time zone active)
# and returns a list of entries ([] for none).
calendar_feed_entries: Slot[list[CalendarEntry], list[CalendarEntry]] = Slot(entries_joined)
"""A player's calendar feed (`games.web.calendar`): `user_id`."""
