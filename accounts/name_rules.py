"""What a player may call themselves: usernames and display names that cannot phish or pass for
someone else (issue #28).

Every name a player chooses (their username at sign-up, their display name on the settings
page) is normalised to Unicode NFKC with its runs of spaces made one, then refused when it:

- holds a control or format character (categories Cc and Cf: line breaks, tabs, bidi overrides
  such as U+202E, zero-width characters) or a line or paragraph separator (Zl, Zp);
- (a display name) holds a web address (`scheme://`, `www.`, or a domain-like `word.tld`) or `@`;
- is confusable with another player's username or display name: the two have the same
  skeleton (UTS #39, from the Unicode confusables table that `confusable_homoglyphs` ships,
  letter case ignored), so a Cyrillic "о" in "bob" is "bob". A player may keep their own name.

The admin is exempt (it edits the models directly). Names already in the database are kept as
they are until their owner changes them.
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from pathlib import Path
from typing import Any

import confusable_homoglyphs
from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from accounts.models import User

REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co"})

# scheme://, www., or something.tld (a run of letters or digits, a dot, two or more letters).
_WEB_ADDRESS = re.compile(
    r"[a-z][a-z0-9+.\-]*://|\bwww\.|[^\W_](?:[\w\-]*[^\W_])?\.[a-z]{2,}\b", re.IGNORECASE
)
_SPACES = re.compile(r" +")


def normalise(name: str) -> str:
    """NFKC, with surrounding spaces dropped and each run of spaces made one (line breaks and
    the like are left for `check_characters` to refuse)."""
    return _SPACES.sub(" ", unicodedata.normalize("NFKC", name)).strip(" ")


def refused_characters(name: str) -> list[str]:
    """The characters of `name` no name may hold, as "U+202E" codes, in order, once each."""
    found: list[str] = []
    for char in name:
        if unicodedata.category(char) in REFUSED_CATEGORIES:
            code = f"U+{ord(char):04X}"
            if code not in found:
                found.append(code)
    return found


@functools.cache
def _prototypes() -> dict[str, str]:
    """Each character of the confusables table -> one character standing for all those it can
    be confused with (its class's ASCII letter, else its smallest code point)."""
    path = Path(confusable_homoglyphs.__file__).with_name("confusables.json")
    table: dict[str, list[dict[str, Any]]] = json.loads(path.read_text(encoding="utf-8"))
    parent: dict[str, str] = {}

    def find(char: str) -> str:
        while parent.get(char, char) != char:
            parent[char] = parent.get(parent[char], parent[char])
            char = parent[char]
        return char

    def union(a: str, b: str) -> None:
        parent.setdefault(a, a)
        parent.setdefault(b, b)
        root_a, root_b = find(a), find(b)
        if root_a != root_b:
            parent[max(root_a, root_b)] = min(root_a, root_b)

    for char, homoglyphs in table.items():
        if len(char) != 1:
            continue
        for glyph in homoglyphs:
            # The table wraps right-to-left letters in U+200E marks.
            other = glyph["c"].replace("\u200e", "")
            if len(other) == 1:
                union(char, other)
    classes: dict[str, list[str]] = {}
    for char in parent:
        classes.setdefault(find(char), []).append(char)
    prototypes: dict[str, str] = {}
    for members in classes.values():
        # An ASCII letter when the class has one (so that letter case can be ignored after),
        # else the smallest code point.
        prototype = min(members, key=lambda c: (not (c.isascii() and c.isalpha()), c))
        prototypes.update((char, prototype) for char in members)
    return prototypes


def skeleton(name: str) -> str:
    """What `name` looks like: NFKC, format characters dropped, each character replaced by its
    confusables class, letter case ignored. Two names with one skeleton can pass for each
    other."""
    prototypes = _prototypes()

    text = "".join(c for c in normalise(name) if unicodedata.category(c) not in REFUSED_CATEGORIES)
    for _round in range(2):
        text = "".join(prototypes.get(char, char) for char in text).casefold()
    return text


def check_characters(name: str) -> None:
    codes = refused_characters(name)
    if codes:
        raise ValidationError(
            _(
                "A name cannot contain line breaks, invisible or text-direction characters"
                " (found: %(codes)s)."
            )
            % {"codes": ", ".join(codes)},
            code="name_characters",
        )


def check_length(name: str, limit: int | None) -> None:
    """NFKC can lengthen a name (one ligature is several letters): the limit holds after it."""
    if limit is not None and len(name) > limit:
        raise ValidationError(
            _("This name is %(length)s characters long once normalised; the most is %(limit)s.")
            % {"length": len(name), "limit": limit},
            code="name_length",
        )


def check_display_text(name: str) -> None:
    """What a display name may not hold beyond a username's rules: web addresses and `@`."""
    if "@" in name:
        raise ValidationError(
            _("A display name cannot contain “@”: other players would take it for an address."),
            code="name_at",
        )
    match = _WEB_ADDRESS.search(name)
    if match:
        raise ValidationError(
            _(
                "A display name cannot contain a web address (“%(address)s”). If it is not one,"
                " put a space after the full stop."
            )
            % {"address": match.group(0)},
            code="name_web_address",
        )


def check_not_confusable(name: str, *, user_id: Any = None) -> None:
    """Refuse `name` when it looks like another player's username or display name (the player
    `user_id` may keep or re-save their own)."""
    wanted = skeleton(name)
    if not wanted:
        return
    others = User.objects.all()
    if user_id is not None:
        others = others.exclude(pk=user_id)
    for username, display_name in others.values_list("username", "profile__display_name"):
        if skeleton(username) == wanted:
            raise ValidationError(
                _("“%(name)s” looks too much like the username of another player: choose another.")
                % {"name": name},
                code="name_confusable",
            )
        if display_name and skeleton(display_name) == wanted:
            raise ValidationError(
                _(
                    "“%(name)s” looks too much like the display name of another player: choose"
                    " another."
                )
                % {"name": name},
                code="name_confusable",
            )


def clean_username(username: str, *, user_id: Any = None) -> str:
    """A new username, normalised, or ValidationError with what was wrong."""
    username = normalise(username)
    check_characters(username)
    check_not_confusable(username, user_id=user_id)
    return username


def clean_display_name(display_name: str, *, user_id: Any = None) -> str:
    """A display name as its player types it, normalised ("" for none), or ValidationError."""
    display_name = normalise(display_name)
    if not display_name:
        return ""
    check_characters(display_name)
    check_display_text(display_name)
    check_not_confusable(display_name, user_id=user_id)
    return display_name
