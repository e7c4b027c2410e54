"""Webhooks (notifications/webhooks.py, webhook_services.py, their page and API), through a real
HTTP server on 127.0.0.1 (`tests.support.http_sink`): what a move sends there and how it is
signed, each style's body, retries, turning a webhook that keeps failing off (its owner emailed
once), the settings page's forms, the limits, and another player's webhook out of reach."""

from __future__ import annotations

import datetime
import hashlib
import hmac
from datetime import timedelta

import pytest
import time_machine
from django.urls import reverse
from django.utils import timezone

from accounts.models import Profile
from games import services as game_services
from notifications import messages, outbox, services, sweeps
from notifications.models import ChannelDelivery, Notification, Webhook, WebhookTest
from notifications.webhooks import services as webhook_services
from notifications.webhooks import transport as webhooks
from notifications.webhooks.errors import TooManyWebhooks
from tests.support.http_sink import HttpSink
from tests.support.mail import sent
from tests.support.play import next_move, waiting_for
from tests.support.urls import SITE_URL

pytestmark = pytest.mark.django_db

START = datetime.datetime(2027, 5, 4, 18, 30, tzinfo=datetime.UTC)
JSON_KEYS = {"kind", "title", "body", "url", "game_id", "turn_off_url", "event_id", "sent_at"}


@pytest.fixture
def sink():
    with HttpSink() as running:
        yield running


def add(user, sink, style="json", name="Hook", path="/hook"):
    return webhook_services.webhook_create(
        user_id=user.pk, name=name, url=sink.url + path, style=style
    )


def notify_and_send(user, kind, game, callbacks):
    """Notify `user` and send the notification now (its grace period skipped), running what
    its commit starts: the deliveries' tasks (in-process here)."""
    with callbacks(execute=True):
        services.notify(recipient_id=user.pk, kind=kind, game_id=game.id, ply=game.ply)
    row = Notification.objects.get(recipient=user, kind=kind, game=game, ply=game.ply)
    Notification.objects.filter(pk=row.pk).update(send_after=row.created_at)
    with callbacks(execute=True):
        outbox.notification_send(notification_id=row.pk)
    return row


def assert_signed(received, secret):
    timestamp = received.headers["x-azul-timestamp"]
    expected = hmac.new(
        secret.encode(), timestamp.encode() + b"." + received.body, hashlib.sha256
    ).hexdigest()
    assert received.headers["x-azul-signature"] == f"sha256={expected}"
    assert abs(int(timestamp) - timezone.now().timestamp()) < 60


# -- what a move sends ---------------------------------------------------------------------------


def test_a_move_by_the_opponent_sends_one_signed_json_body(
    alice, bob, start_game, sink, settings, django_capture_on_commit_callbacks
):
    settings.NOTIFY_GRACE_SECONDS = 0
    hook = add(alice, sink)
    game = waiting_for(start_game(alice, bob), bob)
    by_position = {s.position: s.user for s in game.seats.all()}

    with django_capture_on_commit_callbacks(execute=True):
        game_services.move_submit(**next_move(game, by_position))

    (received,) = sink.wait_for(1)
    assert received.path == "/hook"
    assert received.headers["content-type"] == "application/json"
    assert_signed(received, hook.secret)
    body = received.json()
    assert set(body) == JSON_KEYS
    delivery = ChannelDelivery.objects.get(webhook=hook)
    assert body["kind"] == "your_turn"
    assert body["event_id"] == str(delivery.pk)
    assert body["game_id"] == str(game.id)
    assert body["url"] == f"{SITE_URL}/games/{game.id}/"
    assert body["turn_off_url"].startswith(f"{SITE_URL}/notifications/unsubscribe/")
    assert body["title"] == "Azul"
    assert "your turn" in body["body"].lower()
    assert abs(datetime.datetime.fromisoformat(body["sent_at"]) - timezone.now()) < timedelta(
        seconds=60
    )
    assert received.headers["x-azul-event-id"] == str(delivery.pk)
    assert delivery.status == "sent"
    hook.refresh_from_db()
    assert hook.last_success_at is not None
    assert hook.consecutive_failures == 0


