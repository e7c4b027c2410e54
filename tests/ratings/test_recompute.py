"""`manage.py ratings_recompute`: every rating rebuilt from the finished games agrees with the
ratings the games made as they ended; a difference is reported, and `--fix` mends it."""

from __future__ import annotations

import random
from io import StringIO

import pytest
from django.core.management import call_command

from games import services
from games.models import Game, Seat
from games.services.setup import game_create_seated
from ratings.models import PlayerRecord, RatedGame, Rating
from tests.support.play import play_to_end, write_log_ahead

pytestmark = pytest.mark.django_db


def recompute(*args: str) -> str:
    out = StringIO()
    call_command("ratings_recompute", *args, stdout=out)
    return out.getvalue()


def stored() -> tuple:
    return (
        sorted(Rating.objects.values_list("user_id", "mu", "sigma", "rating", "opponents")),
        sorted(
            PlayerRecord.objects.values_list(
                "user_id", "variant", "num_players", "games", "wins", "rating"
            )
        ),
        sorted(Seat.objects.values_list("id", "rating_before", "rating_after")),
        sorted(RatedGame.objects.values_list("game_id", flat=True)),
    )


def play_games(users: list, count: int, seed: int) -> None:
    """`count` finished games of 2-4 of `users`, of both variants; about one in ten has a
    computer seat (unrated) and one in eight a seat the computer took over after its player's
    third timeout. The games of people alone start seated (as an event's tables do: one
    service call rather than an invitation and its answer per player); all but the last moves
    are written outright, and the last one goes through the services, which rate the game as
    it ends."""
    rng = random.Random(seed)
    for number in range(count):
        players = rng.randint(2, 4)
        seated = rng.sample(users, players)
        variant = rng.choice(["colored", "gray"])
        if number % 10 == 9:
            seats = [services.SeatSpec(kind="invite", username=u.username) for u in seated[1:]]
            seats[-1] = services.SeatSpec(kind="computer", level="random")
            game = services.game_create(
                creator=seated[0],
                num_players=players,
                variant=variant,
                days_per_move=3,
                seats=seats,
            )
            for user, spec in zip(seated[1:], seats, strict=True):
                if spec.kind == "invite":
                    game = services.invitation_respond(game_id=game.id, user=user, accept=True)
        else:
            game = game_create_seated(players=seated, variant=variant, days_per_move=3)
        write_log_ahead(game.id, rng)
        if number % 8 == 3:
            # As three timeouts leave it: the computer plays the seat for its absent player.
            Seat.objects.filter(game=game, position=rng.randrange(players)).update(
                timeouts=3, autoplay=True
            )
        play_to_end(game.id, seed=number, fast=False)


def test_recompute_agrees_then_reports_and_fixes_differences(make_user):
    users = [make_user(f"u{i}") for i in range(6)]
    play_games(users, 12, seed=1)
    assert Game.objects.filter(status="finished").count() == 12
    assert "The stored ratings agree with the history." in recompute()
    good = stored()

    # Wrong ratings, a lost record, a seat's change, a missing mark and a rated game the
    # history does not rate.
    Rating.objects.filter(user=users[0]).update(mu=40.0)
    PlayerRecord.objects.filter(user=users[1], variant="", num_players=0).delete()
    seat = Seat.objects.filter(rating_after__isnull=False).first()
    Seat.objects.filter(pk=seat.pk).update(rating_after=seat.rating_after + 5)
    unrated = Game.objects.filter(status="finished", rated__isnull=True).first()
    RatedGame.objects.filter(game_id=RatedGame.objects.first().game_id).delete()
    RatedGame.objects.create(game=unrated)
    version = Game.objects.get(pk=seat.game_id).updated_at

    report = recompute()
    assert "differences" in report and "--fix" in report
    assert f"player {users[0].pk}: stored mu 40.0000" in report
    assert f"seat {seat.pk} of game {seat.game_id}" in report
    assert stored() != good  # reporting changes nothing

    fixed = recompute("--fix")
    assert "Fixed 5 differences" in fixed
    assert stored() == good
    # The game whose seats changed has a new version, so its cached board is not shown again.
    assert Game.objects.get(pk=seat.game_id).updated_at > version
    assert "agree" in recompute()


def test_recompute_rates_games_finished_before_ratings(make_user):
    users = [make_user(f"u{i}") for i in range(4)]
    play_games(users, 5, seed=2)
    good = stored()
    # As it was before ratings existed.
    Rating.objects.all().delete()
    PlayerRecord.objects.all().delete()
    RatedGame.objects.all().delete()
    Seat.objects.update(rating_before=None, rating_after=None)

    assert "differences" in recompute()
    recompute("--fix")
    assert stored() == good


@pytest.mark.slow
def test_recompute_agrees_with_the_ratings_of_hundreds_of_games(make_user):
    """200 games of 2-4 players between 20 players, each rated as it ended: the recompute
    from the history finds exactly the same ratings, records and seats' changes."""
    users = [make_user(f"player{i}") for i in range(20)]
    play_games(users, 200, seed=14)
    finished = Game.objects.filter(status="finished").count()
    assert finished == 200
    # Not the 20 with a computer seat, nor the games of a pair past its 3 rated games a day
    # (they are all played within the day).
    rated = RatedGame.objects.count()
    assert 100 < rated < 180
    assert Seat.objects.filter(autoplay=True).count() == 25

    before = stored()
    report = recompute()
    assert f"200 finished games, {rated} rated, 20 players" in report
    assert "The stored ratings agree with the history." in report
    assert "Fixed" not in recompute("--fix")
    assert stored() == before
