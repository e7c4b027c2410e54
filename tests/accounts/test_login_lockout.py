import re
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from tests.support.factories import PASSWORD

pytestmark = pytest.mark.django_db

LOCKOUT_MESSAGE = "Too many failed login attempts; try again in 15 minutes."


def log_in(client, login, password):
    return client.post(reverse("account_login"), {"login": login, "password": password})


def guess(client, login, times):
    return [log_in(client, login, f"guess-{n}").status_code for n in range(times)]


def test_guessing_loop_is_locked_out_with_429(client, alice):
    statuses = guess(client, "alice", 6)

    assert statuses == [200, 200, 200, 200, 429, 429]
    response = log_in(client, "alice", PASSWORD)
    assert response.status_code == 429
    assert LOCKOUT_MESSAGE in response.content.decode()
    assert "_auth_user_id" not in client.session


@pytest.mark.slow
def test_lockout_answers_before_the_password_is_checked(client, alice, monkeypatch):
    guess(client, "alice", 5)
    checked = []
    monkeypatch.setattr(
        type(alice), "check_password", lambda self, raw: checked.append(raw) or True
    )

    assert log_in(client, "alice", PASSWORD).status_code == 429
    assert checked == []


def test_lockout_counts_username_and_email_together(client, alice):
    guess(client, "alice", 3)
    guess(client, "alice@example.com", 2)

    assert log_in(client, "alice@example.com", PASSWORD).status_code == 429
    assert log_in(client, "alice", PASSWORD).status_code == 429


def test_lockout_is_per_username_so_other_players_can_still_log_in(client, alice, bob):
    guess(client, "alice", 5)

    response = log_in(client, "bob", PASSWORD)

    assert response.status_code == 302


def test_lockout_expires_after_the_cool_off(client, alice, time_machine):
    time_machine.move_to(timezone.now(), tick=False)
    guess(client, "alice", 5)

    time_machine.shift(timedelta(minutes=14))
    assert log_in(client, "alice", PASSWORD).status_code == 429  # and the cool-off restarts

    time_machine.shift(timedelta(minutes=16))
    response = log_in(client, "alice", PASSWORD)
    assert response.status_code == 302
    assert "_auth_user_id" in client.session


def test_successful_login_resets_the_failure_count(client, alice):
    guess(client, "alice", 4)
    assert log_in(client, "alice", PASSWORD).status_code == 302
    client.post(reverse("account_logout"))

    assert guess(client, "alice", 4) == [200, 200, 200, 200]


# Lockout without denial of service (accounts.lockout): a guesser locks only their own address
# out of an account; one spread over many addresses meets the account-wide limit, which lets
# the owner's known browsers through.

ATTACKER = "203.0.113.66"
VICTIM = "198.51.100.7"
ACCOUNT_WIDE_MESSAGE = "can only be logged in to from a browser that has logged in to it before"


def log_in_from(client, address, login, password, url=None):
    return client.post(
        url or reverse("account_login"),
        {"login": login, "password": password}
        if url is None
        else {"username": login, "password": password},
        REMOTE_ADDR=address,
    )


def guess_from(client, address, login, times, url=None):
    return [
        log_in_from(client, address, login, f"guess-{n}", url).status_code for n in range(times)
    ]


def guess_from_many_addresses(login, attempts, per_address=4, url=None, first=1):
    """`attempts` wrong passwords, `per_address` from each of as many addresses (under axes'
    lockout of one address) from 192.0.2.`first` on, each from a new browser."""
    statuses = []
    for n in range(0, attempts, per_address):
        address = f"192.0.2.{first + n // per_address}"
        statuses += guess_from(Client(), address, login, min(per_address, attempts - n), url)
    return statuses


def test_guesses_from_one_address_lock_that_address_out_not_the_owner(client, alice):
    statuses = guess_from(client, ATTACKER, "alice", 10)
    assert statuses[-1] == 429
    assert log_in_from(client, ATTACKER, "alice", PASSWORD).status_code == 429

    victim = Client()
    response = log_in_from(victim, VICTIM, "alice", PASSWORD)

    assert response.status_code == 302
    assert victim.session["_auth_user_id"] == str(alice.pk)


@pytest.fixture
def known_browser(alice):
    """A browser alice signed in from before (then signed out): a known device of hers."""
    browser = Client()
    assert log_in_from(browser, "198.51.100.20", "alice", PASSWORD).status_code == 302
    browser.post(reverse("account_logout"))
    assert "_auth_user_id" not in browser.session
    return browser