def test_a_signature_made_with_another_secret_does_not_match(
    alice, bob, start_game, sink, django_capture_on_commit_callbacks
):
    hook = add(alice, sink)
    notify_and_send(
        alice,
        "your_turn",
        waiting_for(start_game(alice, bob), alice),
        django_capture_on_commit_callbacks,
    )
    (received,) = sink.wait_for(1)
    assert_signed(received, hook.secret)
    with pytest.raises(AssertionError):
        assert_signed(received, hook.secret + "x")
    tampered = type(received)(**{**received.__dict__, "body": received.body + b" "})
    with pytest.raises(AssertionError):
        assert_signed(tampered, hook.secret)


def test_discord_gets_content_with_the_links_and_no_mentions(
    alice, bob, start_game, sink, django_capture_on_commit_callbacks
):
    hook = add(alice, sink, style="discord")
    game = start_game(alice, bob)
    notify_and_send(alice, "game_started", game, django_capture_on_commit_callbacks)

    (received,) = sink.wait_for(1)
    assert_signed(received, hook.secret)
    body = received.json()
    assert set(body) == {"content", "allowed_mentions"}
    assert body["allowed_mentions"] == {"parse": []}
    assert f"<{SITE_URL}/games/{game.id}/>" in body["content"]
    assert f"<{SITE_URL}/notifications/unsubscribe/" in body["content"]
    assert "Open the game" in body["content"]
    assert "Turn these off" in body["content"]


def test_slack_gets_text_with_the_links(
    alice, bob, start_game, sink, django_capture_on_commit_callbacks
):
    hook = add(alice, sink, style="slack")
    game = start_game(alice, bob)
    notify_and_send(alice, "game_started", game, django_capture_on_commit_callbacks)

    (received,) = sink.wait_for(1)
    assert_signed(received, hook.secret)
    body = received.json()
    assert set(body) == {"text"}
    assert f"<{SITE_URL}/games/{game.id}/|Open the game>" in body["text"]
    assert f"<{SITE_URL}/notifications/unsubscribe/" in body["text"]


def test_markup_in_the_text_is_escaped_for_discord_and_slack():
    message = messages.ShortMessage(
        kind="your_turn",
        title="Azul",
        body="@everyone **bold** [link](https://evil.example) <@123> & <!here>",
        url="https://azul.example/games/1/",
        game_id="1",
        turn_off_url="https://azul.example/off/",
    )
    now = timezone.now()
    discord = webhooks.body_of("discord", message, event_id="1", sent_at=now)["content"]
    assert "**bold**" not in discord
    assert "[link](https" not in discord
    assert "\\@everyone" in discord
    assert "<@123>" not in discord
    slack = webhooks.body_of("slack", message, event_id="1", sent_at=now)["text"]
    assert "<!here>" not in slack
    assert "&lt;!here&gt;" in slack
    assert "&amp;" in slack


def test_the_body_is_in_the_recipients_language(
    alice, bob, start_game, sink, django_capture_on_commit_callbacks
):
    Profile.objects.filter(user=alice).update(language="ko")
    add(alice, sink, style="discord")
    notify_and_send(
        alice, "game_started", start_game(alice, bob), django_capture_on_commit_callbacks
    )

    (received,) = sink.wait_for(1)
    content = received.json()["content"]
    assert "Open the game" not in content
    assert "게임" in content


def test_kinds_turned_off_for_webhooks_are_not_sent(
    alice, bob, start_game, sink, django_capture_on_commit_callbacks
):
    add(alice, sink)
    services.channel_choices_set(user_id=alice.pk, channel="webhook", choices=["game_over"])
    notify_and_send(
        alice, "game_started", start_game(alice, bob), django_capture_on_commit_callbacks
    )
    assert sink.requests == []


# -- retries and turning off ---------------------------------------------------------------------


@pytest.fixture
def clock():
    with time_machine.travel(START, tick=False) as traveller:
        yield traveller


