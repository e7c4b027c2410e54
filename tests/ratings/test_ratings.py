"""Ratings move with results: once per game, in the transaction that records it."""

from __future__ import annotations

import datetime

import pytest
import time_machine
from django.db import transaction
from django.urls import reverse

from games import services
from games.models import Game, Seat
from games.services import playing
from ratings import services as rating_services
from ratings import skill as rating_skill
from ratings.models import PlayerRecord, RatedGame, Rating
from tests.support.play import play_forward, play_to_end, random_players_move
from tests.support.records import record, seats_of, skill

pytestmark = pytest.mark.django_db


def decisive_game(start_game, players, n: int, *, variant="colored", fast=True, tries=5):
    """A game between `n` new players played to the end through the services, with no shared
    first place (random games rarely tie, but can: then again, with new players): returns it
    and everyone's (mu, sigma) before it, the initial ones."""
    for attempt in range(tries):
        users = players(n)
        before = {u.pk: skill(u) for u in users}
        game = start_game(*users, variant=variant)
        game = play_to_end(game.id, seed=attempt, fast=fast)
        places = [s.place for s in game.seat_list]
        if places.count(1) == 1:
            return game, before
    raise AssertionError(f"{tries} games in a row shared first place")


def test_a_win_raises_the_winner_and_lowers_the_loser(start_game, players, client_for):
    game, before = decisive_game(start_game, players, 2, fast=False)

    seats = seats_of(game.id)
    winner = next(s for s in seats if s.place == 1)
    loser = next(s for s in seats if s.place == 2)
    assert skill(winner.user)[0] > before[winner.user_id][0]
    assert skill(loser.user)[0] < before[loser.user_id][0]
    # The shown ratings, kept on the seats: the winner's goes up, the loser's down.
    assert winner.rating_after > winner.rating_before
    assert loser.rating_after < loser.rating_before
    for seat in seats:
        rating = Rating.objects.get(user_id=seat.user_id)
        assert seat.rating_after == round(rating.rating)
        assert rating.rating == pytest.approx(rating_skill.display(rating.mu, rating.sigma))
        assert seat.rating_before == round(rating_skill.display(*before[seat.user_id]))
    assert RatedGame.objects.filter(game_id=game.id).exists()

    # The game's page and API show each player's change.
    page = client_for(winner.user).get(reverse("games:detail", args=[game.id])).content.decode()
    change = winner.rating_after - winner.rating_before
    # Labelled: "Rating: 1500 → 1512 (+12)".
    assert (
        f'<span class="rating-change">Rating: {winner.rating_before} → {winner.rating_after}'
        f" (+{change})</span>"
    ) in page
    assert f" ({loser.rating_after - loser.rating_before})</span>" in page
    shown = client_for(loser.user).get(f"/api/games/{game.id}/").json()["players"]
    assert {(p["rating_before"], p["rating_after"]) for p in shown} == {
        (s.rating_before, s.rating_after) for s in seats
    }


def test_records_count_games_and_wins_per_kind(start_game, alice, bob, carol):
    game = play_to_end(start_game(alice, bob, carol, variant="gray").id)
    for seat in seats_of(game.id):
        # A shared first place, which random games can end in, is a win for each.
        counts = (1, int(seat.place == 1))
        for kind in [("", 0), ("gray", 0), ("", 3), ("gray", 3)]:
            assert record(seat.user, *kind) == counts
        assert record(seat.user, "colored", 0) == (0, 0)
        assert record(seat.user, "", 2) == (0, 0)
        # Every record carries the player's rating, for the leaderboards' order.
        rating = Rating.objects.get(user=seat.user).rating
        ratings = PlayerRecord.objects.filter(user=seat.user).values_list("rating", flat=True)
        assert set(ratings) == {rating}


def test_in_a_four_player_game_the_winner_rises_and_the_last_falls(start_game, players):
    game, before = decisive_game(start_game, players, 4)
    seats = sorted(seats_of(game.id), key=lambda s: s.place)
    first, last = seats[0], seats[-1]
    assert skill(first.user)[0] > before[first.user_id][0]
    assert first.rating_after > first.rating_before
    if last.place > seats[-2].place:  # not sharing last place
        assert skill(last.user)[0] < before[last.user_id][0]
    # Plackett-Luce orders every player: a better place never gets a smaller gain.
    gains = [skill(s.user)[0] - before[s.user_id][0] for s in seats]
    assert gains == sorted(gains, reverse=True)


def finished_game_with_places(start_game, users, places: list[int]) -> tuple[Game, list[Seat]]:
    """A game between new players, finished with these places as `record_result` would record
    them (random play cannot be steered into a tie), then rated by the service in a transaction
    that locks it, as `write_moves` does (through `games.effects.game_finished`)."""
    game = start_game(*users)
    with transaction.atomic():
        game = playing.lock_game(game.id)
        seats = list(game.seat_list)
        for seat, place in zip(seats, places, strict=True):
            seat.place, seat.final_score = place, 50 - 10 * place
        game.status = Game.Status.FINISHED
        assert rating_services.game_rate(game=game, seats=seats)
        Seat.objects.bulk_update(seats, ["place", "final_score", *rating_services.SEAT_FIELDS])
        game.save()
    return game, seats


