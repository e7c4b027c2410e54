"""A player's devices for push notices and their choices per channel: the API
(`/api/push-subscriptions/`, `/api/notification-channels/`), the settings page's panel and forms
(which work without script), what is refused, the limit, and a hostile second account that can
neither see, remove, rename nor take over the first's devices."""

from __future__ import annotations

import base64
import os

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from django.core.management import call_command
from django.urls import reverse
from rest_framework.throttling import ScopedRateThrottle

from notifications import tokens
from notifications.management.commands.vapid_keys import key_pair
from notifications.models import PushSubscription
from notifications.push import selectors as push_selectors
from tests.support.push_service import Browser, b64url_decode

pytestmark = pytest.mark.django_db

API = "/api/push-subscriptions/"
CHANNELS = "/api/notification-channels/"
ENDPOINT = "https://push.example.net/send/"
DEFAULT = ["your_turn", "invitation", "game_started", "game_over", "timeout"]


@pytest.fixture(autouse=True)
def vapid(settings):
    public, private = key_pair()
    settings.WEBPUSH_VAPID_PUBLIC_KEY = public
    settings.WEBPUSH_VAPID_PRIVATE_KEY = private
    settings.WEBPUSH_VAPID_SUBJECT = "mailto:contact@example.org"
    return public


def subscription(device: str = "a", **changes):
    browser = Browser()
    body = {
        "endpoint": ENDPOINT + device,
        "keys": {"p256dh": browser.p256dh, "auth": browser.auth},
        "name": f"Device {device}",
    }
    body.update(changes)
    return body


def test_a_device_is_added_listed_renamed_and_removed(alice, api_client_for, vapid):
    api = api_client_for(alice)

    created = api.post(API, subscription("a"), format="json")
    assert created.status_code == 201, created.json()
    device_id = created.json()["id"]

    listing = api.get(API).json()
    assert listing["offered"] is True
    assert listing["public_key"] == vapid
    assert listing["max_devices"] == 10
    assert [(d["id"], d["name"], d["last_success_at"]) for d in listing["devices"]] == [
        (device_id, "Device a", None)
    ]

    renamed = api.patch(f"{API}{device_id}/", {"name": "Phone"}, format="json")
    assert renamed.status_code == 200 and renamed.json()["name"] == "Phone"

    assert api.delete(f"{API}{device_id}/").status_code == 204
    assert api.get(API).json()["devices"] == []
    assert api.delete(f"{API}{device_id}/").status_code == 404


def test_the_same_endpoint_again_updates_its_keys_and_adds_nothing(alice, api_client_for):
    api = api_client_for(alice)
    first = api.post(API, subscription("a"), format="json")
    again = subscription("a", name="")
    second = api.post(API, again, format="json")

    assert (first.status_code, second.status_code) == (201, 200)
    [row] = PushSubscription.objects.filter(user=alice)
    assert row.p256dh == again["keys"]["p256dh"] and row.auth == again["keys"]["auth"]
    assert row.name == "Device a"  # no name given: the old one kept


def point_not_on_the_curve() -> str:
    return base64.urlsafe_b64encode(b"\x04" + os.urandom(64)).decode().rstrip("=")


@pytest.mark.parametrize(
    "changes",
    [
        {"endpoint": "http://push.example.net/send/x"},  # not https (HTTP is for tests only)
        {"endpoint": "https://localhost/send/x"},
        {"endpoint": "https://10.0.0.8/send/x"},
        {"endpoint": "https://user:pw@push.example.net/x"},
        {"endpoint": "ftp://push.example.net/x"},
        {"endpoint": "https://push.example.net/" + "x" * 1000},
        {"endpoint": 12},
        {"endpoint": None},
        {"keys": {"p256dh": "not base64!", "auth": "AAAAAAAAAAAAAAAAAAAAAA"}},
        {"keys": {"p256dh": point_not_on_the_curve(), "auth": "AAAAAAAAAAAAAAAAAAAAAA"}},
        {"keys": {"p256dh": "BAAA", "auth": "AAAAAAAAAAAAAAAAAAAAAA"}},
        {"keys": {"p256dh": Browser().p256dh, "auth": "AAAA"}},
        {"keys": {"p256dh": Browser().p256dh, "auth": "A" * 2000}},
        {"keys": {"p256dh": Browser().p256dh}},
        {"keys": "nothing"},
        {"name": "x" * 61},
        {"name": "two\nlines"},
        {"name": ["a list"]},
    ],
)
def test_what_is_not_a_subscription_is_refused_with_400(changes, alice, api_client_for, settings):
    settings.OUTBOUND_ALLOW_HTTP = False
    response = api_client_for(alice).post(API, subscription("a", **changes), format="json")

    assert response.status_code == 400, response.json()
    assert response.json()["detail"]
    assert not PushSubscription.objects.exists()


