"""Confusable names are found against every account by one indexed query (#28): each account's
username and display-name skeletons are stored, kept up to date on every path that saves a name
(sign-up, the settings page, the admin, the services), and filled for the accounts that existed
before by the migration. Look-alikes of several letters count ("rn" for "m", #66), and a second
migration made the stored skeletons again for them."""

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts import name_rules, services
from accounts.confusables import skeleton
from accounts.models import Profile, User
from tests.accounts.test_name_rules import errors_of, save_display_name, sign_up
from tests.support.factories import client_for
from tests.support.migrations import migrate, migrate_to_latest

pytestmark = pytest.mark.django_db

CYRILLIC_E = "\u0435"
BEFORE = [("accounts", "0009_blocks")]
AFTER = [("accounts", "0010_name_skeletons")]
BEFORE_RECOMPUTE = [("accounts", "0016_theme_and_next_game")]
AFTER_RECOMPUTE = [("accounts", "0017_recompute_name_skeletons")]


def many_players(count: int) -> None:
    """`count` more accounts, each with a display name, saved as the site saves them."""
    for i in range(count):
        user = User.objects.create_user(username=f"player{i:04d}")
        services.profile_update(user=user, display_name=f"Tiler number {i:04d}")


def skeletons(user: User) -> tuple[str, str]:
    user = User.objects.get(pk=user.pk)
    return user.username_skeleton, user.profile.display_name_skeleton


@pytest.mark.parametrize(
    "name, lookalike",
    [
        ("m", "rn"),
        ("modern", "rnodern"),
        ("modern", "modem"),
        ("Modern", "RNODERN"),
        ("w", "vv"),
        ("Dawn", "Davvn"),
        ("W", "VV"),
        ("d", "cl"),
        ("daire", "cIaire"),  # a capital I for the l
        ("ⅿ", "rn"),  # a Roman numeral one thousand, which the table maps to "rn"
    ],
)
def test_look_alikes_of_several_letters_have_one_skeleton(name, lookalike):
    assert skeleton(name) == skeleton(lookalike)


@pytest.mark.parametrize("name, other", [("rn", "n"), ("rn", "nn"), ("vv", "v"), ("cl", "c")])
def test_other_letters_keep_their_skeletons_apart(name, other):
    assert skeleton(name) != skeleton(other)


def test_a_username_of_several_look_alike_letters_is_refused(client, make_user):
    make_user("modern")
    make_user("dawn")

    for lookalike in ("rnodern", "davvn"):
        response = sign_up(client, lookalike)
        message = errors_of(response, "username")
        assert "looks too much like the username of another player" in message
    assert not User.objects.filter(email="eve@example.com").exists()


def test_a_confusable_of_one_account_among_many_is_refused(make_user, client):
    many_players(150)
    target = User.objects.get(username="player0117")

    response = sign_up(client, "PLAYER0ll7")  # "l" for "1", upper case

    assert "looks too much like the username of another player" in errors_of(response, "username")
    assert not User.objects.filter(email="eve@example.com").exists()
    with pytest.raises(ValidationError, match="display name of another player"):
        name_rules.check_not_confusable(f"Til{CYRILLIC_E}r numb{CYRILLIC_E}r 0117")
    assert target.username_skeleton == skeleton("player0117")


@pytest.mark.parametrize("accounts", [5, 120])
def test_the_look_up_is_one_query_whatever_the_number_of_accounts(
    accounts, django_assert_max_num_queries
):
    many_players(accounts)
    name_rules.skeleton("warm the confusables table up")

    with django_assert_max_num_queries(1):
        name_rules.check_not_confusable("nobody like this")
    last = f"TILER NUMBER {accounts - 1:04d}"
    with (
        django_assert_max_num_queries(1),
        pytest.raises(ValidationError, match="display name of another player"),
    ):
        name_rules.check_not_confusable(last)


def test_the_look_up_reads_the_skeleton_indexes_not_every_account():
    many_players(20)
    with CaptureQueriesContext(connection) as queries:
        name_rules.check_not_confusable("Nobody like this")
    [query] = queries.captured_queries

    with connection.cursor() as cursor:
        # Tables this small are read whole when the planner may; an indexed query need not be.
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute(f"EXPLAIN {query['sql']}")
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "user_username_skeleton_idx" in plan, plan
    assert "profile_name_skeleton_idx" in plan, plan


def settings_page_queries(client_for, user, name: str) -> int:
    client = client_for(user)
    with CaptureQueriesContext(connection) as queries:
        response = save_display_name(client, name)
    assert response.status_code == 302, response.status_code
    return len(queries)


def test_saving_a_display_name_costs_the_same_with_many_accounts(make_user, client_for):
    few = settings_page_queries(client_for, make_user("eve"), "Eve the Tiler")
    many_players(100)

    assert settings_page_queries(client_for, make_user("mallory"), "Mallory the Tiler") == few


def test_sign_up_stores_the_username_skeleton(client):
    assert sign_up(client, "ＥＶＥ").status_code == 302

    eve = User.objects.get(email="eve@example.com")
    assert skeletons(eve) == (skeleton("eve"), "")


def test_the_settings_page_stores_the_display_name_skeleton(alice, client_for, bob):
    assert save_display_name(client_for(alice), "Alice the Tiler").status_code == 302
    assert skeletons(alice) == (skeleton("alice"), skeleton("Alice the Tiler"))

    # Found by the next player who tries it.
    for lookalike in (f"Alice the Til{CYRILLIC_E}r", "ALICE THE TILER"):
        response = save_display_name(client_for(bob), lookalike)
        assert "looks too much like the display name of another player" in errors_of(
            response, "display_name"
        )

    # Cleared with the name.
    assert save_display_name(client_for(alice), "").status_code == 302
    assert skeletons(alice) == (skeleton("alice"), "")


