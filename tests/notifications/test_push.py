"""Web Push end to end: a notification that comes to be sent reaches a push service on this
machine (tests/support/push_service.py) signed with the site's VAPID key and encrypted for the
device, which decrypts it as a browser would; the push service's answers drop the device (410),
are tried again (429, 5xx), or fail (other 4xx); a kind turned off sends nothing, and the turn-off
link the notice carries turns that kind off for push alone."""

from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import Delivery
from notifications import outbox, services
from notifications.management.commands.vapid_keys import key_pair
from notifications.models import ChannelDelivery, Notification, PushSubscription
from notifications.push import selectors as push_selectors
from notifications.push import services as devices
from tests.support.play import waiting_for
from tests.support.push_service import PushService
from tests.support.urls import SITE_URL

pytestmark = pytest.mark.django_db

PAYLOAD_KEYS = {
    "kind",
    "title",
    "body",
    "url",
    "game_id",
    "turn_off_url",
    "turn_off_title",
    "badge",
}


@pytest.fixture
def vapid(settings):
    public, private = key_pair()
    settings.WEBPUSH_VAPID_PUBLIC_KEY = public
    settings.WEBPUSH_VAPID_PRIVATE_KEY = private
    settings.WEBPUSH_VAPID_SUBJECT = "mailto:contact@example.org"
    return public


@pytest.fixture
def service(vapid):
    with PushService(vapid) as running:
        yield running


def subscribe(user, service, device="phone"):
    sub = service.subscribe(device)
    row, _new = devices.subscription_save(
        user_id=user.pk,
        endpoint=sub["endpoint"],
        p256dh=sub["keys"]["p256dh"],
        auth=sub["keys"]["auth"],
        name=device,
    )
    return row


def notify_and_send(user, kind, game, callbacks):
    """Notify `user` and send the notification now (its grace period skipped), running what
    its commit would start: the deliveries' tasks (in-process here)."""
    with callbacks(execute=True):
        services.notify(recipient_id=user.pk, kind=kind, game_id=game.id, ply=game.ply)
    row = Notification.objects.get(recipient=user, kind=kind, game=game)
    Notification.objects.filter(pk=row.pk).update(send_after=row.created_at)
    with callbacks(execute=True):
        outbox.notification_send(notification_id=row.pk)
    return row


def test_a_your_turn_reaches_the_device_signed_encrypted_and_whole(
    alice, bob, start_game, service, django_capture_on_commit_callbacks
):
    game = waiting_for(start_game(alice, bob), alice)
    device = subscribe(alice, service)

    notify_and_send(alice, "your_turn", game, django_capture_on_commit_callbacks)

    [push] = service.wait_for(1)
    assert push.problem == ""  # VAPID verified with the site's public key, body decrypted
    assert set(push.payload) == PAYLOAD_KEYS
    assert push.payload["kind"] == "your_turn"
    assert push.payload["game_id"] == str(game.id)
    assert push.payload["url"] == f"{SITE_URL}/games/{game.id}/"
    assert push.payload["title"] == "Azul"
    assert "turn" in push.payload["body"].lower()
    assert push.payload["badge"] == 1  # this game waits for alice's move
    assert push.payload["turn_off_url"].startswith(f"{SITE_URL}/notifications/unsubscribe/")
    assert push.payload["turn_off_title"] == "Turn off"
    assert push.headers["ttl"] == "86400"
    assert push.headers["urgency"] == "high"
    assert push.headers["topic"] == game.id.hex
    # Encrypted: nothing of the payload is readable on the way.
    assert b"your_turn" not in push.body and str(game.id).encode() not in push.body
    # Nothing hidden: the game's secret seed is not in it.
    assert game.deal_seed not in json.dumps(push.payload)

    delivery = ChannelDelivery.objects.get(push_subscription=device)
    assert delivery.status == "sent"
    device.refresh_from_db()
    assert device.last_success_at is not None


def test_the_notice_is_in_the_players_language_and_a_game_over_is_not_urgent(
    alice, bob, start_game, service, django_capture_on_commit_callbacks
):
    alice.profile.language = "ko"
    alice.profile.save()
    game = start_game(alice, bob)
    subscribe(alice, service)

    notify_and_send(alice, "game_over", game, django_capture_on_commit_callbacks)

    [push] = service.wait_for(1)
    assert push.problem == ""
    assert push.payload["kind"] == "game_over"
    assert re.search("[\uac00-\ud7a3]", push.payload["body"])  # Hangul
    assert re.search("[\uac00-\ud7a3]", push.payload["turn_off_title"])
    assert push.headers["urgency"] == "normal"


def test_every_device_of_the_player_gets_it(
    alice, bob, start_game, service, django_capture_on_commit_callbacks
):
    game = waiting_for(start_game(alice, bob), alice)
    subscribe(alice, service, "phone")
    subscribe(alice, service, "laptop")
    subscribe(bob, service, "bobs-phone")

    notify_and_send(alice, "your_turn", game, django_capture_on_commit_callbacks)

    pushes = service.wait_for(2)
    assert sorted(p.device for p in pushes) == ["laptop", "phone"]
    assert all(p.problem == "" for p in pushes)


@pytest.mark.parametrize("status", [404, 410])
def test_a_gone_subscription_drops_the_device(
    status, alice, bob, start_game, service, django_capture_on_commit_callbacks
):
    game = waiting_for(start_game(alice, bob), alice)
    device = subscribe(alice, service)
    service.answer(status)

    notify_and_send(alice, "your_turn", game, django_capture_on_commit_callbacks)

    assert len(service.wait_for(1)) == 1
    assert not PushSubscription.objects.filter(pk=device.pk).exists()
    delivery = ChannelDelivery.objects.get(notification__recipient=alice)
    assert delivery.status == "skipped" and str(status) in delivery.last_error


