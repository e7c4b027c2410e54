"""The Korean catalog is complete and compiled.

`locale/ko/LC_MESSAGES/django.po` is the source; the compiled `django.mo` beside it is
committed, so that a machine without gettext serves the translations. `make messages` updates
both. These tests fail when an entry is untranslated or fuzzy, when a translation's
placeholders differ from the English, when the committed .mo does not hold what the .po says
(compiled here with polib to compare, since file times mean nothing in a git checkout), and,
where gettext's xgettext is installed, when a string marked in the code or templates is missing
from the catalog (`make messages` was not run after it was added).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import polib
import pytest
from django.conf import settings

LOCALE = Path(settings.BASE_DIR) / "locale"
LANGUAGES = [code for code, _ in settings.LANGUAGES if code != "en"]
PLACEHOLDER = re.compile(r"%\((\w+)\)[sdr]")


def po_path(language: str, domain: str = "django") -> Path:
    return LOCALE / language / "LC_MESSAGES" / f"{domain}.po"


def catalogs() -> list[Path]:
    return sorted(LOCALE.glob("*/LC_MESSAGES/*.po"))


def translated(entries) -> dict[tuple[str | None, str], object]:
    """(context, msgid) -> the translation (a tuple of forms for a plural entry)."""
    table = {}
    for entry in entries:
        if entry.obsolete or not entry.msgid:
            continue
        if entry.msgid_plural:
            forms = tuple(entry.msgstr_plural[i] for i in sorted(entry.msgstr_plural))
            table[(entry.msgctxt, entry.msgid)] = forms
        else:
            table[(entry.msgctxt, entry.msgid)] = entry.msgstr
    return table


def test_there_is_a_catalog_for_every_language():
    for language in LANGUAGES:
        assert po_path(language).is_file(), f"run `make messages` to create {po_path(language)}"


@pytest.mark.parametrize("path", catalogs(), ids=lambda p: str(p.relative_to(LOCALE)))
def test_every_entry_is_translated_and_none_is_fuzzy(path):
    po = polib.pofile(str(path))
    assert not po.metadata_is_fuzzy, f"{path}: the header is marked fuzzy"
    problems = []
    for entry in po:
        if entry.obsolete:
            continue
        where = f"{entry.msgid!r}" + (f" (context {entry.msgctxt!r})" if entry.msgctxt else "")
        if "fuzzy" in entry.flags:
            problems.append(f"fuzzy: {where}")
        forms = list(entry.msgstr_plural.values()) if entry.msgid_plural else [entry.msgstr]
        if not forms or not all(forms):
            problems.append(f"untranslated: {where}")
    assert not problems, f"{path}:\n" + "\n".join(problems)


@pytest.mark.parametrize("path", catalogs(), ids=lambda p: str(p.relative_to(LOCALE)))
def test_translations_keep_the_placeholders(path):
    """A translation names the same %(name)s values as the English it translates (the plural
    form's, for a plural entry), so formatting it never fails nor drops a value."""
    problems = []
    for entry in polib.pofile(str(path)):
        if entry.obsolete or not entry.translated():
            continue
        english = set(PLACEHOLDER.findall(entry.msgid_plural or entry.msgid))
        forms = entry.msgstr_plural.values() if entry.msgid_plural else [entry.msgstr]
        for form in forms:
            if set(PLACEHOLDER.findall(form)) != english:
                problems.append(f"{entry.msgid!r} -> {form!r}")
    assert not problems, f"{path}:\n" + "\n".join(problems)


@pytest.mark.parametrize("path", catalogs(), ids=lambda p: str(p.relative_to(LOCALE)))
def test_the_committed_mo_is_compiled_from_the_po(path, tmp_path):
    mo = path.with_suffix(".mo")
    assert mo.is_file(), f"{mo} is missing: run `make messages`"
    po = polib.pofile(str(path))
    fresh = tmp_path / "fresh.mo"
    po.save_as_mofile(str(fresh))
    expected = translated(polib.mofile(str(fresh)))
    committed = translated(polib.mofile(str(mo)))
    stale = sorted(
        str(key)
        for key in expected.keys() | committed.keys()
        if expected.get(key) != committed.get(key)
    )
    assert not stale, f"{mo} differs from {path.name}: run `make messages`\n" + "\n".join(
        stale[:20]
    )
    assert polib.mofile(str(mo)).metadata.get("Plural-Forms") == po.metadata.get("Plural-Forms")


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("xgettext") is None, reason="gettext's xgettext is not installed")
def test_every_marked_string_is_in_the_catalog(tmp_path):
    """`makemessages` run on a copy of the project finds no string that the committed catalog
    lacks: every string marked for translation has its Korean."""
    base = Path(settings.BASE_DIR)
    copy = tmp_path / "project"
    ignore = shutil.ignore_patterns(
        ".*", "__pycache__", "staticfiles", "artifacts", "media", "node_modules", "*.mo"
    )
    shutil.copytree(base, copy, ignore=ignore)
    for domain in ("django", "djangojs"):
        command = [sys.executable, "manage.py", "makemessages", "--domain", domain]
        subprocess.run(
            [*command, *MAKEMESSAGES_ARGS], cwd=copy, check=True, capture_output=True, timeout=300
        )
    for language in LANGUAGES:
        for fresh in sorted((copy / "locale" / language / "LC_MESSAGES").glob("*.po")):
            committed = po_path(language, fresh.stem)
            have = {(e.msgctxt, e.msgid) for e in polib.pofile(str(committed)) if not e.obsolete}
            missing = [
                f"{e.msgid!r} ({', '.join(f for f, _ in e.occurrences[:3])})"
                for e in polib.pofile(str(fresh))
                if not e.obsolete and (e.msgctxt, e.msgid) not in have
            ]
            assert not missing, (
                f"{committed} lacks strings marked in the code: run `make messages` and translate"
                " them:\n" + "\n".join(missing)
            )


# What `make messages` runs (kept in step with the Makefile).
MAKEMESSAGES_ARGS = [
    *("--locale", "ko"),
    "--no-obsolete",
    *("--ignore", "staticfiles"),
    *("--ignore", "artifacts"),
    *("--ignore", "tests"),
    *("--ignore", "scripts"),
    *("--ignore", "docs"),
]
