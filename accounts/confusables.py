"""What a name looks like: its skeleton (UTS #39), from the Unicode confusables table that
`confusable_homoglyphs` ships. Two names with one skeleton can pass for each other.

Apart from the models, so that they (`User.username_skeleton`, `Profile.display_name_skeleton`)
and their migrations can compute it; `accounts.name_rules` says what is refused with it.
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from pathlib import Path
from typing import TYPE_CHECKING, Any

import confusable_homoglyphs

if TYPE_CHECKING:
    from django.db.models import QuerySet

REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co"})

# Look-alikes that the confusables table leaves out and a sans-serif font shows (#66).
EXTRA_CONFUSABLES = (("w", "vv"), ("d", "cl"))

_SPACES = re.compile(r" +")


def normalise(name: str) -> str:
    """NFKC, with surrounding spaces dropped and each run of spaces made one (line breaks and
    the like are left for `name_rules.check_characters` to refuse)."""
    return _SPACES.sub(" ", unicodedata.normalize("NFKC", name)).strip(" ")


def _confusable_pairs() -> list[tuple[str, str]]:
    """The lines of the confusables table, (a character, what it can be confused with: one
    character or several, "m" and "rn"), with EXTRA_CONFUSABLES."""
    path = Path(confusable_homoglyphs.__file__).with_name("confusables.json")
    table: dict[str, list[dict[str, Any]]] = json.loads(path.read_text(encoding="utf-8"))
    # The table wraps right-to-left text in U+200E marks.
    return [
        (text.replace("\u200e", ""), glyph["c"].replace("\u200e", ""))
        for text, homoglyphs in table.items()
        for glyph in homoglyphs
    ] + list(EXTRA_CONFUSABLES)


def _class_prototype(members: list[str]) -> str:
    """What stands for a class of look-alikes: its text of several characters when it has one
    (what UTS #39 maps them to: "rn" for "m"), else its ASCII letter (so that letter case can be
    ignored after), else its smallest code point."""
    return min(members, key=lambda t: (len(t) == 1, not (t.isascii() and t.isalpha()), t))


@functools.cache
def _prototypes() -> dict[str, str]:
    """Each character of the confusables table -> what stands for it and all it can be confused
    with: one character or several ("ⅿ" -> "rn"); one that stands for itself is left out.

    confusables.txt maps each character to one prototype, of one character or several, and the
    package's table keeps each line both ways: a class is a prototype with the characters mapped
    to it, and holds at most one text of several characters, its prototype."""
    parent: dict[str, str] = {}

    def find(text: str) -> str:
        while parent.get(text, text) != text:
            parent[text] = parent.get(parent[text], parent[text])
            text = parent[text]
        return text

    def union(a: str, b: str) -> None:
        parent.setdefault(a, a)
        parent.setdefault(b, b)
        root_a, root_b = find(a), find(b)
        if root_a != root_b:
            parent[max(root_a, root_b)] = min(root_a, root_b)

    for text, other in _confusable_pairs():
        union(text, other)
    classes: dict[str, list[str]] = {}
    for text in parent:
        classes.setdefault(find(text), []).append(text)
    prototype_of_class = {root: _class_prototype(members) for root, members in classes.items()}
    prototypes: dict[str, str] = {}
    for char in parent:
        if len(char) == 1:
            prototypes[char] = prototype_of_class[find(char)]
    for char, prototype in prototypes.items():
        if len(prototype) > 1:
            # Each of its characters stands for its own class ("r" and "n" of "rn").
            prototypes[char] = "".join(
                prototype_of_class[find(c)] if c in parent else c for c in prototype
            )
    return {char: prototype for char, prototype in prototypes.items() if prototype != char}


def skeleton(name: str) -> str:
    """What `name` looks like (UTS #39's skeleton, letter case ignored; "" for no name): NFKC,
    then NFD, format characters dropped, each character replaced by what stands for its class
    ("m" by "rn"). Two names with one skeleton can pass for each other."""
    prototypes = _prototypes()

    text = unicodedata.normalize("NFD", normalise(name))
    text = "".join(c for c in text if unicodedata.category(c) not in REFUSED_CATEGORIES)
    # Until nothing changes: a letter of the other case can stand for another class ("M" for
    # "m", so "rn"), a prototype can have a compatibility form ("⑧" for "8").
    for _round in range(4):
        mapped = "".join(prototypes.get(char, char) for char in text).casefold()
        mapped = unicodedata.normalize("NFD", unicodedata.normalize("NFKC", mapped))
        if mapped == text:
            break
        text = mapped
    return text


def skeletons_store(
    rows: QuerySet[Any], *, name_field: str, skeleton_field: str, batch: int = 2000
) -> None:
    """For the migrations: store the skeleton of each row's `name_field` in its
    `skeleton_field`, in batches (so that a large table is not read into memory at once)."""
    model = rows.model
    # The user's manager joins the profile; nothing here needs it.
    rows = rows.select_related(None).only("pk", name_field, skeleton_field).order_by("pk")
    changed = []
    for row in rows.iterator(chunk_size=batch):
        setattr(row, skeleton_field, skeleton(getattr(row, name_field)))
        changed.append(row)
        if len(changed) == batch:
            model.objects.bulk_update(changed, [skeleton_field])
            changed = []
    model.objects.bulk_update(changed, [skeleton_field])