def test_a_503_is_tried_again_after_retry_after_then_sent(
    alice, bob, start_game, sink, clock, django_capture_on_commit_callbacks
):
    hook = add(alice, sink)
    sink.answer(503, headers={"Retry-After": "300"}, body=b"down for maintenance")
    notify_and_send(
        alice,
        "your_turn",
        waiting_for(start_game(alice, bob), alice),
        django_capture_on_commit_callbacks,
    )

    delivery = ChannelDelivery.objects.get(webhook=hook)
    assert (delivery.status, delivery.attempts) == ("pending", 1)
    assert delivery.send_after == START + timedelta(seconds=300)  # over the 1 minute backoff
    hook.refresh_from_db()
    assert "503" in hook.last_error and "down for maintenance" in hook.last_error
    assert hook.consecutive_failures == 0  # a failed attempt, not a failed delivery

    clock.shift(timedelta(seconds=299))
    outbox.delivery_send(delivery_id=delivery.pk)
    assert len(sink.requests) == 1
    clock.shift(timedelta(seconds=31))
    outbox.deliveries_sweep()

    (first, second) = sink.wait_for(2)
    assert first.json()["event_id"] == second.json()["event_id"] == str(delivery.pk)
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts) == ("sent", 2)


def test_retry_after_is_capped_and_read_as_seconds_or_a_date(settings):
    settings.WEBHOOK_RETRY_AFTER_MAX_SECONDS = 3600
    assert webhooks.retry_after("120") == timedelta(seconds=120)
    assert webhooks.retry_after("999999999999") == timedelta(hours=1)
    in_ten_minutes = timezone.now() + timedelta(minutes=10)
    from email.utils import format_datetime

    delay = webhooks.retry_after(format_datetime(in_ten_minutes, usegmt=True))
    assert timedelta(minutes=9) < delay <= timedelta(minutes=10)
    assert webhooks.retry_after("Tue, 01 Jan 2000 00:00:00 GMT") == timedelta(0)
    assert webhooks.retry_after("soon") is None
    assert webhooks.retry_after(None) is None


@pytest.mark.parametrize(
    ("status", "retried"), [(429, True), (500, True), (400, False), (404, False), (410, False)]
)
def test_which_answers_are_tried_again(status, retried):
    from notifications.outbound import Answer

    outcome = webhooks.outcome_of(Answer(status=status, headers={}, body=b""))
    assert (outcome.sent, outcome.retry) == (False, retried)


def test_a_redirect_fails_and_is_not_followed(
    alice, bob, start_game, sink, django_capture_on_commit_callbacks
):
    hook = add(alice, sink)
    sink.answer(302, headers={"Location": sink.url + "/elsewhere"})
    notify_and_send(
        alice,
        "your_turn",
        waiting_for(start_game(alice, bob), alice),
        django_capture_on_commit_callbacks,
    )

    assert [r.path for r in sink.wait_for(1)] == ["/hook"]
    delivery = ChannelDelivery.objects.get(webhook=hook)
    assert delivery.status == "failed"
    assert "redirect" in delivery.last_error


