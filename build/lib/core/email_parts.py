"""Parts that an app higher up adds to an email of another app (the chat's new messages in a
"your turn" email), without the email's app importing the part's: as `core.panels` does for
pages.

The email names a slot and asks for its parts with what it knows
(`email_parts_render("your_turn", user_id=..., game=...)`), putting the HTML and the text in its
context for its two templates to print. An app fills a slot from its AppConfig.ready
(`email_part_register`) with a builder: a function that reads what its part needs and returns
its HTML template, its text template and their context, or None for no part.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe

EmailPartBuilder = Callable[..., tuple[str, str, dict[str, Any]] | None]
"""Called as `builder(**what_the_email_knows)`: (HTML template, text template, context)."""

_builders: dict[str, list[EmailPartBuilder]] = {}


@dataclass(frozen=True)
class EmailParts:
    html: SafeString
    text: str


def email_part_register(slot: str, builder: EmailPartBuilder) -> None:
    builders = _builders.setdefault(slot, [])
    if builder not in builders:
        builders.append(builder)


def email_parts_render(slot: str, **about: Any) -> EmailParts:
    """The HTML and text of `slot`'s parts ("" when there is none). The text template marks
    itself `autoescape off` (plain text is not HTML); the HTML one is escaped as every template."""
    html: list[str] = []
    text: list[str] = []
    for builder in _builders.get(slot, ()):
        part = builder(**about)
        if part is None:
            continue
        html_template, text_template, context = part
        html.append(render_to_string(html_template, context))
        text.append(render_to_string(text_template, context))
    # Each HTML part was rendered, and escaped, by the template engine.
    return EmailParts(html=mark_safe("".join(html)), text="".join(text))
