"""A database connection that drops while a message is on its way (a failover, a restart) does
not make the message go twice: the mark "sent" is written again on a new connection
(`core.outages.reconnect`).
Found by the soak: a push notice and a webhook call went twice after every
database connection was terminated while they were being sent."""

from __future__ import annotations

import psycopg
import pytest
from django.core.mail.backends.locmem import EmailBackend
from django.db import connection

from notifications import outbox
from notifications.models import ChannelDelivery, Notification, PushSubscription
from notifications.push import transport as push_transport
from notifications.webhooks import transport as webhook_transport
from tests.support.play import waiting_for

pytestmark = pytest.mark.django_db(transaction=True)


def drop_this_connection() -> None:
    """What a failover does to the connection the test (and the code under test) is using."""
    pid = connection.connection.info.backend_pid
    params = connection.get_connection_params()
    with psycopg.connect(
        host=params.get("host"),
        port=params.get("port"),
        user=params.get("user"),
        dbname=params["dbname"],
        autocommit=True,
    ) as other:
        other.execute("SELECT pg_terminate_backend(%s)", [pid])


def sent_while_the_connection_drops(delivery: ChannelDelivery) -> outbox.Outcome:
    drop_this_connection()
    return outbox.SENT


class DroppingEmailBackend(EmailBackend):
    """Takes the email, as the SMTP server did, while the database connection drops."""

    def send_messages(self, messages):  # type: ignore[no-untyped-def]
        drop_this_connection()
        return super().send_messages(messages)


def test_a_push_notice_sent_while_the_connection_dropped_is_marked_sent_once(
    alice, bob, start_game, monkeypatch
):
    game = waiting_for(start_game(alice, bob), alice)
    notification = Notification.objects.create(
        recipient=alice, kind="your_turn", game=game, ply=game.ply + 100
    )
    device = PushSubscription.objects.create(
        user=alice, endpoint="https://push.example/1", p256dh="k", auth="a"
    )
    row = ChannelDelivery.objects.create(
        notification=notification,
        channel="push",
        push_subscription=device,
        send_after=notification.created_at,
    )
    monkeypatch.setattr(push_transport, "deliver", sent_while_the_connection_drops)
    monkeypatch.setattr(webhook_transport, "deliver", sent_while_the_connection_drops)

    assert outbox.delivery_send(delivery_id=row.pk) is True

    row.refresh_from_db()
    assert (row.status, row.attempts, row.claimed_until) == ("sent", 1, None)


def test_an_email_sent_while_the_connection_dropped_is_marked_sent_once(
    alice, bob, start_game, settings, mailoutbox
):
    settings.EMAIL_BACKEND = f"{__name__}.DroppingEmailBackend"
    game = waiting_for(start_game(alice, bob), alice)
    notification = Notification.objects.create(
        recipient=alice, kind="reminder", game=game, ply=game.ply, send_after=game.updated_at
    )

    assert outbox.notification_send(notification_id=notification.pk) is True

    notification.refresh_from_db()
    assert (notification.status, notification.attempts) == ("sent", 1)
    assert [m.extra_headers["X-Azul-Notification"] for m in mailoutbox].count("reminder") == 1
