"""Resigning: the greedy computer plays the resigned seat to the end, the result ranks it last
whatever its score, everyone else is told, and the ratings follow those places. When nothing is
left to play for, the game is played out and finished at once."""

import re
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

import azul
from games import selectors, services, standings
from games.models import Game, Seat
from ratings import skill
from ratings.models import PlayerRecord
from tests.support.mail import sent
from tests.support.play import game_over, play_forward, positions

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("site_mail")]


def api(game, *parts):
    return "/api/games/" + "".join(f"{p}/" for p in (game.id, *parts))


def test_resigned_seats_come_last_whatever_their_scores():
    def standing(player, score, place, rows=0):
        return azul.Standing(player, score, place, rows, 0, 0, 0)

    # The rulebook's places (score, then complete rows): 0 and 2 share first, 1 third, 3 last.
    outcome = azul.Result(
        (standing(0, 50, 1, 1), standing(1, 40, 3), standing(2, 50, 1, 1), standing(3, 10, 4))
    )
    places = lambda result: [s.place for s in result.standings]  # noqa: E731
    assert places(standings.resigned_last(outcome, [])) == [1, 3, 1, 4]
    # 0 resigned with the best score: after every other seat, which keep their order.
    assert places(standings.resigned_last(outcome, [0])) == [4, 2, 1, 3]
    # Two resigned: they share the place after the others.
    assert places(standings.resigned_last(outcome, [0, 2])) == [3, 1, 3, 2]
    assert [s.score for s in standings.resigned_last(outcome, [0]).standings] == [50, 40, 50, 10]


@pytest.fixture
def three(alice, bob, carol, start_game):
    return start_game(alice, bob, carol)


def test_the_computer_plays_a_resigned_seat_to_the_end_and_it_finishes_last(
    three, alice, bob, carol, api_client_for, committed, client_for
):
    response = committed(api_client_for(bob).post, path=api(three, "resign"))
    assert response.status_code == 200
    view = response.json()
    assert view["status"] == "active"  # alice and carol play on
    bob_seat = positions(three)[bob.pk]
    assert view["players"][bob_seat]["resigned"] and view["players"][bob_seat]["autoplay"]

    # The others are told, by email and on the board; bob is not.
    assert sorted(m.to[0] for m in sent("resigned")) == [alice.email, carol.email]
    [told] = sent("resigned", to=alice)
    assert told.subject == "[Azul] bob resigned from your game"
    assert "bob resigned. Your game against bob and carol goes on: the computer" in told.body
    board = client_for(alice).get(reverse("games:detail", args=[three.id])).content.decode()
    assert "<strong>bob</strong> resigned: the computer (greedy) plays their seat" in board
    # bob's board is labelled as resigned, not as a seat the computer took over after timeouts.
    header = re.search(
        rf'<section class="player-board[^"]*"[^>]*data-seat="{bob_seat}">\s*<header>(.*?)</header>',
        board,
        re.S,
    )
    assert header and '<span class="badge muted resigned">resigned</span>' in header.group(1)
    assert "played by the computer" not in header.group(1)
    own = client_for(bob).get(reverse("games:detail", args=[three.id])).content.decode()
    assert "You resigned: the computer (greedy) plays your seat to the end" in own
    assert reverse("games:resign", args=[three.id]) not in own  # no second resignation

    # bob can make no more moves; the computer makes them.
    game = selectors.game_get(game_id=three.id)
    users = {
        p: u for u, p in ((alice, positions(three)[alice.pk]), (carol, positions(three)[carol.pk]))
    }
    if bob_seat in game.engine_state().to_move:
        game = committed(services.computer_move_play, game_id=three.id, expected_ply=game.ply)
    finished = play_forward(
        three, until=game_over, users=users, committed=committed, seed=5, limit=400
    )

    seats = {s.position: s for s in Seat.objects.filter(game=finished)}
    assert seats[bob_seat].place == 3
    # alice and carol are placed by their own scores; equal scores are split by the rulebook's
    # tie-breaker (complete rows), so the first placed may hold the same score as the second.
    others = sorted((s for p, s in seats.items() if p != bob_seat), key=lambda s: s.place)
    assert [s.place for s in others] in ([1, 2], [1, 1])
    assert others[0].final_score >= others[1].final_score
    computer_moves = finished.log_entries.filter(kind="move", player=bob_seat)
    assert computer_moves.exists()
    result = api_client_for(carol).get(api(finished)).json()["result"]
    assert result["ranking"][-1] == bob_seat
    assert {s["position"]: s["place"] for s in result["standings"]} == {
        p: s.place for p, s in seats.items()
    }
    call_command("check_game_logs", stdout=StringIO())