def test_a_webhook_that_keeps_failing_is_turned_off_and_its_owner_emailed_once(
    alice, bob, carol, start_game, sink, settings, django_capture_on_commit_callbacks
):
    settings.WEBHOOK_FAILURES_TO_DISABLE = 3
    hook = add(alice, sink, name="Team channel")
    sink.default.status = 404
    sink.default.body = b"Unknown Webhook"
    games = [start_game(alice, bob), start_game(alice, carol), start_game(bob, alice)]

    for game in games[:2]:
        notify_and_send(alice, "game_started", game, django_capture_on_commit_callbacks)
    hook.refresh_from_db()
    assert (hook.enabled, hook.consecutive_failures) == (True, 2)
    assert sent("webhook_disabled") == []

    notify_and_send(alice, "game_started", games[2], django_capture_on_commit_callbacks)
    hook.refresh_from_db()
    assert hook.enabled is False
    assert "3 deliveries in a row failed" in hook.disabled_reason
    assert "404" in hook.disabled_reason
    (email,) = sent("webhook_disabled", to=alice)
    assert "Team channel" in email.subject
    assert "turned off" in email.subject
    assert "Unknown Webhook" in email.body
    assert f"{SITE_URL}/settings/#webhooks" in email.body
    assert sink.url + "/hook" not in email.body  # the address is a secret: shown in part
    assert "List-Unsubscribe" not in email.extra_headers
    assert len(sink.requests) == 3

    # Turned off: no more calls, and no second email however it fails meanwhile.
    notify_and_send(alice, "game_over", games[0], django_capture_on_commit_callbacks)
    assert len(sink.requests) == 3
    assert not ChannelDelivery.objects.filter(webhook=hook, notification__kind="game_over").exists()
    Webhook.objects.filter(pk=hook.pk).update(consecutive_failures=10)
    assert webhooks.turn_off_if_failing(hook.pk) is False
    assert Notification.objects.filter(kind="webhook_disabled").count() == 1
    assert len(sent("webhook_disabled")) == 1


def test_an_outage_counts_one_failure_per_delivery_and_a_success_resets_the_count(
    alice, bob, start_game, sink, settings, clock, django_capture_on_commit_callbacks
):
    settings.NOTIFY_MAX_ATTEMPTS = 3
    settings.WEBHOOK_FAILURES_TO_DISABLE = 2
    hook = add(alice, sink)
    for _ in range(3):
        sink.answer(503)
    notify_and_send(
        alice,
        "your_turn",
        waiting_for(start_game(alice, bob), alice),
        django_capture_on_commit_callbacks,
    )
    for _ in range(2):
        clock.shift(timedelta(hours=1))
        outbox.deliveries_sweep()

    assert len(sink.requests) == 3
    hook.refresh_from_db()
    assert (hook.enabled, hook.consecutive_failures) == (True, 1)

    notify_and_send(
        alice, "game_started", start_game(alice, bob), django_capture_on_commit_callbacks
    )
    hook.refresh_from_db()
    assert (hook.enabled, hook.consecutive_failures) == (True, 0)


def test_a_pending_delivery_of_a_webhook_turned_off_meanwhile_is_skipped(
    alice, bob, start_game, sink, clock, django_capture_on_commit_callbacks
):
    hook = add(alice, sink)
    sink.answer(503)
    notify_and_send(
        alice,
        "your_turn",
        waiting_for(start_game(alice, bob), alice),
        django_capture_on_commit_callbacks,
    )
    Webhook.objects.filter(pk=hook.pk).update(enabled=False)
    clock.shift(timedelta(hours=1))
    outbox.deliveries_sweep()

    assert len(sink.requests) == 1
    assert ChannelDelivery.objects.get(webhook=hook).status == "skipped"


def test_a_webhook_at_a_refused_address_fails_at_once(
    alice, bob, start_game, sink, settings, django_capture_on_commit_callbacks
):
    hook = add(alice, sink)
    settings.OUTBOUND_ALLOWED_NETWORKS = []
    notify_and_send(
        alice,
        "your_turn",
        waiting_for(start_game(alice, bob), alice),
        django_capture_on_commit_callbacks,
    )

    assert sink.requests == []
    delivery = ChannelDelivery.objects.get(webhook=hook)
    assert delivery.status == "failed"
    assert "Refused" in delivery.last_error and "loopback" in delivery.last_error
    hook.refresh_from_db()
    assert hook.consecutive_failures == 1


# -- the settings page ---------------------------------------------------------------------------


def settings_page(client):
    return client.get(reverse("accounts:settings")).content.decode()


