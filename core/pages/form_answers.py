"""A form's answer beside the form that was used, where the player's eyes and focus are, not at
the top of a long page (issue 58: a message out of sight is a message not read).

A view that redirects back to a page says what happened with `answer(request, level, text,
place=...)`: a message tagged with its place. The page prints each place's answers with
`{% form_answers "place" %}` (`core.templatetags.form_answers`) next to the form, focused on
load (`autofocus`, no script); the top of the page (base.html) shows only the messages without
a place. A form refused with errors is rendered again, not redirected: `first_error_focused`
puts the focus on its first field in error (Django marks it aria-invalid and describes it by
its error).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.messages.storage.base import Message
from django.http import HttpRequest

_TAG = "at-"


def answer(request: HttpRequest, level: int, text: str, *, place: str) -> None:
    """Add `text` as a message shown at `place` (a name the page prints answers under)."""
    messages.add_message(request, level, text, extra_tags=_TAG + place)


def place_of(message: Message) -> str:
    """The message's place, or "" for a message shown at the top of the page."""
    for tag in (message.extra_tags or "").split():
        if tag.startswith(_TAG):
            return tag[len(_TAG) :]
    return ""


def at(stored: Iterable[Message] | None, place: str) -> list[Message]:
    return [m for m in stored or () if place_of(m) == place]


def unplaced(stored: Iterable[Message] | None) -> list[Message]:
    return [m for m in stored or () if not place_of(m)]


def first_error_focused(form: forms.BaseForm | None) -> Any:
    """Give the form's first field in error the focus when the page loads (the same form)."""
    if form is None or not form.is_bound:
        return form
    for name in form.errors:
        # An error of the whole form (beside it, at its top) focuses its first field.
        field = form.fields.get(name) or next(iter(form.fields.values()), None)
        if field is not None:
            field.widget.attrs["autofocus"] = True
        break
    return form