def test_resigning_a_two_player_game_finishes_it_at_once_and_rates_it(
    alice,
    bob,
    start_game,
    api_client_for,
    committed,
    client_for,
    django_capture_on_commit_callbacks,
):
    # Three moves each first: a game resigned sooner is not rated (tests/ratings/test_fair_play).
    game = play_forward(start_game(alice, bob), moves=6)
    with django_capture_on_commit_callbacks(execute=True):
        response = api_client_for(bob).post(api(game, "resign"))
    view = response.json()
    assert response.status_code == 200 and view["status"] == "finished"
    mine = {p["username"]: p for p in view["players"]}
    assert mine["alice"]["place"] == 1 and mine["bob"]["place"] == 2
    assert view["result"]["winners"] == [mine["alice"]["position"]]
    # Played to the rules' end: a whole, replayable log.
    state = azul.State.from_dict(Game.objects.get(pk=game.id).state)
    assert state.phase == "over"
    call_command("check_game_logs", stdout=StringIO())

    # Rated with those places: alice up, bob down, as the rating arithmetic says.
    seats = {s.user_id: s for s in Seat.objects.filter(game=game)}
    assert seats[alice.pk].rating_after > seats[alice.pk].rating_before
    assert seats[bob.pk].rating_after < seats[bob.pk].rating_before
    rated = [skill.RatedSeat(alice.pk, 1), skill.RatedSeat(bob.pk, 2, absent=True)]
    new = skill.rate([(skill.INITIAL_MU, skill.INITIAL_SIGMA)] * 2, skill.ranks(rated))
    assert seats[alice.pk].rating_after == round(skill.display(*new[0]))
    assert PlayerRecord.objects.get(user=alice, variant="", num_players=0).wins == 1
    assert PlayerRecord.objects.get(user=bob, variant="", num_players=0).wins == 0
    out = StringIO()
    call_command("ratings_recompute", stdout=out)
    assert "agree" in out.getvalue()

    # Told by the game-over email, which names who resigned (no second email about it).
    assert sent("resigned") == []
    [over] = sent("game_over", to=alice)
    assert "bob" in over.body and "(resigned)" in over.body
    page = client_for(alice).get(reverse("games:detail", args=[game.id])).content.decode()
    assert "<strong>bob</strong> resigned, and finished last." in page


def test_resigning_against_the_computer_ends_the_game(alice, committed):
    game = committed(
        services.game_create,
        creator=alice,
        num_players=3,
        variant="gray",
        days_per_move=3,
        seats=[
            services.SeatSpec("computer", level="strong"),
            services.SeatSpec("computer", level="random"),
        ],
    )
    game = committed(services.game_resign, game_id=game.id, user=alice)
    assert game.status == Game.Status.FINISHED
    places = {s.position: s.place for s in Seat.objects.filter(game=game)}
    assert places[0] == 3 and sorted([places[1], places[2]])[0] == 1


def test_resigning_is_refused_clearly(alice, bob, carol, start_game, api_client_for):
    game = start_game(alice, bob, carol)
    assert api_client_for(carol).post(api(game, "resign")).status_code == 200
    twice = api_client_for(carol).post(api(game, "resign"))
    assert twice.status_code == 409 and twice.json()["code"] == "already_resigned"

    from django.contrib.auth import get_user_model

    dora = get_user_model().objects.create_user("dora", "dora@example.com", "x")
    stranger = api_client_for(dora).post(api(game, "resign"))
    assert stranger.status_code == 403 and stranger.json()["code"] == "not_a_player"
    assert api_client_for(dora).post("/api/games/nope/resign/").status_code == 404

    # A resigned player's move is refused; the computer moves for them.
    view = api_client_for(carol).get(api(game)).json()
    assert view["legal_moves"] == [] and not view["viewer_can_move"]
    move = api_client_for(carol).post(
        api(game, "moves"), {"move": "F1 blue 1", "expected_ply": view["ply"]}, format="json"
    )
    assert move.status_code == 409 and move.json()["code"] == "resigned"

    assert api_client_for(bob).post(api(game, "resign")).status_code == 200  # now finished
    over = api_client_for(alice).post(api(game, "resign"))
    assert over.status_code == 409 and "finished" in over.json()["detail"]

    waiting = services.game_create(
        creator=alice,
        num_players=2,
        variant="colored",
        days_per_move=3,
        seats=[services.SeatSpec("open")],
    )
    early = api_client_for(alice).post(api(waiting, "resign"))
    assert early.status_code == 409 and "waiting for players" in early.json()["detail"]


def test_resigning_through_the_page_asks_first(alice, bob, carol, start_game, client_for):
    game = start_game(alice, bob, carol)
    client = client_for(alice)
    url = reverse("games:resign", args=[game.id])
    board = client.get(reverse("games:detail", args=[game.id])).content.decode()
    assert f'action="{url}"' in board and "data-confirm=" in board and "game_actions.js" in board

    # Without JavaScript, the button's form comes without the confirmation: a page asks.
    asked = client.post(url, {"confirm": ""})
    assert asked.status_code == 200
    assert "Resign this game?" in asked.content.decode()
    assert 'name="confirm" value="yes"' in asked.content.decode()
    assert client.get(url).status_code == 200
    assert Seat.objects.get(game=game, user=alice).resigned_at is None

    done = client.post(url, {"confirm": "yes"}, follow=True)
    assert done.redirect_chain[-1][0] == reverse("games:detail", args=[game.id])
    assert "You resigned" in done.content.decode()
    assert Seat.objects.get(game=game, user=alice).resigned_at is not None
    # Once resigned, the confirmation page sends them back to the game.
    again = client.get(url, follow=True)
    assert "You cannot resign this game" in again.content.decode()


def test_the_resignation_email_follows_the_game_over_choice(
    alice, bob, carol, start_game, committed
):
    from accounts.models import Delivery
    from notifications.models import Notification

    carol.profile.email_game_over = Delivery.NEVER
    carol.profile.save()
    game = start_game(alice, bob, carol)
    committed(services.game_resign, game_id=game.id, user=bob)
    assert [m.to for m in sent("resigned")] == [[alice.email]]
    assert Notification.objects.get(kind="resigned", recipient=carol).status == "skipped"
