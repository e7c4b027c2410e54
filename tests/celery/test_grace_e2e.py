"""The "your turn" grace period end to end: alice and bob play through the pages; once the grace
period has passed, the minute's sweep (sent to a real worker, as Celery beat sends it) mails bob
over SMTP, and only if he has not opened the game meanwhile. Both tests share one worker, started
once (`shared_stack`), whose cache is that Redis, as in production."""

import time

import pytest
from django.urls import reverse

import azul
from core.outages.cache import redis_cache
from core.tasks import send
from games.models import Game
from notifications.models import Notification
from tests.support.play import first_legal_move
from tests.support.workers import wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

GRACE = 2  # seconds, in this process (alice's move writes the notification) and the worker's


@pytest.fixture(scope="module")
def worker_env(shared_redis) -> dict[str, str]:
    """The grace period, and the site's cache on the broker's Redis (where the mark that a
    player saw a game is kept)."""
    return {"NOTIFY_GRACE_SECONDS": str(GRACE), "REDIS_URL": shared_redis.url}


def sweep_on_the_worker(worker) -> None:
    """What Celery beat does every minute: send the notifications' sweep; wait until it ran."""
    runs = worker.log().count("notifications.tasks.sweep[")
    assert send("notifications.tasks.sweep", [])
    wait_for(
        lambda: worker.log().count("notifications.tasks.sweep[") >= runs + 2,  # got, then done
        10,
        lambda: f"the worker did not run the sweep:\n{worker.log()}",
    )


def play_on_the_page(client, game_id) -> int:
    """The player to move plays their first legal move with the page's form; the new ply."""
    _, move, ply = first_legal_move(game_id)
    response = client.post(
        reverse("games:detail", args=[game_id]), {"move": move, "expected_ply": ply}
    )
    assert response.status_code == 302
    game = Game.objects.get(pk=game_id)
    assert game.ply > ply, "the move was not played"
    return game.ply


@pytest.fixture
def alice_to_move(start_game, alice, bob, client_for, settings) -> Game:
    """A game of alice and bob, alice to move, with nothing in the outbox; set up in-process
    (before any worker runs)."""
    game = start_game(alice, bob)
    if azul.State.from_dict(Game.objects.get(pk=game.pk).state).to_move != [0]:
        play_on_the_page(client_for(bob), game.id)
    assert azul.State.from_dict(Game.objects.get(pk=game.pk).state).to_move == [0]
    Notification.objects.all().delete()
    settings.NOTIFY_GRACE_SECONDS = GRACE
    return game


def test_a_move_mails_the_other_player_after_the_grace_period(
    alice_to_move, shared_stack, send_tasks_to, client_for, alice, bob
):
    game = alice_to_move
    send_tasks_to(shared_stack.redis.url)
    worker, mail_sink = shared_stack.worker, shared_stack.mail

    moved_at = time.monotonic()
    play_on_the_page(client_for(alice), game.id)
    # The notification is due GRACE seconds after the move's commit, somewhere in the request:
    # the sweep after the grace period waits from the request's end (a loaded machine may take
    # a good part of a second over the request), the email's timing is judged from its start.
    answered_at = time.monotonic()
    sweep_on_the_worker(worker)  # within the grace period: nothing due
    assert mail_sink.mails(kind="your_turn") == [], mail_sink.summary()
    time.sleep(max(0.0, answered_at + GRACE + 0.1 - time.monotonic()))
    sweep_on_the_worker(worker)

    mails = wait_for(
        lambda: mail_sink.mails(kind="your_turn", to=bob.email),
        GRACE + 10,
        lambda: f"bob got no email (sink: {mail_sink.summary()}):\n{worker.log()}",
    )
    assert mails[0].at - moved_at >= GRACE, "the email did not wait for the grace period"
    worker.wait_until_idle(shared_stack.redis.url)  # a second copy would have come by now
    assert len(mail_sink.mails(kind="your_turn")) == 1, mail_sink.summary()
    assert reverse("games:detail", args=[game.id]) in mails[0].text()
    assert Notification.objects.get(kind="your_turn", recipient=bob).status == "sent"


def test_no_mail_when_the_other_player_opens_the_game_within_the_grace_period(
    alice_to_move, shared_stack, send_tasks_to, client_for, alice, bob, settings
):
    # The site and the worker share Redis as their cache, as in production: the mark that bob
    # saw the game is kept there (a GET writes nothing to the database).
    settings.CACHES = {"default": redis_cache(shared_stack.redis.url, 0.5)}
    game = alice_to_move
    send_tasks_to(shared_stack.redis.url)
    worker, mail_sink = shared_stack.worker, shared_stack.mail

    play_on_the_page(client_for(alice), game.id)
    # Bob has the game open before the grace period is over, on his turn.
    assert client_for(bob).get(reverse("games:detail", args=[game.id])).status_code == 200

    # The sweep after the grace period finds it due...
    time.sleep(GRACE + 0.1)
    sweep_on_the_worker(worker)
    worker.wait_until_idle(shared_stack.redis.url)
    # ...and sends nothing.
    assert mail_sink.mails(kind="your_turn") == [], mail_sink.summary()
    assert Notification.objects.get(kind="your_turn", recipient=bob).status == "skipped"
