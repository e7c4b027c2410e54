"""Parts that an app higher up adds to an email of another app (the chat's new messages in a
"your turn" email), without the email's app importing the part's: as `core.slots.panels` does for
pages.

Each email's slot is a Django signal. The email asks for the slot's parts with what it knows
(`email_parts_render(your_turn_email_parts, user_id=..., game=...)`), putting the HTML and the
text in its context for its two templates to print. An app connects a receiver to the slot from
its AppConfig.ready: a function that reads what its part needs and returns its HTML template,
its text template and their context, or None for no part. The parts come in the order their
receivers were connected.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

from django.dispatch import Signal
from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe

# The slots. Each receiver is called as `receiver(signal=..., sender=None, **about)` and returns
# (HTML template, text template, context) or None.
your_turn_email_parts = Signal()
"""A "your turn" email: `user_id` (its recipient's), `game`."""
chat_message_email_parts = Signal()
"""A chat email: `user_id`, `game`, `first_message_id` (the first message it tells of)."""


EmailPart = tuple[str, str, dict[str, Any]]
"""What a receiver answers: (HTML template, text template, context)."""


@dataclass(frozen=True)
class EmailParts:
    html: SafeString
    text: str


def email_parts_render(slot: Signal, **about: Any) -> EmailParts:
    """The HTML and text of `slot`'s parts ("" when there is none). The text template marks
    itself `autoescape off` (plain text is not HTML); the HTML one is escaped as every template."""
    html: list[str] = []
    text: list[str] = []
    # The receivers' answers, in order (django-stubs says `str | None`).
    answers = cast(list[tuple[Any, EmailPart | None]], slot.send(None, **about))
    for _receiver, part in answers:
        if part is None:
            continue
        html_template, text_template, context = part
        html.append(render_to_string(html_template, context))
        text.append(render_to_string(text_template, context))
    # Each HTML part was rendered, and escaped, by the template engine.
    return EmailParts(html=mark_safe("".join(html)), text="".join(text))