def test_the_page_lists_webhooks_with_their_address_in_part(alice, client_for, sink):
    client = client_for(alice)
    assert "You have no webhook." in settings_page(client)

    response = client.post(
        reverse("notifications:webhook_add"),
        {"name": "Team channel", "url": sink.url + "/secret-token-abcd", "style": "slack"},
        follow=True,
    )
    page = response.content.decode()
    assert "The webhook was added" in page
    hook = Webhook.objects.get(user=alice)
    assert "Team channel" in page
    assert f"http://127.0.0.1:{sink.port}/…abcd" in page
    assert "secret-token" not in page
    assert hook.secret in page  # behind "Show the signing secret"
    assert "Show the signing secret" in page


def test_send_a_test_is_sent_by_the_worker_and_its_answer_shown_when_it_comes(
    alice, client_for, sink, django_capture_on_commit_callbacks
):
    hook = add(alice, sink)
    sink.answer(202)
    client = client_for(alice)
    url = reverse("notifications:webhook_test", args=[hook.pk])
    with django_capture_on_commit_callbacks() as queued:
        page = client.post(url, follow=True).content.decode()

    # The request only asked: nothing is sent until the task runs, and the row says it waits.
    test = WebhookTest.objects.get()
    assert sink.requests == [] and test.answered_at is None
    assert "The test is on its way." in page
    assert "waiting for the webhook" in page
    status_url = f"/api/webhooks/{hook.pk}/tests/{test.pk}/"
    assert f'data-status-url="{status_url}"' in page
    assert client.get(status_url).json()["status"] == "waiting"

    for callback in queued:
        callback()  # the task, run in-process (eager)
    (received,) = sink.wait_for(1)
    assert_signed(received, hook.secret)
    body = received.json()
    assert body["kind"] == "test"
    assert body["event_id"] == f"test-{test.pk}"
    # What the page's script reads, and what the page shows on its next load.
    answered = client.get(status_url).json()
    assert (answered["status"], answered["sent"]) == ("sent", True)
    assert answered["summary"] == "The webhook answered 202: it works."
    page = settings_page(client)
    assert "it went through. The webhook answered 202: it works." in page
    assert "data-status-url" not in page


def test_a_test_is_sent_once_however_often_its_task_runs(
    alice, sink, django_capture_on_commit_callbacks
):
    hook = add(alice, sink)
    with django_capture_on_commit_callbacks(execute=True):
        test = webhook_services.webhook_test(user_id=alice.pk, webhook_id=hook.pk)
    webhook_services.webhook_test_send(test_id=test.pk)  # a retry, or the message twice
    assert len(sink.wait_for(1)) == 1
    assert WebhookTest.objects.get().sent is True


def test_a_test_whose_task_was_lost_is_sent_by_the_sweep(
    alice, sink, clock, django_capture_on_commit_callbacks
):
    hook = add(alice, sink)
    with django_capture_on_commit_callbacks():  # committed, but its task never sent
        test = webhook_services.webhook_test(user_id=alice.pk, webhook_id=hook.pk)
    sweeps.sweep()  # too soon to call it lost: its task may be on its way
    assert sink.requests == []

    clock.shift(timedelta(minutes=2))
    sweeps.sweep()
    assert len(sink.wait_for(1)) == 1
    test.refresh_from_db()
    assert test.sent and test.answered_at is not None
    sweeps.sweep()
    assert len(sink.requests) == 1


def test_a_failed_test_shows_why_in_the_players_language(
    alice, client_for, sink, settings, django_capture_on_commit_callbacks
):
    hook = add(alice, sink)
    settings.OUTBOUND_ALLOWED_NETWORKS = []
    client = client_for(alice)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("notifications:webhook_test", args=[hook.pk]))
    page = settings_page(client)
    assert "it failed. Refused:" in page
    assert "loopback" in page
    assert sink.requests == []

    Profile.objects.filter(user=alice).update(language="ko")
    with django_capture_on_commit_callbacks(execute=True):
        test = webhook_services.webhook_test(user_id=alice.pk, webhook_id=hook.pk)
    test.refresh_from_db()
    assert not test.sent and test.answer
    assert "Refused" not in test.answer  # the worker answered in Korean, not the default


