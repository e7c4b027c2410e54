"""Fair play (#28): no phishing or impersonation through names. A hostile second account cannot
choose a username or display name that carries line breaks, invisible or text-direction
characters, web addresses or "@", or that passes for another player's name; every refusal says
what was wrong and saves nothing. Innocent names (accents, Korean) go through."""

import pytest
from django.urls import reverse

from accounts import name_rules
from accounts.models import User
from tests.accounts.test_settings_page import GOOD_SETTINGS
from tests.support.factories import PASSWORD

pytestmark = pytest.mark.django_db

CYRILLIC_O = "\u043e"


def sign_up(client, username, email="eve@example.com"):
    return client.post(
        reverse("account_signup"),
        {"username": username, "email": email, "password1": PASSWORD, "password2": PASSWORD},
    )


def save_display_name(client, name):
    return client.post(reverse("accounts:settings"), {**GOOD_SETTINGS, "display_name": name})


def errors_of(response, field):
    assert response.status_code == 200, response.status_code
    return " ".join(response.context["form"].errors.get(field, []))


# Sign-up -----------------------------------------------------------------------------------


def test_a_username_with_a_cyrillic_o_is_not_a_new_bob(client, bob, mailoutbox):
    response = sign_up(client, f"b{CYRILLIC_O}b")

    assert "looks too much like the username of another player" in errors_of(response, "username")
    assert not User.objects.filter(email="eve@example.com").exists()
    assert mailoutbox == []


@pytest.mark.parametrize("username", ["BOB", "b0b", "ｂｏｂ", "B\u041eB"])
def test_usernames_confusable_with_bob_are_refused(client, bob, username):
    response = sign_up(client, username)

    message = errors_of(response, "username")
    assert "another player" in message or "already exists" in message
    assert User.objects.count() == 1


def test_a_username_confusable_with_a_display_name_is_refused(client, bob):
    bob.profile.display_name = "tilemaster"
    bob.profile.save()

    response = sign_up(client, "TiIeMaster")

    assert "looks too much like the display name of another player" in errors_of(
        response, "username"
    )
    assert not User.objects.filter(email="eve@example.com").exists()


@pytest.mark.parametrize(
    "username, code",
    [("eve\u202e", "U+202E"), ("e\u200bve", "U+200B"), ("eve\u2028x", "U+2028")],
)
def test_a_username_with_an_invisible_or_direction_character_is_refused(client, username, code):
    response = sign_up(client, username)

    message = errors_of(response, "username")
    assert "invisible or text-direction characters" in message
    assert code in message
    assert not User.objects.filter(email="eve@example.com").exists()


def test_a_username_is_stored_in_nfkc(client):
    response = sign_up(client, "ｅｖｅ")  # fullwidth letters

    assert response.status_code == 302
    assert User.objects.get(email="eve@example.com").username == "eve"


@pytest.mark.parametrize("username", ["zoë", "김민준", "José"])
def test_innocent_usernames_with_accents_or_korean_are_accepted(client, bob, username):
    response = sign_up(client, username)

    assert response.status_code == 302
    assert User.objects.get(email="eve@example.com").username == username


# The settings page ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, message",
    [
        ("Azul Support\nReset", "invisible or text-direction characters (found: U+000A)"),
        ("Eve\u202etxt.exe", "U+202E"),
        ("E\u200bve", "(found: U+200B)"),
        ("Eve\u2029x", "U+2029"),
        ("Support https://evil.test", "web address (“https://”)"),
        ("www.evil.test", "web address (“www.”)"),
        ("Reset at evil.test", "web address (“evil.test”)"),
        ("Visit EVIL.COM", "web address (“EVIL.COM”)"),
        ("Free tiles at bit.ly/azul", "web address (“bit.ly”)"),
        ("St.Louis at tiles.example.co.kr", "web address (“tiles.example.co.kr”)"),
        ("пример.рф", "web address (“пример.рф”)"),
        ("evil。com", "web address (“evil。com”)"),
        ("eve@evil", "cannot contain “@”"),
        ("bob", "looks too much like the username of another player"),
        ("B\u043eb", "looks too much like the username of another player"),
        ("Carol the Tiler", "looks too much like the display name of another player"),
        ("CAROL THE TILER", "looks too much like the display name of another player"),
    ],
)
def test_a_hostile_display_name_is_refused_with_what_was_wrong(
    bob, carol, make_user, client_for, name, message
):
    carol.profile.display_name = "Carol the Tiler"
    carol.profile.save()
    eve = make_user("eve")

    response = save_display_name(client_for(eve), name)

    assert message in errors_of(response, "display_name")
    eve.profile.refresh_from_db()
    assert eve.profile.display_name == ""
    assert eve.profile.time_zone == "UTC"  # nothing of the form was saved


