"""No two accounts' usernames look alike, whatever the timing (#59): the database holds the
skeletons unique (`User.Meta.constraints`), so of two sign-ups at the same moment with lookalike
names, which both pass the form's check, one is told to choose another name. Accounts that
already looked alike when the constraint came stay, marked as sharing their skeleton."""

from __future__ import annotations

import queue
import threading

import pytest
from django.db import IntegrityError, transaction
from django.test import Client
from django.utils import timezone

from accounts import name_rules
from accounts.confusables import skeleton
from accounts.models import User
from tests.accounts.test_name_rules import sign_up
from tests.support.concurrency import run_at_once
from tests.support.migrations import migrate, migrate_to_latest

CYRILLIC_A = "\u0430"
CYRILLIC_O = "\u043e"
BEFORE = [("accounts", "0017_recompute_name_skeletons")]


@pytest.mark.django_db(transaction=True)
def test_of_two_lookalike_sign_ups_at_once_one_is_asked_for_another_name(monkeypatch):
    # Both sign-ups pass the form's look-up before either is saved: the race, every time.
    both_checked = threading.Barrier(2)
    check = name_rules.check_not_confusable

    def check_then_wait(name, **kwargs):
        check(name, **kwargs)
        both_checked.wait(timeout=30)

    monkeypatch.setattr(name_rules, "check_not_confusable", check_then_wait)
    names: queue.SimpleQueue[tuple[str, str]] = queue.SimpleQueue()
    names.put(("bob", "bob@example.com"))
    names.put((f"b{CYRILLIC_O}b", "mallory@example.com"))

    def sign_up_one():
        username, email = names.get()
        return username, sign_up(Client(), username, email)

    answers = dict(run_at_once(2, sign_up_one))

    statuses = sorted(response.status_code for response in answers.values())
    assert statuses == [200, 302]
    [(refused, page)] = [(n, r) for n, r in answers.items() if r.status_code == 200]
    assert "looks too much like the username of another player" in " ".join(
        page.context["form"].errors["username"]
    )
    [taken] = [name for name in answers if name != refused]
    assert list(User.objects.values_list("username", flat=True)) == [taken]


@pytest.mark.django_db
def test_the_database_refuses_a_lookalike_username_saved_past_the_forms():
    User.objects.create_user(username="bob")

    with pytest.raises(IntegrityError) as refused, transaction.atomic():
        User.objects.create_user(username=f"B{CYRILLIC_O}B")

    assert name_rules.username_taken(refused.value)


@pytest.mark.django_db(transaction=True)
def test_accounts_that_already_look_alike_stay_and_the_constraint_holds_for_new_ones():
    try:
        OldUser = migrate(BEFORE).get_model("accounts", "User")
        # Three accounts with one skeleton (a deleted player's among them), one apart.
        bob = OldUser.objects.create(username="bob", username_skeleton=skeleton("bob"))
        gone = OldUser.objects.create(
            username="~deleted-0", username_skeleton=skeleton("bob"), deleted_at=timezone.now()
        )
        lookalike = OldUser.objects.create(
            username=f"b{CYRILLIC_O}b", username_skeleton=skeleton("bob")
        )
        carol = OldUser.objects.create(username="carol", username_skeleton=skeleton("carol"))

        migrate_to_latest()

        shared = dict(User.objects.values_list("pk", "username_skeleton_shared"))
        assert shared == {bob.pk: False, gone.pk: True, lookalike.pk: True, carol.pk: False}
        # Each keeps signing in and saving their account...
        for pk in (bob.pk, lookalike.pk):
            User.objects.get(pk=pk).save()
        # ...and no new account takes a name like theirs, nor like carol's.
        for name in ("BOB", f"C{CYRILLIC_A}rol"):
            with pytest.raises(IntegrityError):
                User.objects.create_user(username=name)
    finally:
        migrate_to_latest()