def test_a_webhook_turned_off_can_be_turned_back_on(alice, client_for, sink):
    hook = add(alice, sink)
    Webhook.objects.filter(pk=hook.pk).update(
        enabled=False, consecutive_failures=5, disabled_reason="5 deliveries in a row failed."
    )
    client = client_for(alice)
    assert "Off: it kept failing" in settings_page(client)
    client.post(reverse("notifications:webhook_enable", args=[hook.pk]))
    hook.refresh_from_db()
    assert (hook.enabled, hook.consecutive_failures, hook.disabled_reason) == (True, 0, "")


def test_remove(alice, client_for, sink):
    hook = add(alice, sink)
    client_for(alice).post(reverse("notifications:webhook_remove", args=[hook.pk]))
    assert not Webhook.objects.filter(pk=hook.pk).exists()


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"url": "http://hooks.example.com/x"}, "Only https:// addresses are allowed."),
        ({"url": "https://10.0.0.1/x"}, "not a public Internet address"),
        ({"url": "https://user:pw@hooks.example.com/x"}, "user name or password"),
        ({"url": "https://hooks.example.com/a\tb"}, "spaces or control characters"),
        ({"url": "https://hooks.example.com/" + "a" * 600}, "at most 500 characters"),
        ({"name": "a\nb"}, "one line of text"),
        ({"name": "n" * 61}, "at most 60 characters"),
        ({"style": "teams"}, "The style is one of"),
        ({"url": ""}, "Enter the webhook"),
    ],
)
def test_the_form_refuses_what_is_not_valid_with_a_clear_message(
    alice, client_for, settings, fields, message
):
    settings.OUTBOUND_ALLOW_HTTP = False
    data = {"name": "Hook", "url": "https://hooks.example.com/x", "style": "json", **fields}
    page = (
        client_for(alice)
        .post(reverse("notifications:webhook_add"), data, follow=True)
        .content.decode()
    )
    assert "The webhook was not added" in page
    assert message in page.replace("&#x27;", "'")
    assert not Webhook.objects.exists()


# -- limits --------------------------------------------------------------------------------------


def test_at_most_five_webhooks(alice, bob, sink, settings):
    settings.WEBHOOKS_MAX_PER_PLAYER = 5
    for n in range(5):
        add(alice, sink, name=f"Hook {n}")
    with pytest.raises(TooManyWebhooks, match="5 webhooks already"):
        add(alice, sink, name="One more")
    add(bob, sink)  # another player's count is their own
    assert Webhook.objects.filter(user=alice).count() == 5


def test_tests_are_limited_per_player_and_a_hostile_account_spends_only_its_own(
    alice, mallory, api_client_for, sink, settings, clock, django_capture_on_commit_callbacks
):
    settings.WEBHOOK_TESTS_PER_HOUR = 3
    mine, theirs = add(alice, sink), add(mallory, sink)
    hostile = api_client_for(mallory)
    for _ in range(3):
        assert hostile.post(f"/api/webhooks/{theirs.pk}/test/").status_code == 202
    refused = hostile.post(f"/api/webhooks/{theirs.pk}/test/")
    assert refused.status_code == 429
    assert refused.json()["code"] == "too_many_webhook_tests"
    assert int(refused["Retry-After"]) == 3601
    # mallory trying alice's webhook spends nothing of alice's either: it is no webhook of hers.
    assert hostile.post(f"/api/webhooks/{mine.pk}/test/").status_code == 404

    client = api_client_for(alice)
    for _ in range(3):
        with django_capture_on_commit_callbacks(execute=True):
            answer = client.post(f"/api/webhooks/{mine.pk}/test/")
        assert answer.status_code == 202 and answer.json()["status"] == "waiting"
        done = client.get(answer["Location"]).json()
        assert (done["id"], done["status"], done["sent"]) == (answer.json()["id"], "sent", True)
    assert client.post(f"/api/webhooks/{mine.pk}/test/").status_code == 429
    assert len(sink.wait_for(3)) == 3  # mallory's tests were never run (no commit here)
    # Another's test's answer is out of reach too.
    assert hostile.get(done_url := answer["Location"]).status_code == 404
    assert client.get(done_url).status_code == 200

    clock.shift(timedelta(hours=1, seconds=1))
    assert client.post(f"/api/webhooks/{mine.pk}/test/").status_code == 202


