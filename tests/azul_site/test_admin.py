"""The admin, through its real pages as a superuser (issue #30): games, seats, log entries,
ratings and the outbox are shown, never added, changed or deleted there; an operator acts on a
game only through the actions, which call the games' own services."""

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from games.models import Game, LogEntry, Seat
from notifications import services as notification_services
from notifications.models import Notification
from ratings.models import PlayerRecord, RatedGame, Rating
from tests.support import factories
from tests.support.play import finish, play_forward, waiting_for

pytestmark = pytest.mark.django_db

READ_ONLY = (Game, LogEntry, Notification, Rating, PlayerRecord, RatedGame)


@pytest.fixture
def admin_client(client_for, root):
    return client_for(root)


@pytest.fixture
def rows(alice, bob, start_game):
    """A finished, rated game (its seats, log, ratings and emails), and an active one."""
    finished = finish(start_game(alice, bob))
    active = waiting_for(play_forward(start_game(alice, bob), moves=2), alice)
    notification_services.notify(
        recipient_id=alice.pk, kind="game_over", game_id=finished.id, ply=finished.ply
    )
    return {"finished": finished, "active": active}


def admin_url(model, view: str, *args) -> str:
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_{view}", args=args)


def form_fields(html: str) -> set[str]:
    """The names of the boxes a person could edit on the page (not hidden ones: the inlines'
    bookkeeping), but the admin's own (the search box, the CSRF token)."""
    tags = re.findall(r"<(?:input|select|textarea)\b[^>]*>", html)
    names = {
        m.group(1)
        for tag in tags
        if 'type="hidden"' not in tag and (m := re.search(r'\bname="([^"]+)"', tag))
    }
    return {n for n in names if n not in {"csrfmiddlewaretoken", "q"} and not n.startswith("_")}


def test_list_and_view_pages_show_and_offer_no_change(admin_client, rows):
    for model in READ_ONLY:
        listing = admin_client.get(admin_url(model, "changelist"))
        assert listing.status_code == 200, model
        assert admin_url(model, "add") not in listing.content.decode(), model
        row = model.objects.first()
        assert row is not None, model
        page = admin_client.get(admin_url(model, "change", row.pk))
        html = page.content.decode()
        assert page.status_code == 200, model
        # A view, not a form: nothing to edit, no Save, no Delete.
        assert form_fields(html) == set(), (model, form_fields(html))
        assert 'name="_save"' not in html and admin_url(model, "delete", row.pk) not in html


def test_adding_and_deleting_are_refused(admin_client, rows):
    for model in READ_ONLY:
        row = model.objects.first()
        count = model.objects.count()
        assert admin_client.get(admin_url(model, "add")).status_code == 403, model
        assert admin_client.post(admin_url(model, "add"), {}).status_code == 403, model
        deleting = admin_client.post(admin_url(model, "delete", row.pk), {"post": "yes"})
        assert deleting.status_code == 403, model
        bulk = admin_client.post(
            admin_url(model, "changelist"),
            {"action": "delete_selected", "_selected_action": [row.pk], "post": "yes"},
        )
        assert bulk.status_code in (200, 302), model  # "no such action", nothing deleted
        assert model.objects.count() == count, model


def test_a_player_cannot_be_swapped_into_an_active_game(admin_client, rows, carol):
    game = rows["active"]
    seats = list(game.seats.order_by("position"))
    data = {
        "variant": game.variant,
        "num_players": game.num_players,
        "status": Game.Status.ACTIVE,
        "days_per_move": game.days_per_move,
        "created_by": carol.pk,
        "seats-TOTAL_FORMS": len(seats),
        "seats-INITIAL_FORMS": len(seats),
        "log_entries-TOTAL_FORMS": 0,
        "log_entries-INITIAL_FORMS": 0,
    }
    for i, seat in enumerate(seats):
        data |= {f"seats-{i}-id": seat.pk, f"seats-{i}-game": game.pk}
        data |= {f"seats-{i}-position": seat.position, f"seats-{i}-kind": "human"}
        data |= {f"seats-{i}-user": carol.pk if i == 0 else seat.user_id}
    before = list(Seat.objects.filter(game=game).values_list("user_id", flat=True))

    response = admin_client.post(admin_url(Game, "change", game.pk), data)

    assert response.status_code == 403
    assert list(Seat.objects.filter(game=game).values_list("user_id", flat=True)) == before
    assert Game.objects.get(pk=game.pk).created_by_id == game.created_by_id


def test_a_log_entry_cannot_be_edited(admin_client, rows):
    entry = LogEntry.objects.filter(game=rows["active"], kind="move").first()

    response = admin_client.post(
        admin_url(LogEntry, "change", entry.pk),
        {"game": entry.game_id, "number": entry.number, "kind": "move", "player": 1, "data": "{}"},
    )

    assert response.status_code == 403
    assert LogEntry.objects.get(pk=entry.pk).data == entry.data


