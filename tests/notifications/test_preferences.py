"""Each player chooses, per kind of email: immediately, in the daily digest, or never; the
three old on/off switches carry over."""

import pytest
from django.urls import reverse

from accounts.models import DELIVERY_FIELDS, Profile
from notifications import services
from notifications.models import Notification
from tests.support.mail import sent
from tests.support.migrations import migrate, migrate_to_latest

BEFORE = [("accounts", "0002_user_profile_manager")]
AFTER = [("accounts", "0005_drop_notify_switches")]


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_the_migration_keeps_what_players_chose_and_starts_the_rest_on():
    old = migrate(BEFORE)
    try:
        User, Profile = old.get_model("accounts", "User"), old.get_model("accounts", "Profile")
        switches = {
            "all_on": (True, True, True),
            "all_off": (False, False, False),
            "mixed": (True, False, True),
            "mixed2": (False, True, False),
        }
        for username, (turn, reminder, game_end) in switches.items():
            Profile.objects.create(
                user=User.objects.create(username=username),
                notify_turn=turn,
                notify_reminder=reminder,
                notify_game_end=game_end,
            )

        new = migrate(AFTER).get_model("accounts", "Profile")
        word = {True: "immediate", False: "never"}
        for username, (turn, reminder, game_end) in switches.items():
            profile = new.objects.get(user__username=username)
            assert (
                profile.email_your_turn,
                profile.email_reminder,
                profile.email_game_over,
            ) == (word[turn], word[reminder], word[game_end]), username
            # No old switch: immediately; and the digest itself is on.
            assert profile.email_invitation == "immediate"
            assert profile.email_game_started == "immediate"
            assert profile.email_timeout == "immediate"
            assert profile.email_digest is True
    finally:
        migrate_to_latest()


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_the_migration_goes_back_to_the_switches(django_user_model):
    # A player's choices as today's models keep them; then one migration back through them all.
    dora = django_user_model.objects.create(username="dora")
    chosen = Profile.objects.filter(user=dora).update(
        email_your_turn="digest", email_reminder="never", email_game_over="immediate"
    )
    assert chosen == 1
    try:
        old = migrate(BEFORE)
        profile = old.get_model("accounts", "Profile").objects.get(user__username="dora")
        assert (profile.notify_turn, profile.notify_reminder, profile.notify_game_end) == (
            True,
            False,
            True,
        )
    finally:
        migrate_to_latest()


@pytest.mark.django_db
def test_new_players_get_every_kind_immediately_and_the_digest(make_user):
    profile = make_user("dora").profile

    assert {getattr(profile, f) for f in DELIVERY_FIELDS if f != "email_chat"} == {"immediate"}
    # A message alone sends no email unless the player asks for it.
    assert profile.email_chat == "never"
    assert profile.email_digest is True


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("delivery", "digest_on", "status"),
    [
        ("immediate", True, "sent"),
        ("digest", True, "held"),
        ("never", True, "skipped"),
        # Held for a digest the player does not get: as good as never.
        ("digest", False, "skipped"),
    ],
)
def test_the_players_choice_decides_when_the_notification_goes(
    alice, bob, start_game, delivery, digest_on, status, django_capture_on_commit_callbacks
):
    """Applied when the notification goes, so that a change of mind in between counts."""
    game = start_game(alice, bob)
    alice.profile.email_game_over = delivery
    alice.profile.email_digest = digest_on
    alice.profile.save()

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        services.notify(recipient_id=alice.pk, kind="game_over", game_id=game.id, ply=game.ply)

    assert len(callbacks) == 1  # the event's send task, once the caller commits
    [row] = Notification.objects.filter(recipient=alice, kind="game_over")
    assert row.status == status
    assert len(sent("game_over")) == (1 if status == "sent" else 0)
    if status == "held":
        assert row.send_after is None


@pytest.mark.django_db
def test_notify_players_is_one_insert_however_many_players(
    alice, bob, carol, start_game, django_assert_num_queries
):
    game = start_game(alice, bob, carol)

    with django_assert_num_queries(1):
        services.notify_players(
            recipient_ids=[alice.pk, bob.pk, carol.pk],
            kind="game_started",
            game_id=game.id,
            ply=game.ply,
        )

    rows = dict(
        Notification.objects.filter(kind="game_started").values_list("recipient_id", "status")
    )
    assert rows == {alice.pk: "pending", bob.pk: "pending", carol.pk: "pending"}


# -- the settings page ---------------------------------------------------------------------------


def choices(**changes):
    data = {
        "display_name": "",
        "time_zone": "UTC",
        **{f: "immediate" for f in DELIVERY_FIELDS},
        "email_digest": "on",
    }
    data.update(changes)
    return {k: v for k, v in data.items() if v is not None}


@pytest.mark.django_db
def test_the_settings_page_offers_the_three_choices_for_each_kind(alice, client_for):
    response = client_for(alice).get(reverse("accounts:settings"))

    page = response.content.decode()
    for field in DELIVERY_FIELDS:
        assert f'name="{field}"' in page
    assert page.count('value="digest"') == len(DELIVERY_FIELDS)
    assert 'name="email_digest"' in page


@pytest.mark.django_db
def test_the_settings_page_saves_each_choice(alice, client_for):
    response = client_for(alice).post(
        reverse("accounts:settings"),
        choices(email_your_turn="digest", email_reminder="never", email_timeout="digest"),
    )

    assert response.status_code == 302
    alice.profile.refresh_from_db()
    assert alice.profile.email_your_turn == "digest"
    assert alice.profile.email_reminder == "never"
    assert alice.profile.email_timeout == "digest"
    assert alice.profile.email_invitation == "immediate"


@pytest.mark.django_db
def test_the_digest_cannot_be_off_while_a_kind_waits_for_it(alice, client_for):
    response = client_for(alice).post(
        reverse("accounts:settings"), choices(email_game_over="digest", email_digest=None)
    )

    assert response.status_code == 200
    assert "turn the digest on" in response.context["form"].errors["email_digest"][0]
    alice.profile.refresh_from_db()
    assert alice.profile.email_game_over == "immediate"
    assert alice.profile.email_digest is True


@pytest.mark.django_db
def test_an_unknown_choice_is_refused(alice, client_for):
    response = client_for(alice).post(
        reverse("accounts:settings"), choices(email_your_turn="sometimes")
    )

    assert response.status_code == 200
    assert "email_your_turn" in response.context["form"].errors