# -- another player's webhook, and the API ------------------------------------------------------


def test_another_player_cannot_see_test_enable_or_delete_my_webhook(
    alice, mallory, api_client_for, client_for, sink
):
    hook = add(alice, sink, name="Alice's channel")
    hostile = api_client_for(mallory)
    assert hostile.get("/api/webhooks/").json()["webhooks"] == []
    assert hostile.get(f"/api/webhooks/{hook.pk}/").status_code == 404
    assert hostile.post(f"/api/webhooks/{hook.pk}/test/").status_code == 404
    assert hostile.post(f"/api/webhooks/{hook.pk}/enable/").status_code == 404
    answer = hostile.delete(f"/api/webhooks/{hook.pk}/")
    assert (answer.status_code, answer.json()["code"]) == (404, "no_such_webhook")

    page_client = client_for(mallory)
    page = settings_page(page_client)
    assert "Alice&#x27;s channel" not in page and hook.secret not in page
    page_client.post(reverse("notifications:webhook_remove", args=[hook.pk]))
    page_client.post(reverse("notifications:webhook_test", args=[hook.pk]))
    assert Webhook.objects.filter(pk=hook.pk).exists()
    assert sink.requests == []
    assert not WebhookTest.objects.exists()


def test_the_api_creates_lists_and_deletes(alice, api_client_for, sink):
    client = api_client_for(alice)
    made = client.post(
        "/api/webhooks/",
        {"name": "CI", "url": sink.url + "/ci-abcd", "style": "json"},
        format="json",
    )
    assert made.status_code == 201
    body = made.json()
    assert body["url_hint"] == f"http://127.0.0.1:{sink.port}/…abcd"
    assert "url" not in body
    assert len(body["secret"]) >= 32
    listed = client.get("/api/webhooks/").json()
    assert [w["id"] for w in listed["webhooks"]] == [body["id"]]
    assert client.delete(f"/api/webhooks/{body['id']}/").status_code == 204
    assert client.get("/api/webhooks/").json()["webhooks"] == []


@pytest.mark.parametrize(
    "data",
    [
        {"name": "CI\x00", "url": "https://hooks.example.com/x", "style": "json"},
        {"name": "CI", "url": "https://hooks.example.com/\x00", "style": "json"},
        {"name": "CI", "url": "https://hooks.example.com/" + "a" * 10_000, "style": "json"},
        {"name": "n" * 1000, "url": "https://hooks.example.com/x", "style": "json"},
        {"name": "CI", "url": "https://169.254.169.254/latest/meta-data/", "style": "json"},
        {"name": "CI", "url": ["https://hooks.example.com/x"], "style": "json"},
        {"name": "CI", "url": "https://hooks.example.com/x", "style": "teams"},
    ],
)
def test_the_api_refuses_nul_oversized_and_refused_input_with_400(alice, api_client_for, data):
    answer = api_client_for(alice).post("/api/webhooks/", data, format="json")
    assert answer.status_code == 400
    # NUL is refused by the site before any view (`parse_error`); the rest by the service.
    assert answer.json()["code"] in {"invalid_webhook", "parse_error"}
    assert answer.json()["detail"]
    assert not Webhook.objects.exists()


def test_nul_in_the_form_is_refused_with_400(alice, client_for):
    client = client_for(alice)
    for data in (
        {"name": "a\x00b", "url": "https://hooks.example.com/x", "style": "json"},
        {"name": "Hook", "url": "https://hooks.example.com/\x00", "style": "json"},
    ):
        assert client.post(reverse("notifications:webhook_add"), data).status_code == 400
    assert client.get("/api/webhooks/1\x00/").status_code == 400
    assert not Webhook.objects.exists()