def test_shared_places_are_ties(start_game, players):
    a, b = players(2)
    _, seats = finished_game_with_places(start_game, [a, b], [1, 1])
    # Equal players who tie stay equal in skill; only their uncertainty shrinks.
    (mu_a, sigma_a), (mu_b, sigma_b) = skill(a), skill(b)
    assert mu_a == pytest.approx(25.0) and mu_b == pytest.approx(25.0)
    assert sigma_a == sigma_b < 25.0 / 3
    assert seats[0].rating_after == seats[1].rating_after
    # A shared first place is a win for each.
    assert record(a) == record(b) == (1, 1)

    c, d, e = players(3)
    finished_game_with_places(start_game, [c, d, e], [1, 1, 3])
    assert skill(c) == skill(d)
    assert skill(c)[0] > 25.0 > skill(e)[0]
    assert record(c) == record(d) == (1, 1) and record(e) == (1, 0)

    f, g, h = players(3)
    finished_game_with_places(start_game, [f, g, h], [1, 2, 2])
    assert skill(g) == skill(h)
    assert skill(f)[0] > 25.0 > skill(g)[0]


def snapshot() -> tuple:
    return (
        sorted(Rating.objects.values_list("user_id", "mu", "sigma", "rating")),
        sorted(
            PlayerRecord.objects.values_list("user_id", "variant", "num_players", "games", "wins")
        ),
        sorted(Seat.objects.values_list("id", "rating_before", "rating_after")),
        RatedGame.objects.count(),
    )


def test_finishing_twice_changes_ratings_once(start_game, alice, bob, carol):
    game = play_to_end(start_game(alice, bob, carol).id)
    rated = snapshot()
    assert rated[3] == 1

    # A retried finish: the finishing write runs again under the game's lock.
    with transaction.atomic():
        locked = playing.lock_game(game.id)
        seats = list(locked.seat_list)
        state = locked.engine_state()
        playing.record_result(locked, seats, state)
        playing.write_moves(locked, seats, [], state)
    assert snapshot() == rated
    # The rating service on its own, too.
    with transaction.atomic():
        locked = playing.lock_game(game.id)
        assert not rating_services.game_rate(game=locked, seats=list(locked.seat_list))
    assert snapshot() == rated
    # And the tasks that could come late: nothing is left to play.
    assert services.computer_move_play(game_id=game.id, expected_ply=game.ply - 1) is None
    assert services.timeouts_play(game_id=game.id, expected_ply=game.ply) is None
    assert snapshot() == rated


def test_a_seat_lost_by_timeouts_is_ranked_last(start_game, alice, bob, carol):
    """Bob times out a third time; the computer (greedy) plays his seat to the end against two
    random players, and usually outscores them; whatever his place, his rating counts the game
    as a loss to both."""
    game = start_game(alice, bob, carol)
    bob_seat = Seat.objects.get(game=game, user=bob)
    Seat.objects.filter(pk=bob_seat.pk).update(timeouts=2)  # two timeouts earlier on
    before = {u.pk: skill(u) for u in (alice, bob, carol)}
    game = play_forward(
        game,
        until=lambda game: game.engine_state().to_move[0] == bob_seat.position,
        pick=random_players_move,
        seed=1,
    )
    with time_machine.travel(game.turn_deadline + datetime.timedelta(minutes=1), tick=False):
        assert services.timeouts_play(game_id=game.id, expected_ply=game.ply) is not None
    bob_seat.refresh_from_db()
    assert bob_seat.autoplay and bob_seat.timeouts == 3

    game = play_to_end(game.id, seed=3, fast=False)
    bob_seat.refresh_from_db()
    gains = {u.pk: skill(u)[0] - before[u.pk][0] for u in (alice, bob, carol)}
    assert gains[bob.pk] < 0
    assert gains[bob.pk] < min(gains[alice.pk], gains[carol.pk])
    assert bob_seat.rating_after < bob_seat.rating_before
    assert record(bob) == (1, 0)
    assert record(alice)[1] + record(carol)[1] >= 1  # the best of the two present won


def test_games_with_a_computer_seat_are_not_rated(alice, bob):
    game = services.game_create(
        creator=alice,
        num_players=3,
        variant="colored",
        days_per_move=3,
        seats=[
            services.SeatSpec(kind="invite", username=bob.username),
            services.SeatSpec(kind="computer", level="random"),
        ],
    )
    services.invitation_respond(game_id=game.id, user=bob, accept=True)
    game = play_to_end(game.id)
    assert game.status == Game.Status.FINISHED
    assert all(s.rating_before is None and s.rating_after is None for s in seats_of(game.id))
    assert not Rating.objects.exists() and not PlayerRecord.objects.exists()
    assert not RatedGame.objects.exists()


def test_rating_change_filter():
    from ratings.templatetags.ratings_tags import rating_change

    assert rating_change(1014, 1000) == "+14"
    assert rating_change(990, 1000) == "-10"
    assert rating_change(1000, 1000) == "±0"
    assert rating_change(None, None) == ""


def test_which_seats_are_rated_and_how_they_rank():
    from ratings.skill import RatedSeat, is_rated, ranks, winners

    assert is_rated(["human", "human"], [1, 2])
    assert not is_rated(["human", "computer"], [1, None])
    assert not is_rated(["human", "human"], [None, None])  # a study game: names, no accounts
    # Places as they are, ties shared; seats lost by timeouts after everyone, tied together.
    seats = [RatedSeat(1, 1), RatedSeat(2, 2, absent=True), RatedSeat(3, 2), RatedSeat(4, 1)]
    assert ranks(seats) == [1, 3, 2, 1]
    assert winners(seats) == [True, False, False, True]
    absent_winner = [RatedSeat(1, 1, absent=True), RatedSeat(2, 2), RatedSeat(3, 3, absent=True)]
    assert ranks(absent_winner) == [4, 2, 4]
    assert winners(absent_winner) == [False, True, False]
