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
from typing import Any

import confusable_homoglyphs

REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co"})

_SPACES = re.compile(r" +")


def normalise(name: str) -> str:
    """NFKC, with surrounding spaces dropped and each run of spaces made one (line breaks and
    the like are left for `name_rules.check_characters` to refuse)."""
    return _SPACES.sub(" ", unicodedata.normalize("NFKC", name)).strip(" ")


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
    confusables class, letter case ignored ("" for no name). Two names with one skeleton can
    pass for each other."""
    prototypes = _prototypes()

    text = "".join(c for c in normalise(name) if unicodedata.category(c) not in REFUSED_CATEGORIES)
    for _round in range(2):
        text = "".join(prototypes.get(char, char) for char in text).casefold()
    return text
