"""One-click unsubscribe: a signed link, no login; GET asks, POST does it (RFC 8058); a tampered
or expired link is a 400 that changes nothing."""

import datetime
from datetime import timedelta

import pytest
import time_machine
from django.test import Client
from django.urls import reverse

from notifications import services, tokens
from notifications.models import Notification

pytestmark = pytest.mark.django_db

START = datetime.datetime(2027, 2, 1, 9, 0, tzinfo=datetime.UTC)


def link(user, kind: str) -> str:
    return reverse(
        "notifications:unsubscribe", args=[tokens.unsubscribe_token(user_id=user.pk, kind=kind)]
    )


def one_click(client: Client, url: str):
    """What a mail client sends for `List-Unsubscribe-Post: List-Unsubscribe=One-Click`."""
    return client.post(
        url, "List-Unsubscribe=One-Click", content_type="application/x-www-form-urlencoded"
    )


def preferences(user) -> dict:
    user.profile.refresh_from_db()
    return {
        f.name: getattr(user.profile, f.name)
        for f in user.profile._meta.concrete_fields
        if f.name.startswith("email_")
    }


@pytest.fixture
def client():
    # As a mail client posts: no session, no CSRF cookie or token.
    return Client(enforce_csrf_checks=True)


def test_get_asks_to_confirm_and_changes_nothing(alice, client):
    before = preferences(alice)

    response = client.get(link(alice, "your_turn"))

    assert response.status_code == 200
    page = response.content.decode()
    assert "Stop these emails?" in page
    assert "your turn" in page
    assert '<form method="post"' in page
    assert preferences(alice) == before


def test_the_one_click_post_turns_that_kind_off_without_a_login(alice, bob, start_game, client):
    game = start_game(alice, bob)
    services.notify(recipient_id=alice.pk, kind="your_turn", game_id=game.id, ply=4)
    services.notify(recipient_id=alice.pk, kind="game_over", game_id=game.id, ply=4)
    before = preferences(alice)

    response = one_click(client, link(alice, "your_turn"))

    assert response.status_code == 200
    assert "Unsubscribed" in response.content.decode()
    assert preferences(alice) == {**before, "email_your_turn": "never"}
    # What of that kind had not gone yet will not go; the rest still will.
    assert dict(Notification.objects.values_list("kind", "status")) == {
        "your_turn": "skipped",
        "game_over": "pending",
    }
    assert preferences(bob)["email_your_turn"] == "immediate"


def test_unsubscribing_from_the_digest_turns_off_what_was_routed_to_it(alice, client):
    alice.profile.email_reminder = "digest"
    alice.profile.save()

    response = one_click(client, link(alice, "digest"))

    assert response.status_code == 200
    after = preferences(alice)
    assert after["email_digest"] is False
    assert after["email_reminder"] == "never"
    assert after["email_your_turn"] == "immediate"


@pytest.mark.parametrize("method", ["get", "post"])
def test_a_tampered_link_is_refused_and_changes_nothing(alice, bob, client, method):
    before = preferences(alice)
    good = tokens.unsubscribe_token(user_id=alice.pk, kind="game_over")
    payload, timestamp, signature = good.rsplit(":", 2)
    # Someone else's id with alice's signature; a signature changed; a kind changed.
    forged = [
        tokens.unsubscribe_token(user_id=bob.pk, kind="game_over").rsplit(":", 2)[0]
        + f":{timestamp}:{signature}",
        f"{payload}:{timestamp}:{signature[:-1]}{'A' if signature[-1] != 'A' else 'B'}",
        "not-a-token",
    ]

    for token in forged:
        url = reverse("notifications:unsubscribe", args=[token])
        response = getattr(client, method)(url)
        assert response.status_code == 400, token
        assert "does not work" in response.content.decode()

    assert preferences(alice) == before
    assert preferences(bob)["email_game_over"] == "immediate"


def test_a_link_works_for_ninety_days(alice, client):
    with time_machine.travel(START, tick=False) as clock:
        url = link(alice, "invitation")

        clock.shift(timedelta(days=90, seconds=1))
        assert one_click(client, url).status_code == 400
        assert client.get(url).status_code == 400
        assert preferences(alice)["email_invitation"] == "immediate"

        clock.move_to(START + timedelta(days=89))
        assert one_click(client, url).status_code == 200
        assert preferences(alice)["email_invitation"] == "never"


def test_a_link_for_a_player_who_is_gone_is_refused(alice, client):
    url = link(alice, "timeout")
    alice.delete()

    assert one_click(client, url).status_code == 400


@pytest.mark.parametrize("kind", ["your_turn", "digest", "resigned"])
def test_the_link_opened_again_says_the_player_is_already_unsubscribed(alice, client, kind):
    assert one_click(client, link(alice, kind)).status_code == 200
    after = preferences(alice)

    for again in (client.get(link(alice, kind)), one_click(client, link(alice, kind))):
        assert again.status_code == 200
        page = again.content.decode()
        assert "Already unsubscribed" in page
        assert "alice was already unsubscribed from this kind of email" in page
        assert "Stop these emails?" not in page
        assert f'<form method="post" action="{link(alice, kind)}"' not in page
    assert preferences(alice) == after