def test_no_device_is_added_while_the_site_has_no_vapid_keys(alice, api_client_for, settings):
    settings.WEBPUSH_VAPID_PUBLIC_KEY = ""
    api = api_client_for(alice)

    response = api.post(API, subscription("a"), format="json")

    assert response.status_code == 400
    assert response.json()["detail"] == "This site does not send notices to devices."
    assert api.get(API).json()["offered"] is False


def test_a_nul_or_a_body_that_is_not_an_object_is_refused(alice, api_client_for):
    api = api_client_for(alice)
    assert api.post(API, subscription("a", name="a\x00b"), format="json").status_code == 400
    assert api.post(API, [subscription("a")], format="json").status_code == 400
    assert api.put(CHANNELS, ["push"], format="json").status_code == 400
    assert not PushSubscription.objects.exists()


def test_a_player_has_at_most_ten_devices_and_none_is_dropped_for_an_eleventh(
    alice, api_client_for
):
    api = api_client_for(alice)
    for n in range(10):
        assert api.post(API, subscription(str(n)), format="json").status_code == 201

    eleventh = api.post(API, subscription("11"), format="json")

    assert eleventh.status_code == 400
    assert eleventh.json()["code"] == "too_many_devices"
    assert "Remove one" in eleventh.json()["detail"]
    assert sorted(PushSubscription.objects.values_list("name", flat=True)) == sorted(
        f"Device {n}" for n in range(10)
    )
    # An old endpoint again is still an update, not an eleventh.
    assert api.post(API, subscription("3"), format="json").status_code == 200


def test_a_hostile_account_cannot_see_remove_rename_or_take_over_a_device(
    alice, mallory, api_client_for, client_for
):
    body = subscription("alice-phone")
    device_id = api_client_for(alice).post(API, body, format="json").json()["id"]
    hostile = api_client_for(mallory)

    assert hostile.get(API).json()["devices"] == []
    assert hostile.delete(f"{API}{device_id}/").status_code == 404
    assert hostile.patch(f"{API}{device_id}/", {"name": "mine"}, format="json").status_code == 404
    # Her keys on alice's endpoint: refused, and the device stays alice's with alice's keys.
    stolen = hostile.post(API, subscription("alice-phone", name="mine"), format="json")
    assert stolen.status_code == 409 and stolen.json()["code"] == "endpoint_taken"
    # The page's form too.
    client_for(mallory).post(reverse("notifications:device_remove", args=[device_id]))

    row = PushSubscription.objects.get(pk=device_id)
    assert (row.user_id, row.name, row.p256dh) == (
        alice.pk,
        "Device alice-phone",
        body["keys"]["p256dh"],
    )
    assert api_client_for(alice).get(API).json()["devices"][0]["id"] == device_id


def test_subscribing_is_limited_per_player_and_the_list_is_not(
    alice, mallory, api_client_for, monkeypatch
):
    monkeypatch.setitem(ScopedRateThrottle.THROTTLE_RATES, "push_subscribe", "3/hour")
    hostile = api_client_for(mallory)
    statuses = [
        hostile.post(API, subscription(f"m{n}"), format="json").status_code for n in range(4)
    ]
    assert statuses == [201, 201, 201, 429]
    assert hostile.get(API).status_code == 200
    # Another player is not held back by her.
    assert api_client_for(alice).post(API, subscription("a"), format="json").status_code == 201