def test_429_is_tried_again_after_retry_after_then_sent(
    alice, bob, start_game, service, django_capture_on_commit_callbacks
):
    game = waiting_for(start_game(alice, bob), alice)
    subscribe(alice, service)
    service.answer(429, {"Retry-After": "600"})

    before = timezone.now()
    notify_and_send(alice, "your_turn", game, django_capture_on_commit_callbacks)

    delivery = ChannelDelivery.objects.get(notification__recipient=alice)
    assert delivery.status == "pending" and "429" in delivery.last_error
    # Retry-After (10 minutes) is longer than the first backoff (1 minute): it wins.
    assert delivery.send_after >= before + timedelta(seconds=600)
    assert outbox.delivery_send(delivery_id=delivery.pk) is False  # not due yet

    ChannelDelivery.objects.filter(pk=delivery.pk).update(send_after=timezone.now())
    assert outbox.delivery_send(delivery_id=delivery.pk) is True

    pushes = service.wait_for(2)
    assert len(pushes) == 2 and pushes[1].problem == ""
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts) == ("sent", 2)


def test_a_5xx_is_tried_again_and_a_4xx_fails_for_good(
    alice, bob, start_game, service, django_capture_on_commit_callbacks
):
    game = waiting_for(start_game(alice, bob), alice)
    device = subscribe(alice, service)
    service.answer(503)
    service.answer(413)

    notify_and_send(alice, "your_turn", game, django_capture_on_commit_callbacks)
    delivery = ChannelDelivery.objects.get(notification__recipient=alice)
    assert delivery.status == "pending" and "503" in delivery.last_error

    ChannelDelivery.objects.filter(pk=delivery.pk).update(send_after=timezone.now())
    outbox.delivery_send(delivery_id=delivery.pk)
    delivery.refresh_from_db()
    assert delivery.status == "failed" and "413" in delivery.last_error
    assert PushSubscription.objects.filter(pk=device.pk).exists()  # failed, not gone


def test_an_unreachable_push_service_is_tried_again(
    alice, bob, start_game, vapid, django_capture_on_commit_callbacks
):
    game = waiting_for(start_game(alice, bob), alice)
    with PushService(vapid) as service:
        subscribe(alice, service)
    # The service has stopped: nothing listens on its port any more.

    notify_and_send(alice, "your_turn", game, django_capture_on_commit_callbacks)

    delivery = ChannelDelivery.objects.get(notification__recipient=alice)
    assert delivery.status == "pending" and "unreachable" in delivery.last_error


def test_an_endpoint_at_a_refused_address_drops_the_device(
    alice, bob, start_game, service, settings, django_capture_on_commit_callbacks
):
    game = waiting_for(start_game(alice, bob), alice)
    device = subscribe(alice, service)
    settings.OUTBOUND_ALLOWED_NETWORKS = []  # 127.0.0.1 is loopback again

    notify_and_send(alice, "your_turn", game, django_capture_on_commit_callbacks)

    assert service.pushes == []
    assert not PushSubscription.objects.filter(pk=device.pk).exists()


def test_a_kind_turned_off_for_push_sends_nothing_there(
    alice, bob, start_game, service, django_capture_on_commit_callbacks
):
    game = waiting_for(start_game(alice, bob), alice)
    subscribe(alice, service)
    devices.channels_set(user_id=alice.pk, changes={"push": ["game_over"]})

    notify_and_send(alice, "your_turn", game, django_capture_on_commit_callbacks)

    assert service.wait_for(1, timeout=0.5) == []
    assert not ChannelDelivery.objects.filter(notification__recipient=alice).exists()


def test_the_turn_off_link_of_a_notice_turns_that_kind_off_for_push_alone(
    alice, bob, start_game, service, client, django_capture_on_commit_callbacks
):
    game = waiting_for(start_game(alice, bob), alice)
    subscribe(alice, service)
    notify_and_send(alice, "your_turn", game, django_capture_on_commit_callbacks)
    [push] = service.wait_for(1)
    link = push.payload["turn_off_url"].removeprefix(SITE_URL)

    page = client.get(link).content.decode()
    assert "notices on your devices" in page
    response = client.post(link)  # the service worker's "turn off" action: no CSRF token

    assert response.status_code == 200
    assert "notices on your devices" in response.content.decode()
    choices = push_selectors.all_choices(user_id=alice.pk)
    assert "your_turn" not in choices["push"]
    assert "your_turn" in choices["webhook"]  # the other channels keep it
    alice.profile.refresh_from_db()
    assert alice.profile.email_your_turn == Delivery.IMMEDIATELY

    bob_game = waiting_for(start_game(bob, alice), alice)
    notify_and_send(alice, "your_turn", bob_game, django_capture_on_commit_callbacks)
    assert len(service.wait_for(2, timeout=0.5)) == 1  # no second notice


def test_without_vapid_keys_push_is_not_offered_and_nothing_is_sent(
    alice, bob, start_game, settings, client_for, django_capture_on_commit_callbacks
):
    settings.WEBPUSH_VAPID_PRIVATE_KEY = ""
    page = client_for(alice).get("/settings/").content.decode()
    assert "Turn on notices on this device" not in page
    assert "This site does not send notices to devices." in page
