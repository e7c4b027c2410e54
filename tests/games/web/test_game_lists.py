import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from games import services
from games.models import Game, Seat
from tests.support.play import play_forward, to_move_user, waiting_user

pytestmark = pytest.mark.django_db


def new_game(client, **fields):
    data = {
        "num_players": 2,
        "variant": "colored",
        "days_per_move": 3,
        "seat2_kind": "invite",
        "seat2_username": "bob",
        "seat3_kind": "open",
        "seat4_kind": "open",
    }
    data.update(fields)
    return client.post(reverse("games:new"), data)


# -- creating a game -----------------------------------------------------------------------------


def test_create_form_invites_a_player_and_shows_the_waiting_game(alice, bob, client_for):
    client = client_for(alice)
    assert client.get(reverse("games:new")).status_code == 200

    response = new_game(client, variant="gray", days_per_move=7)

    game = Game.objects.get()
    assert response.status_code == 302
    assert response.url == reverse("games:detail", args=[game.id])
    assert (game.variant, game.days_per_move, game.status) == ("gray", 7, "open")
    seats = list(game.seats.order_by("position"))
    assert [s.user for s in seats] == [alice, bob]
    assert seats[1].invitation == Seat.Invitation.PENDING
    page = client.get(response.url).content.decode()
    assert "Waiting for players" in page
    assert "invited, not answered yet" in page


def test_create_form_with_open_and_computer_seats(alice, client_for):
    response = new_game(
        client_for(alice),
        num_players=4,
        seat2_kind="open",
        seat3_kind="computer",
        seat4_kind="computer",
    )

    assert response.status_code == 302
    kinds = list(Game.objects.get().seats.order_by("position").values_list("kind", "user"))
    assert kinds == [("human", alice.pk), ("human", None), ("computer", None), ("computer", None)]


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        ({"seat2_username": ""}, "seat2_username", "Name the player to invite"),
        ({"seat2_username": "nobody"}, "seat2_username", "There is no player called"),
        ({"seat2_username": "ALICE"}, "seat2_username", "You already sit in seat 1"),
        (
            {"num_players": 3, "seat3_kind": "invite", "seat3_username": "Bob"},
            "seat3_username",
            "already invited",
        ),
        ({"num_players": 5}, "num_players", "Select a valid choice"),
        ({"days_per_move": 4}, "days_per_move", "Select a valid choice"),
        ({"variant": "purple"}, "variant", "Select a valid choice"),
    ],
)
def test_create_form_explains_what_is_wrong(alice, bob, client_for, fields, field, message):
    response = new_game(client_for(alice), **fields)

    assert response.status_code == 200
    errors = response.context["form"].errors
    assert message in " ".join(errors[field])
    assert message.split("“")[0] in response.content.decode()
    assert not Game.objects.exists()


def test_seats_beyond_the_number_of_players_are_ignored(alice, bob, client_for):
    response = new_game(client_for(alice), seat3_kind="invite", seat3_username="")

    assert response.status_code == 302
    assert Game.objects.get().seats.count() == 2


# -- lobby and invitations -----------------------------------------------------------------------


def open_game(creator, num_players=2):
    return services.game_create(
        creator=creator,
        num_players=num_players,
        variant="colored",
        days_per_move=3,
        seats=[services.SeatSpec(kind="open")] * (num_players - 1),
    )


def test_lobby_lists_open_games_and_joining_starts_the_game(alice, bob, client_for):
    game = open_game(alice)
    client = client_for(bob)

    lobby = client.get(reverse("games:lobby")).content.decode()
    assert reverse("games:join", args=[game.id]) in lobby
    assert (
        reverse("games:join", args=[game.id])
        not in client_for(alice).get(reverse("games:lobby")).content.decode()
    )

    response = client.post(reverse("games:join", args=[game.id]), follow=True)

    assert response.redirect_chain[-1][0] == reverse("games:detail", args=[game.id])
    assert "You joined the game." in response.content.decode()
    game.refresh_from_db()
    assert game.status == "active"
    assert (
        reverse("games:join", args=[game.id])
        not in client.get(reverse("games:lobby")).content.decode()
    )


