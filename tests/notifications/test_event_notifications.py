"""What the events tell their players through the outbox (issue #61): one row per recipient,
event, round and kind, whatever is repeated; an email that names the event and links to its page,
in the player's language; none for a player who turned event emails off (or held for their
digest); and push notices and webhook calls that link to the event's page, not a game."""

from __future__ import annotations

import datetime
from datetime import timedelta

import pytest
import time_machine
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import Profile
from events import services as event_services
from events.models import Event
from notifications import messages, outbox, services
from notifications.email import content
from notifications.models import EVENT_KINDS, ChannelDelivery, Notification
from notifications.webhooks import services as webhook_services
from notifications.webhooks import transport as webhooks
from tests.support.http_sink import HttpSink
from tests.support.mail import sent
from tests.support.urls import SITE_URL

pytestmark = pytest.mark.django_db

# 08:30 UTC: the digest hour for a player in UTC.
DIGEST_TIME = datetime.datetime(2027, 3, 2, 8, 30, tzinfo=datetime.UTC)


def event_page(event_id) -> str:
    return f"{SITE_URL}/events/{event_id}/"


def tell(committed, kind, recipients, event_id=7, round=0, name="Winter Swiss"):
    committed(
        services.notify_event,
        recipient_ids=[u.pk for u in recipients],
        kind=kind,
        event_id=event_id,
        round=round,
        context={"event": name},
    )


def new_event(organiser, name="Winter Swiss", max_entrants=4):
    return event_services.event_create(
        organiser=organiser,
        settings_=event_services.EventSettings(
            name=name, format="swiss", table_size=2, max_entrants=max_entrants, rounds=2
        ),
    )


# -- the rows ------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", EVENT_KINDS)
def test_each_kind_writes_one_row_per_recipient_and_a_repeat_writes_nothing(
    kind, alice, bob, committed
):
    tell(committed, kind, [alice, bob, alice], round=2)
    tell(committed, kind, [bob, alice], round=2)

    rows = Notification.objects.filter(kind=kind)
    assert sorted(rows.values_list("recipient_id", "event_ref", "ply", "game_id")) == sorted(
        [(alice.pk, 7, 2, None), (bob.pk, 7, 2, None)]
    )
    # Sent at once, after the commit, each once.
    assert {r.status for r in rows} == {"sent"}
    assert len(sent(kind, to=alice)) == 1
    assert len(sent(kind, to=bob)) == 1


def test_another_round_or_event_is_told_again(alice, committed):
    tell(committed, "event_round", [alice], round=2)
    tell(committed, "event_round", [alice], round=3)
    tell(committed, "event_round", [alice], event_id=8, round=2)

    assert Notification.objects.filter(recipient=alice, kind="event_round").count() == 3
    assert len(sent("event_round", to=alice)) == 3


def test_an_events_kind_is_about_an_event_and_only_those_kinds_are(alice, committed):
    with pytest.raises(ValueError):
        tell(committed, "game_over", [alice])
    with pytest.raises(IntegrityError), transaction.atomic():
        Notification.objects.create(recipient=alice, kind="event_started")
    assert not Notification.objects.exists()


def test_an_event_told_by_the_sweep_when_its_task_was_lost(alice):
    # No commit here, so no task: the row waits for the sweep, a minute later.
    services.notify_event(
        recipient_ids=[alice.pk], kind="event_started", event_id=7, context={"event": "Open"}
    )
    assert sent() == []
    Notification.objects.update(created_at=timezone.now() - timedelta(minutes=5))

    services.sweep()

    [message] = sent("event_started", to=alice)
    assert message.subject == "[Azul] Open has started"


# -- through the events' own writes --------------------------------------------------------------


def test_registering_tells_the_player_by_email_with_the_events_name_and_link(alice, bob, committed):
    event = new_event(alice)

    committed(event_services.entry_register, event_id=event.pk, user=bob)

    [message] = sent("event_entered", to=bob)
    assert message.subject == "[Azul] You are registered for Winter Swiss"
    assert "Your registration for Winter Swiss is confirmed." in message.body
    assert event_page(event.pk) in message.body
    html = message.alternatives[0].content
    assert "<strong>Winter Swiss</strong>" in html
    assert f'href="{event_page(event.pk)}"' in html
    assert message.extra_headers["List-Unsubscribe"].startswith(
        f"<{SITE_URL}/notifications/unsubscribe/"
    )
    assert sent("event_entered", to=alice) == []  # the organiser did not enter


def test_the_events_name_is_escaped_in_the_html_and_kept_as_written_in_the_text(
    alice, bob, committed
):
    event = new_event(alice, name="Tiles <b>& friends</b>")

    committed(event_services.entry_register, event_id=event.pk, user=bob)

    [message] = sent("event_entered", to=bob)
    assert message.subject == "[Azul] You are registered for Tiles <b>& friends</b>"
    assert "Tiles &lt;b&gt;&amp; friends&lt;/b&gt;" in message.alternatives[0].content
    assert "<b>&" not in message.alternatives[0].content


def test_the_email_is_in_korean_for_a_korean_reader(alice, bob, committed):
    Profile.objects.filter(user=bob).update(language="ko")
    event = new_event(alice)

    committed(event_services.entry_register, event_id=event.pk, user=bob)
    tell(committed, "event_round", [bob], event_id=event.pk, round=2)

    [entered] = sent("event_entered", to=bob)
    assert entered.subject == "[Azul] Winter Swiss: 참가 등록이 완료되었습니다"
    assert "대회 보기: " + event_page(event.pk) in entered.body
    [new_round] = sent("event_round", to=bob)
    assert new_round.subject == "[Azul] Winter Swiss: 2라운드가 시작되었습니다"