def test_the_channels_choices_in_the_api(alice, api_client_for):
    api = api_client_for(alice)
    assert api.get(CHANNELS).json() == {
        "push": DEFAULT,
        "webhook": DEFAULT,
    }

    changed = api.put(CHANNELS, {"push": ["chat", "your_turn", "chat"]}, format="json")

    assert changed.status_code == 200
    assert changed.json()["push"] == ["your_turn", "chat"]
    assert changed.json()["webhook"] == DEFAULT
    for bad in ({"push": ["digest"]}, {"email": []}, {"push": "your_turn"}, {"webhook": [1]}):
        response = api.put(CHANNELS, bad, format="json")
        assert response.status_code == 400, bad
    assert api.get(CHANNELS).json()["push"] == ["your_turn", "chat"]


def test_the_settings_page_lists_the_devices_and_removes_one_without_script(
    alice, client_for, api_client_for
):
    device_id = api_client_for(alice).post(API, subscription("a"), format="json").json()["id"]
    client = client_for(alice)

    page = client.get(reverse("accounts:settings")).content.decode()
    assert 'id="push-settings"' in page
    assert "Turn on notices on this device" in page
    assert "Device a" in page and "no notice yet" in page
    assert "notifications/push.js" in page

    response = client.post(reverse("notifications:device_remove", args=[device_id]))
    # Back to the page, whose answer beside the list takes the focus (no fragment to win over it).
    assert response.status_code == 302 and response["Location"] == reverse("accounts:settings")
    assert not PushSubscription.objects.exists()


def test_the_settings_page_saves_the_choices_per_channel_without_script(alice, client_for):
    client = client_for(alice)
    page = client.get(reverse("accounts:settings")).content.decode()
    for name in (
        "your_turn",
        "invitation",
        "game_started",
        "game_over",
        "reminder",
        "timeout",
        "chat",
    ):
        assert f'id="push-{name}"' in page and f'id="webhook-{name}"' in page
    assert 'id="push-your_turn" aria-labelledby="choice-your_turn push-col-1" checked' in page
    assert 'id="push-reminder" aria-labelledby="choice-reminder push-col-5">' in page

    response = client.post(
        reverse("notifications:channels_save"), {"push": ["reminder", "your_turn"]}
    )

    assert response.status_code == 302
    assert push_selectors.all_choices(user_id=alice.pk) == {
        "push": ["your_turn", "reminder"],
        "webhook": [],  # no box ticked
    }
    assert (
        client.post(reverse("notifications:channels_save"), {"push": ["digest"]}).status_code == 302
    )
    assert push_selectors.all_choices(user_id=alice.pk)["push"] == ["your_turn", "reminder"]


@pytest.mark.parametrize(
    ("channel", "words"), [("push", "notices on your devices"), ("webhook", "webhook calls")]
)
def test_the_unsubscribe_pages_name_the_channel(channel, words, alice, client):
    link = reverse(
        "notifications:unsubscribe",
        args=[tokens.unsubscribe_token(user_id=alice.pk, kind="your_turn", channel=channel)],
    )
    confirm = client.get(link).content.decode()
    done = client.post(link).content.decode()
    assert words in confirm and words in done
    assert "no more emails" not in done
    assert "your_turn" not in push_selectors.all_choices(user_id=alice.pk)[channel]


def test_the_api_schema_has_the_endpoints(client):
    schema = client.get("/api/schema/").content.decode()
    for path in (
        "/api/push-subscriptions/",
        "/api/push-subscriptions/{subscription_id}/",
        "/api/notification-channels/",
    ):
        assert path in schema


def test_vapid_keys_prints_a_working_pair(capsys, settings):
    call_command("vapid_keys")
    lines = dict(line.split("=", 1) for line in capsys.readouterr().out.split())
    public = b64url_decode(lines["WEBPUSH_VAPID_PUBLIC_KEY"])
    private = b64url_decode(lines["WEBPUSH_VAPID_PRIVATE_KEY"])
    assert len(public) == 65 and public[0] == 4 and len(private) == 32
    assert lines["WEBPUSH_VAPID_SUBJECT"].startswith("mailto:")
    derived = ec.derive_private_key(int.from_bytes(private, "big"), ec.SECP256R1())
    assert (
        derived.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        == public
    )