def test_joining_a_full_game_says_why(alice, bob, carol, client_for):
    game = open_game(alice)
    client_for(bob).post(reverse("games:join", args=[game.id]))

    response = client_for(carol).post(reverse("games:join", args=[game.id]), follow=True)

    assert response.redirect_chain[-1][0] == reverse("games:lobby")
    assert 'class="message error"' in response.content.decode()


def test_invitation_accept_and_decline_buttons(alice, bob, carol, client_for):
    game = services.game_create(
        creator=alice,
        num_players=3,
        variant="colored",
        days_per_move=3,
        seats=[
            services.SeatSpec(kind="invite", username="bob"),
            services.SeatSpec(kind="invite", username="carol"),
        ],
    )
    invitation_url = reverse("games:invitation", args=[game.id])
    page = client_for(bob).get(reverse("games:my_games")).content.decode()
    assert invitation_url in page
    assert "alice</strong> invites you" in page

    client_for(carol).post(invitation_url, {"accept": "0"})
    response = client_for(bob).post(invitation_url, {"accept": "1"}, follow=True)

    assert response.redirect_chain[-1][0] == reverse("games:detail", args=[game.id])
    seats = {s.position: s for s in Seat.objects.filter(game=game)}
    assert seats[1].invitation == "accepted"
    # carol declined: the seat has no player, and waits for alice to decide (not the lobby)
    assert seats[2].user is None and seats[2].invitation == "declined"
    assert seats[2].declined_by == carol and not seats[2].is_open
    assert invitation_url not in client_for(bob).get(reverse("games:my_games")).content.decode()


def test_creator_can_cancel_a_game_waiting_for_players(alice, client_for):
    game = open_game(alice)

    response = client_for(alice).post(
        reverse("games:cancel", args=[game.id]), {"confirm": "yes"}, follow=True
    )

    assert "The game was cancelled." in response.content.decode()
    game.refresh_from_db()
    assert game.status == "aborted"


def test_only_the_creator_can_cancel(alice, bob, client_for):
    game = open_game(alice)

    response = client_for(bob).post(
        reverse("games:cancel", args=[game.id]), {"confirm": "yes"}, follow=True
    )

    assert "Only the player who created this game can cancel it." in response.content.decode()
    game.refresh_from_db()
    assert game.status == "open"


# -- my games ------------------------------------------------------------------------------------


def test_my_games_lists_my_turn_first_by_time_left_then_the_others(
    start_game, alice, bob, carol, client_for
):
    games = [start_game(alice, bob), start_game(alice, carol), start_game(alice, bob)]
    mine, theirs = [], []
    for game in games:
        # Make it alice's turn in the first and last game only, whoever started.
        if (to_move_user(game) == alice) != (game is not games[1]):
            game = play_forward(game, moves=1)
        (mine if to_move_user(game) == alice else theirs).append(game)
    assert len(mine) == 2 and len(theirs) == 1
    now = timezone.now()
    Game.objects.filter(pk=mine[0].pk).update(turn_deadline=now + timedelta(days=2))
    Game.objects.filter(pk=mine[1].pk).update(turn_deadline=now + timedelta(hours=5))

    response = client_for(alice).get(reverse("games:my_games"))

    content = response.content.decode()
    urls = [reverse("games:detail", args=[g.id]) for g in (mine[1], mine[0], theirs[0])]
    positions = [content.index(url) for url in urls]
    assert positions == sorted(positions)
    assert content.index('class="card my-turn"') < positions[0] < positions[1]
    assert positions[1] < content.index('class="card waiting"') < positions[2]
    assert waiting_user(mine[0]) == bob


def test_home_page_summarises_my_games(start_game, alice, bob, client_for):
    game = start_game(alice, bob)
    mover = to_move_user(game)

    content = client_for(mover).get(reverse("home")).content.decode()

    assert "It is your move in 1 game" in content
    assert reverse("games:detail", args=[game.id]) in content


def test_player_profile_lists_their_games(start_game, alice, bob, carol, client_for):
    game = start_game(alice, bob)

    content = client_for(carol).get(reverse("accounts:player", args=["bob"])).content.decode()

    assert reverse("games:detail", args=[game.id]) in content
    # Nothing on the page says it is carol's move (the header's script carries the words for
    # its own badge, as data, whatever the page).
    assert "your move" not in re.sub(r"<script\b[^>]*>.*?</script>", "", content, flags=re.S)