def test_the_admin_keeps_the_skeletons_up_to_date(alice, make_user, client):
    admin = make_user("boss")
    admin.is_staff = admin.is_superuser = True
    admin.save()
    client.force_login(admin)
    url = reverse("admin:accounts_user_change", args=[alice.pk])
    page = client.get(url)
    form = page.context["adminform"].form
    data = {
        name: value
        for name, value in form.initial.items()
        if value is not None and name not in ("password", "groups", "user_permissions")
    }
    data.update(
        {
            "username": "alicia",
            "date_joined_0": alice.date_joined.strftime("%Y-%m-%d"),
            "date_joined_1": alice.date_joined.strftime("%H:%M:%S"),
            "profile-TOTAL_FORMS": "1",
            "profile-INITIAL_FORMS": "1",
            "profile-MIN_NUM_FORMS": "0",
            "profile-MAX_NUM_FORMS": "1",
            "profile-0-id": str(alice.profile.pk),
            "profile-0-user": str(alice.pk),
            "profile-0-display_name": "Alicia Tiler",
            "profile-0-time_zone": "UTC",
            "profile-0-language": "en",
            "profile-0-confirm_moves": alice.profile.confirm_moves,
            "profile-0-theme": alice.profile.theme,
            **{
                f"profile-0-{field}": getattr(alice.profile, field)
                for field in services.PROFILE_EDITABLE_FIELDS
                if field.startswith("email_") and field != "email_digest"
            },
            "profile-0-email_digest": "on",
            "profile-0-vacation_days_used": "0",
        }
    )
    data.pop("last_login", None)

    response = client.post(url, data)

    assert response.status_code == 302, response.context["errors"]
    alice.refresh_from_db()
    assert alice.username == "alicia"
    assert skeletons(alice) == (skeleton("alicia"), skeleton("Alicia Tiler"))


def test_a_save_of_the_name_alone_writes_its_skeleton(alice):
    alice.username = "ALlCE2"
    alice.save(update_fields=["username"])
    profile = Profile.objects.get(user=alice)
    profile.display_name = "Queen of Tiles"
    profile.save(update_fields=["display_name"])

    assert skeletons(alice) == (skeleton("alice2"), skeleton("queen of tiles"))


@contextmanager
def accounts_at(migration: list[tuple[str, str]]) -> Iterator[Any]:
    """The database migrated back to `migration`, with the models as they were then (yielded);
    on to the latest migrations after."""
    try:
        yield migrate(migration)
    finally:
        migrate_to_latest()


def migrate_through(migration: list[tuple[str, str]]) -> None:
    """Migrate through `migration` on to the latest, which today's models read."""
    executor = MigrationExecutor(connection)
    plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    assert (executor.loader.graph.nodes[migration[0]], False) in plan, "not a step ahead"
    migrate_to_latest()


@pytest.mark.django_db(transaction=True)
def test_the_migration_fills_the_skeletons_of_existing_accounts():
    with accounts_at(BEFORE) as old:
        OldUser = old.get_model("accounts", "User")
        OldProfile = old.get_model("accounts", "Profile")
        OldProfile.objects.create(
            user=OldUser.objects.create(username="Bob"), display_name=f"Tile Mast{CYRILLIC_E}r"
        )
        OldProfile.objects.create(user=OldUser.objects.create(username="carol"))

        migrate_through(AFTER)

        assert skeletons(User.objects.get(username="Bob")) == ("bob", skeleton("tile master"))
        assert skeletons(User.objects.get(username="carol")) == (skeleton("carol"), "")
        with pytest.raises(ValidationError, match="display name of another player"):
            name_rules.check_not_confusable("TILE MASTER")


@pytest.mark.django_db(transaction=True)
def test_the_skeletons_stored_before_look_alikes_of_several_letters_are_made_again():
    with accounts_at(BEFORE_RECOMPUTE) as old:
        OldUser = old.get_model("accounts", "User")
        OldProfile = old.get_model("accounts", "Profile")
        # Skeletons as they were stored before: "rn" and "m", "vv" and "w" apart.
        modern = OldUser.objects.create(username="modern", username_skeleton="modern")
        OldProfile.objects.create(user=modern, display_name="Dawn", display_name_skeleton="dawn")
        rnodern = OldUser.objects.create(username="rnodern", username_skeleton="rnodern")
        OldProfile.objects.create(user=rnodern, display_name="Davvn", display_name_skeleton="davvn")
        # A deleted account: its name "darn" is gone, its old skeleton kept.
        gone = OldUser.objects.create(
            username="~deleted-0", username_skeleton="darn", deleted_at=timezone.now()
        )
        OldProfile.objects.create(user=gone)

        migrate_through(AFTER_RECOMPUTE)

        # The two accounts now look alike: both stay, with the same skeletons.
        assert (
            skeletons(User.objects.get(username="modern"))
            == skeletons(User.objects.get(username="rnodern"))
            == (skeleton("modern"), skeleton("dawn"))
        )
        assert User.objects.get(pk=gone.pk).username_skeleton == skeleton("darn")
        # Each keeps and re-saves their own display name...
        for username, display_name in (("modern", "Dawn"), ("rnodern", "Davvn")):
            response = save_display_name(
                client_for(User.objects.get(username=username)), display_name
            )
            assert response.status_code == 302, username
        # ...and a new name like theirs, or like the deleted one's, is refused.
        with pytest.raises(ValidationError, match="username of another player"):
            name_rules.check_not_confusable("MODERN")
        with pytest.raises(ValidationError, match="display name of another player"):
            name_rules.check_not_confusable("dawn")
        with pytest.raises(ValidationError, match="username of another player"):
            name_rules.check_not_confusable("clarn")
