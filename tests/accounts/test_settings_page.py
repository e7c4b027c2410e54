import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db

GOOD_SETTINGS = {
    "display_name": "Alice the Tiler",
    "time_zone": "Europe/Lisbon",
    "confirm_moves": "auto",
    "email_your_turn": "immediate",
    "email_invitation": "immediate",
    "email_game_started": "never",
    "email_game_over": "digest",
    "email_reminder": "never",
    "email_timeout": "immediate",
    "email_chat": "digest",
    "email_digest": "on",
}


def test_settings_page_requires_login(client):
    response = client.get(reverse("accounts:settings"))

    assert response.status_code == 302
    assert response.url.startswith(reverse("account_login"))


def test_settings_page_shows_the_current_preferences(alice, client_for):
    response = client_for(alice).get(reverse("accounts:settings"))

    assert response.status_code == 200
    form = response.context["form"]
    assert form["time_zone"].value() == "UTC"
    assert form["email_your_turn"].value() == "immediate"
    assert form["email_digest"].value() is True


def test_saving_settings_updates_the_profile(alice, client_for):
    client = client_for(alice)

    response = client.post(reverse("accounts:settings"), GOOD_SETTINGS, follow=True)

    assert response.redirect_chain == [(reverse("accounts:settings"), 302)]
    assert "Your settings were saved." in response.content.decode()
    alice.profile.refresh_from_db()
    assert alice.profile.display_name == "Alice the Tiler"
    assert alice.profile.time_zone == "Europe/Lisbon"
    assert alice.profile.email_your_turn == "immediate"
    assert alice.profile.email_game_started == "never"
    assert alice.profile.email_game_over == "digest"
    assert alice.profile.email_reminder == "never"
    assert alice.profile.email_chat == "digest"
    assert alice.profile.email_digest is True


def test_unknown_time_zone_is_refused_with_a_clear_error(alice, client_for):
    client = client_for(alice)

    response = client.post(
        reverse("accounts:settings"), {**GOOD_SETTINGS, "time_zone": "Mars/Olympus_Mons"}
    )

    assert response.status_code == 200
    assert response.context["form"].errors["time_zone"] == [
        "“Mars/Olympus_Mons” is not a known time zone. Choose one from the list, "
        "such as Europe/Paris or America/New_York."
    ]
    assert "is not a known time zone" in response.content.decode()
    alice.profile.refresh_from_db()
    assert alice.profile.time_zone == "UTC"
    assert alice.profile.display_name == ""


def test_public_profile_shows_name_and_join_date(alice, client):
    alice.profile.display_name = "Alice the Tiler"
    alice.profile.save()

    response = client.get(reverse("accounts:player", args=["alice"]))

    assert response.status_code == 200
    content = response.content.decode()
    assert "Alice the Tiler" in content
    assert alice.date_joined.strftime("%Y-%m-%d") in content
    assert "Games" in content
    assert "alice@example.com" not in content


def test_public_profile_ignores_letter_case(alice, client):
    response = client.get(reverse("accounts:player", args=["ALICE"]))

    assert response.status_code == 200
    assert response.context["player"] == alice


def test_public_profile_of_unknown_player_is_404(client, db):
    response = client.get(reverse("accounts:player", args=["nobody"]))

    assert response.status_code == 404