def test_guesses_spread_over_many_addresses_meet_the_account_wide_limit(alice, known_browser):
    statuses = guess_from_many_addresses("alice", 30)
    assert 429 not in statuses  # no address guessed more than axes allows

    stranger = Client()
    wrong = log_in_from(stranger, "192.0.2.200", "alice", "guess-x")
    right = log_in_from(stranger, "192.0.2.201", "alice", PASSWORD)

    assert (wrong.status_code, right.status_code) == (429, 429)
    assert ACCOUNT_WIDE_MESSAGE in right.content.decode()
    assert "_auth_user_id" not in stranger.session
    # Her own browser, on whatever network, still gets in.
    response = log_in_from(known_browser, "192.0.2.202", "alice", PASSWORD)
    assert response.status_code == 302
    assert known_browser.session["_auth_user_id"] == str(alice.pk)


def test_the_account_wide_limit_is_per_account(alice, bob):
    guess_from_many_addresses("alice", 30)

    assert log_in_from(Client(), "192.0.2.200", "bob", PASSWORD).status_code == 302


def test_a_browser_known_to_another_account_or_a_forged_cookie_does_not_pass(alice, bob):
    bobs_browser = Client()
    assert log_in_from(bobs_browser, "198.51.100.30", "bob", PASSWORD).status_code == 302
    bobs_browser.post(reverse("account_logout"))
    guess_from_many_addresses("alice", 30)
    forged = Client()
    forged.cookies["known_device"] = str(alice.pk)

    assert log_in_from(bobs_browser, "198.51.100.30", "alice", PASSWORD).status_code == 429
    assert log_in_from(forged, "198.51.100.31", "alice", PASSWORD).status_code == 429


def test_a_known_browser_is_remembered_for_a_year_across_sign_ins(known_browser, alice):
    cookie = known_browser.cookies["known_device"]

    assert cookie["httponly"]
    assert cookie["samesite"] == "Lax"
    assert int(cookie["max-age"]) == 365 * 24 * 3600


def test_a_password_reset_by_email_lifts_the_account_wide_limit(alice, mailoutbox):
    guess_from_many_addresses("alice", 30)
    assert log_in_from(Client(), "192.0.2.200", "alice", PASSWORD).status_code == 429

    owner = Client()
    owner.post(reverse("account_reset_password"), {"email": "alice@example.com"})
    link = re.search(r"http://testserver(/accounts/password/reset/key/\S+/)", mailoutbox[0].body)
    form = owner.get(link.group(1), follow=True).redirect_chain[-1][0]
    new_password = "a-brand-new-wall-9931"
    owner.post(form, {"password1": new_password, "password2": new_password})

    assert log_in_from(Client(), "192.0.2.201", "alice", new_password).status_code == 302


def test_one_address_guessing_many_accounts_is_slowed(alice, bob):
    statuses = [
        log_in_from(Client(), ATTACKER, f"someone-{n}", "guess").status_code for n in range(21)
    ]

    assert statuses[:20] == [200] * 20
    assert statuses[20] == 429
    assert log_in_from(Client(), VICTIM, "alice", PASSWORD).status_code == 302


# The admin's login has the same limits and the same 429 page.

ADMIN_LOGIN = "/admin/login/"


@pytest.fixture
def staff_alice(alice):
    alice.is_staff = True
    alice.is_superuser = True
    alice.save()
    return alice


def test_the_admin_login_locks_out_one_address_with_the_lockout_page(client, staff_alice):
    statuses = guess_from(client, ATTACKER, "alice", 6, url=ADMIN_LOGIN)

    assert statuses == [200, 200, 200, 200, 429, 429]
    response = log_in_from(client, ATTACKER, "alice", PASSWORD, url=ADMIN_LOGIN)
    assert response.status_code == 429
    assert LOCKOUT_MESSAGE in response.content.decode()
    owner = Client()
    assert log_in_from(owner, VICTIM, "alice", PASSWORD, url=ADMIN_LOGIN).status_code == 302
    assert owner.get("/admin/").status_code == 200


def test_the_admin_login_counts_with_the_sites_toward_the_account_wide_limit(staff_alice):
    guess_from_many_addresses("alice", 16)
    guess_from_many_addresses("alice", 14, url=ADMIN_LOGIN, first=100)

    response = log_in_from(Client(), "192.0.2.250", "alice", PASSWORD, url=ADMIN_LOGIN)

    assert response.status_code == 429
    assert ACCOUNT_WIDE_MESSAGE in response.content.decode()


def test_the_admin_login_caps_the_username_length(client, staff_alice):
    from axes.models import AccessAttempt

    response = client.post(ADMIN_LOGIN, {"username": "a" * 300, "password": "x"})

    assert response.status_code == 200
    assert not AccessAttempt.objects.exists()