@pytest.mark.parametrize(
    "name",
    [
        "Zoë Ångström",
        "김민준",
        "Alice L.",
        "J.R. Tiler",
        "Ana-Sofía",
        "St.Louis",
        "J.R.R. Tolkien",
        "Mr.Bean",
        "v1.5 Tiler",
    ],
)
def test_innocent_display_names_are_accepted(alice, client_for, name):
    response = save_display_name(client_for(alice), name)

    assert response.status_code == 302
    alice.profile.refresh_from_db()
    assert alice.profile.display_name == name


def test_a_display_name_is_normalised(alice, client_for):
    save_display_name(client_for(alice), "Ａｌｉｃｅ   the  Tiler")

    alice.profile.refresh_from_db()
    assert alice.profile.display_name == "Alice the Tiler"


def test_a_player_keeps_and_resaves_their_own_name(alice, client_for):
    client = client_for(alice)
    assert save_display_name(client, "Alice the Tiler").status_code == 302
    assert save_display_name(client, "Alice the Tiler").status_code == 302
    # Confusable with one's own username or display name is no one else's name.
    assert save_display_name(client, "ALICE").status_code == 302


def test_a_name_saved_before_the_rules_stays_until_its_owner_changes_it(alice, bob, client_for):
    # Written before these rules (or by the admin, which is exempt): kept as it is.
    alice.profile.display_name = "bob"
    alice.profile.save()
    client = client_for(alice)

    assert save_display_name(client, "bob").status_code == 302
    alice.profile.refresh_from_db()
    assert alice.profile.display_name == "bob"

    response = save_display_name(client, "b0b")
    assert "another player" in errors_of(response, "display_name")


def test_the_refusals_are_translated(bob, make_user, client_for):
    eve = make_user("eve")
    client = client_for(eve)
    client.cookies["django_language"] = "ko"

    for name in ("bob", "eve@evil", "Reset at evil.test", "E\u200bve"):
        response = client.post(
            reverse("accounts:settings"),
            {**GOOD_SETTINGS, "display_name": name},
            HTTP_ACCEPT_LANGUAGE="ko",
        )
        message = errors_of(response, "display_name")
        assert message
        assert not message.isascii(), message


# The rules themselves --------------------------------------------------------------------------


def test_skeletons_ignore_case_and_homoglyphs_but_not_other_letters():
    same = name_rules.skeleton
    assert same("bob") == same(f"b{CYRILLIC_O}b") == same("BOB") == same("b0b") == same("ｂｏｂ")
    assert same("alice") == same("AIice")
    assert same("zoë") != same("zoe")
    assert same("김민준") != same("김민수")
    assert same("anna") != same("anne")


@pytest.mark.parametrize(
    "name, address",
    [
        ("St.Louis", None),
        ("J.R.R. Tolkien", None),
        ("Mr.Bean", None),
        ("Dr.Jekyll and Mr.Hyde", None),
        ("tiles.COM", "tiles.COM"),
        ("St.Louis or evil.io", "evil.io"),
        ("a.b.c.net", "a.b.c.net"),
        ("hidden.onion", "hidden.onion"),
        ("Www.Louis", "Www."),
        ("ftp://Louis", "ftp://"),
        ("xn--e1afmkfd.xn--p1ai", "xn--e1afmkfd.xn--p1ai"),
    ],
)
def test_a_web_address_is_a_scheme_www_or_a_real_top_level_domain(name, address):
    assert name_rules.web_address(name) == address
