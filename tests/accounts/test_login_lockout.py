from datetime import timedelta

import pytest
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