def test_cancelling_tells_those_still_registered(alice, bob, carol, dave, committed):
    event = new_event(alice)
    for player in (bob, carol, dave):
        committed(event_services.entry_register, event_id=event.pk, user=player)
    committed(event_services.entry_withdraw, event_id=event.pk, user=carol)

    committed(event_services.event_cancel, event_id=event.pk, organiser=alice)

    assert {m.to[0] for m in sent("event_cancelled")} == {bob.email, dave.email}
    [message] = sent("event_cancelled", to=bob)
    assert message.subject == "[Azul] Winter Swiss was cancelled"
    assert event_page(event.pk) in message.body


def test_an_event_that_starts_tells_every_entrant(alice, bob, carol, dave, committed):
    event = new_event(alice, max_entrants=3)

    for player in (bob, carol, dave):
        committed(event_services.entry_register, event_id=event.pk, user=player)

    event.refresh_from_db()
    assert event.status == Event.Status.RUNNING
    assert {m.to[0] for m in sent("event_started")} == {bob.email, carol.email, dave.email}
    assert Notification.objects.filter(kind="event_started", ply=1, event_ref=event.pk).count() == 3


def test_the_final_standings_email_links_to_the_event(alice, committed):
    tell(committed, "event_finished", [alice], event_id=12, round=3)

    [message] = sent("event_finished", to=alice)
    assert message.subject == "[Azul] Winter Swiss has finished"
    assert f"See the final standings: {event_page(12)}" in message.body


# -- the player's choice -------------------------------------------------------------------------


def test_a_player_who_turned_event_emails_off_gets_none(alice, bob, committed):
    Profile.objects.filter(user=bob).update(email_events="never")

    for kind in EVENT_KINDS:
        tell(committed, kind, [alice, bob])

    assert sent(to=bob) == []
    assert len(sent(to=alice)) == len(EVENT_KINDS)
    assert set(Notification.objects.filter(recipient=bob).values_list("status", flat=True)) == {
        "skipped"
    }


def test_unsubscribing_from_one_event_email_turns_off_them_all(alice, committed):
    services.unsubscribe(user_id=alice.pk, kind="event_round")

    tell(committed, "event_finished", [alice])

    assert Profile.objects.get(user=alice).email_events == "never"
    assert sent(to=alice) == []


def test_the_settings_page_offers_the_choice_and_keeps_it_when_a_form_leaves_it_out(
    alice, client_for
):
    from django.urls import reverse

    client = client_for(alice)
    page = client.get(reverse("accounts:settings")).content.decode()
    assert 'name="email_events"' in page
    form = {
        "display_name": "",
        "time_zone": "UTC",
        "email_your_turn": "immediate",
        "email_invitation": "immediate",
        "email_game_started": "immediate",
        "email_game_over": "immediate",
        "email_reminder": "immediate",
        "email_timeout": "immediate",
        "email_chat": "never",
        "email_digest": "on",
    }

    client.post(reverse("accounts:settings"), {**form, "email_events": "digest"})
    assert Profile.objects.get(user=alice).email_events == "digest"
    client.post(reverse("accounts:settings"), form)
    assert Profile.objects.get(user=alice).email_events == "digest"


def test_event_emails_held_for_the_digest_are_listed_there_with_the_events_link(alice, committed):
    Profile.objects.filter(user=alice).update(email_events="digest")
    with time_machine.travel(DIGEST_TIME - timedelta(hours=3), tick=False) as clock:
        tell(committed, "event_round", [alice], event_id=9, round=2)
        assert sent() == []
        assert Notification.objects.get(kind="event_round").status == "held"

        clock.move_to(DIGEST_TIME)
        result = services.sweep()

    assert result.digests_sent == 1
    [digest] = sent("digest", to=alice)
    assert "Round 2 of Winter Swiss has begun" in digest.body
    assert event_page(9) in digest.body
    assert Notification.objects.get(kind="event_round").status == "sent"


# -- push notices and webhooks -------------------------------------------------------------------


def test_the_short_message_links_to_the_events_page(alice, committed):
    Profile.objects.filter(user=alice).update(email_events="never")
    tell(committed, "event_started", [alice], event_id=5, round=1)
    row = Notification.objects.select_related("recipient__profile").get(kind="event_started")

    short = messages.short_message(row, channel="push")

    assert short.url == event_page(5) == content.event_url(5)
    assert short.game_id is None
    assert short.body == "Winter Swiss has started"
    assert short.turn_off_url.startswith(f"{SITE_URL}/notifications/unsubscribe/")
    discord = webhooks.body_of("discord", short, event_id="1", sent_at=DIGEST_TIME)["content"]
    assert f"Open the event: <{event_page(5)}>" in discord


def test_a_webhook_that_takes_events_gets_the_call_with_the_events_link(
    alice, committed, django_capture_on_commit_callbacks
):
    with HttpSink() as sink:
        hook = webhook_services.webhook_create(
            user_id=alice.pk, name="Hook", url=sink.url + "/hook", style="json"
        )
        # Not among the defaults: the player chooses it.
        tell(committed, "event_entered", [alice], event_id=4)
        assert not ChannelDelivery.objects.exists()

        services.channel_choices_set(user_id=alice.pk, channel="webhook", choices=["events"])
        with django_capture_on_commit_callbacks(execute=True):
            tell(committed, "event_started", [alice], event_id=4, round=1)
        (received,) = sink.wait_for(1)

    body = received.json()
    assert body["kind"] == "event_started"
    assert body["url"] == event_page(4)
    assert body["game_id"] is None
    assert body["body"] == "Winter Swiss has started"
    assert ChannelDelivery.objects.get(webhook=hook).status == "sent"
    assert outbox.rows_of("webhook").get()["kind"] == "event_started"
