"""Text helpers: lists of names, places, and full stops after names.

Sentences that end with a player's name, whose display name may itself end with a full stop
("Alice L."): one stop, never two ("Winner: Alice L." rather than "Winner: Alice L..").

`end_sentence(name)` puts the stop after a name unless it has one; `tidy_full_stops(text)` mends
a finished sentence (for instance a translated one, "Welcome back, %(name)s."), where the name
was put before the stop.
"""

from __future__ import annotations

import re

from django.utils.translation import gettext as _
from django.utils.translation import pgettext

# What already ends a sentence: a full stop (an abbreviation's), a question or an exclamation
# mark, an ellipsis.
_ENDED = (".", "!", "?", "…")
# Two full stops where one is meant, maybe with closing HTML tags between them
# ("<strong>Alice L.</strong>."): neither part of an ellipsis ("...") nor a path ("../").
_DOUBLE_STOP = re.compile(r"(?<!\.)\.((?:</[a-zA-Z][a-zA-Z0-9]*>)*)\.(?![./])")


def end_sentence(text: str, mark: str = ".") -> str:
    """`text` followed by `mark`, unless it already ends a sentence."""
    text = str(text)
    stripped = text.rstrip()
    if not stripped or stripped.endswith(_ENDED):
        return text
    return text + mark


def tidy_full_stops(text: str) -> str:
    """`text` with each doubled full stop (that is not an ellipsis) made one."""
    return _DOUBLE_STOP.sub(r".\1", str(text))


def and_list(names: list[str]) -> str:
    """ "Bob", "Bob and Carol", "Bob, Carol and Dave"."""
    if len(names) <= 1:
        return "".join(names)
    return _("%(names)s and %(last)s") % {"names": ", ".join(names[:-1]), "last": names[-1]}


def ordinal(number: int | None) -> str:
    """A place: "1st", "2nd", ..."""
    if number is None:
        return ""
    if 10 <= number % 100 <= 20:
        text = pgettext("place", "%(number)sth")
    elif number % 10 == 1:
        text = pgettext("place", "%(number)sst")
    elif number % 10 == 2:
        text = pgettext("place", "%(number)snd")
    elif number % 10 == 3:
        text = pgettext("place", "%(number)srd")
    else:
        text = pgettext("place", "%(number)sth")
    return text % {"number": number}