@pytest.mark.parametrize("webhook_id", ["abc", "0", "-1", "99999999999999999999999", "1.5"])
def test_odd_ids_are_404(alice, api_client_for, webhook_id):
    assert api_client_for(alice).get(f"/api/webhooks/{webhook_id}/").status_code == 404


def test_the_api_is_in_the_schema(alice, api_client_for):
    schema = api_client_for(alice).get("/api/schema/", {"format": "json"}).json()
    paths = schema["paths"]
    assert {"get", "post"} <= set(paths["/api/webhooks/"])
    assert "delete" in paths["/api/webhooks/{webhook_id}/"]
    assert "202" in paths["/api/webhooks/{webhook_id}/test/"]["post"]["responses"]
    assert "get" in paths["/api/webhooks/{webhook_id}/tests/{test_id}/"]
    assert "post" in paths["/api/webhooks/{webhook_id}/enable/"]


def test_deleting_the_account_deletes_its_webhooks(alice, bob, sink, api_client_for):
    from azul_site.account_deletion import account_delete
    from tests.support.factories import PASSWORD

    mine = add(alice, sink)
    theirs = add(bob, sink)
    api_client_for(alice).post(f"/api/webhooks/{mine.pk}/test/")
    account_delete(user=alice, password=PASSWORD)

    assert list(Webhook.objects.values_list("pk", flat=True)) == [theirs.pk]
    assert not WebhookTest.objects.filter(user=alice).exists()


@pytest.mark.django_db(transaction=True)
def test_failures_at_once_turn_the_webhook_off_once_with_one_email(alice, sink, settings):
    from tests.support.concurrency import run_at_once

    settings.WEBHOOK_FAILURES_TO_DISABLE = 3
    hook = add(alice, sink)
    Webhook.objects.filter(pk=hook.pk).update(consecutive_failures=2)

    run_at_once(4, lambda: webhooks.failed(hook.pk, "The webhook answered 500.", for_good=True))

    hook.refresh_from_db()
    assert (hook.enabled, hook.consecutive_failures) == (False, 6)
    assert Notification.objects.filter(recipient=alice, kind="webhook_disabled").count() == 1
    assert len(sent("webhook_disabled", to=alice)) == 1


def test_the_email_is_in_the_owners_language(
    alice, bob, start_game, sink, settings, django_capture_on_commit_callbacks
):
    settings.WEBHOOK_FAILURES_TO_DISABLE = 1
    Profile.objects.filter(user=alice).update(language="ko")
    add(alice, sink, name="팀 채널")
    sink.default.status = 410
    notify_and_send(
        alice, "game_started", start_game(alice, bob), django_capture_on_commit_callbacks
    )

    (email,) = sent("webhook_disabled", to=alice)
    assert email.subject == '[Azul] 웹훅 "팀 채널"이(가) 계속 실패해서 꺼졌습니다'
    assert "1번 연속 실패해서" in email.body
    assert "410" in email.body


def test_the_email_whose_task_was_lost_is_sent_by_the_sweep(
    alice, sink, settings, clock, monkeypatch, django_capture_on_commit_callbacks
):
    settings.WEBHOOK_FAILURES_TO_DISABLE = 1
    hook = add(alice, sink)
    monkeypatch.setattr(webhooks, "send", lambda *args, **kwargs: False)  # the broker is down
    with django_capture_on_commit_callbacks(execute=True):
        webhooks.failed(hook.pk, "The webhook answered 404.", for_good=True)
    assert sent("webhook_disabled") == []

    clock.shift(timedelta(minutes=2))
    with django_capture_on_commit_callbacks(execute=True):
        services.sweep()
        services.sweep()
    assert len(sent("webhook_disabled", to=alice)) == 1


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("https://example.com:8443/hook", "https://example.com:8443/…hook"),
        ("https://Example.com/api/webhooks/1/secret-tail", "https://Example.com/…tail"),
        ("https://[2001:db8::1]:8443/x", "https://[2001:db8::1]:8443/…"),
    ],
)
def test_the_address_shown_keeps_the_host_and_port_as_stored(url, shown):
    assert webhooks.url_hint(url) == shown