def test_the_outbox_is_read_only_but_failed_emails_can_be_retried(admin_client, rows, alice):
    notification = Notification.objects.get(recipient=alice, kind="game_over")
    Notification.objects.filter(pk=notification.pk).update(status="failed", attempts=3)

    changing = admin_client.post(admin_url(Notification, "change", notification.pk), {})
    retrying = admin_client.post(
        admin_url(Notification, "changelist"),
        {"action": "retry_failed", "_selected_action": [notification.pk]},
    )

    assert changing.status_code == 403
    assert retrying.status_code == 302
    assert Notification.objects.get(pk=notification.pk).status != "failed"


def run_action(admin_client, action: str, game: Game):
    response = admin_client.post(
        admin_url(Game, "changelist"),
        {"action": action, "_selected_action": [game.pk]},
        follow=True,
    )
    assert response.status_code == 200
    return [str(m) for m in response.context["messages"]]


def test_the_overdue_turn_action_plays_through_the_timeout_service(admin_client, rows, alice):
    game = rows["active"]

    # Not yet overdue: nothing happens.
    said = run_action(admin_client, "play_overdue_turns", game)
    assert said == ["Played in 0 of 1 game(s); in the other 1, no player's time had run out."]
    assert Game.objects.get(pk=game.pk).ply == game.ply

    Game.objects.filter(pk=game.pk).update(turn_deadline=timezone.now() - timedelta(minutes=1))
    said = run_action(admin_client, "play_overdue_turns", game)

    assert said == ["Played in 1 of 1 game(s)."]
    assert Game.objects.get(pk=game.pk).ply > game.ply
    assert Seat.objects.get(game=game, user=alice).timeouts == 1


def test_the_computer_turn_action_plays_through_the_computer_service(admin_client, alice):
    game = factories.against_computer(alice, level="random")
    alice_position = game.seats.get(user=alice).position
    game = play_forward(game, until=lambda g: alice_position not in g.engine_state().to_move)

    said = run_action(admin_client, "play_computer_turns", game)

    assert said == ["Played in 1 of 1 game(s)."]
    after = Game.objects.get(pk=game.pk)
    assert after.ply > game.ply
    assert LogEntry.objects.filter(game=game, number=game.ply, player=1 - alice_position).exists()


def test_an_api_token_is_shown_without_its_digest_and_deleting_it_revokes_it(admin_client, alice):
    from rest_framework.test import APIClient

    from accounts.models import ApiToken
    from accounts.services import token_create

    token, key = token_create(user=alice, name="my script")
    listing = admin_client.get(reverse("admin:accounts_apitoken_changelist"))
    assert listing.status_code == 200 and token.prefix in listing.content.decode()
    page = admin_client.get(reverse("admin:accounts_apitoken_change", args=[token.pk]))
    assert page.status_code == 200
    assert token.digest not in page.content.decode()
    assert 'name="name"' not in page.content.decode()  # nothing to edit
    assert admin_client.get(reverse("admin:accounts_apitoken_add")).status_code == 403

    admin_client.post(reverse("admin:accounts_apitoken_delete", args=[token.pk]), {"post": "yes"})

    assert not ApiToken.objects.filter(pk=token.pk).exists()
    assert APIClient().get("/api/me/", HTTP_AUTHORIZATION=f"Token {key}").status_code == 401


def test_a_username_like_another_players_is_a_form_error_not_a_500(admin_client, alice, bob):
    """The skeletons' constraint would refuse it in the database: the admin's forms say so
    first, for a new account and a renamed one, and nothing is written."""
    from accounts.models import User

    added = admin_client.post(
        admin_url(User, "add"),
        {
            "username": "b0b",
            "usable_password": "false",
            "password1": "a-long-pass-phrase-1",
            "password2": "a-long-pass-phrase-1",
        },
    )
    assert added.status_code == 200
    assert "looks too much like the username of another player" in added.content.decode()
    assert not User.objects.filter(username="b0b").exists()

    page = admin_client.get(admin_url(User, "change", alice.pk))
    form = {
        m.group(1): m.group(2)
        for m in re.finditer(
            r'<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"', page.content.decode()
        )
    }
    form.update(username="b0b", date_joined_0="2026-01-01", date_joined_1="00:00:00")
    renamed = admin_client.post(admin_url(User, "change", alice.pk), form)
    assert renamed.status_code == 200
    assert "looks too much like the username of another player" in renamed.content.decode()
    alice.refresh_from_db()
    assert alice.username == "alice"
