"""Fair ratings (README, "Fair play"): a hostile account farming its own second account harms
nobody but itself. A game resigned in its first moves is not rated; a pair's games are rated
only up to a few a day and a week; the leaderboard asks for several different opponents; the
admin sees lopsided pairs; and `ratings_recompute` applies the same rules."""

from __future__ import annotations

import datetime

import pytest
import time_machine
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from games import services
from games.models import Game
from ratings import selectors, skill
from ratings.models import RatedGame, Rating
from ratings.recompute import ratings_recompute
from tests.ratings.test_leaderboard import rate_player
from tests.support.factories import api_client_for, start_game
from tests.support.play import play_forward
from tests.support.urls import games_url

pytestmark = pytest.mark.django_db

API = "/api/leaderboard/"


def resigned_game(winner, loser, *, moves: int = 0) -> Game:
    """A two-player game `winner` starts against `loser`, played `moves` moves (about half
    each), then resigned by `loser`."""
    game = start_game(winner, loser)
    if moves:
        play_forward(game, moves=moves)
    return services.game_resign(game_id=game.id, user=loser)


def rated(game: Game) -> bool:
    return RatedGame.objects.filter(game_id=game.id).exists()


def farm_by_api(hostile, alt, games: int) -> list[str]:
    """`games` invite-accept-resign games through the API, as a script would: the two accounts
    take turns to create the game and invite the other (each within its creation throttle),
    and `alt` resigns at once. Returns the games' ids."""
    clients = {hostile: api_client_for(hostile), alt: api_client_for(alt)}
    ids = []
    for number in range(games):
        creator, invited = (hostile, alt) if number % 2 else (alt, hostile)
        made = clients[creator].post(
            games_url(),
            {"players": 2, "seats": [{"kind": "invite", "username": invited.username}]},
            format="json",
        )
        assert made.status_code == 201, made.json()
        game_id = made.json()["id"]
        accepted = clients[invited].post(
            games_url(game_id, "invitation"), {"accept": True}, format="json"
        )
        assert accepted.status_code == 200, accepted.json()
        resigned = clients[alt].post(games_url(game_id, "resign"))
        assert resigned.status_code == 200, resigned.json()
        assert resigned.json()["status"] == "finished"
        ids.append(game_id)
    return ids


def farmers_recomputed(*farmers) -> bool:
    """The recompute agrees with every rated game, seat and the farmers' ratings (the regular
    players' ratings are written directly, with no games behind them)."""
    report = ratings_recompute()
    farmer_ids = {f"player {f.pk}:" for f in farmers}
    return (
        report.differences["rated games"] == 0
        and report.differences["seats"] == 0
        and not any(line.startswith(tuple(farmer_ids)) for line in report.examples)
    )


@pytest.fixture
def regulars(make_user):
    """Six players with ratings, records and enough opponents: the leaderboard as it was."""
    made = []
    for i, rating in enumerate((1500, 1400, 1300, 1200, 1100, 1000)):
        user = make_user(f"regular{i}")
        rate_player(user, rating, {("colored", 2): (10, 5)})
        made.append(user)
    return made


def test_a_game_resigned_in_its_first_moves_is_not_rated(alice, bob, settings):
    assert settings.RATINGS_MIN_OWN_MOVES == 3
    at_once = resigned_game(alice, bob)
    assert at_once.status == Game.Status.FINISHED
    assert not rated(at_once)
    assert all(s.rating_before is None and s.rating_after is None for s in at_once.seat_list)
    # Two moves each: still too short.
    assert not rated(resigned_game(alice, bob, moves=4))
    assert not Rating.objects.exists()
    # Three moves each: a real game, rated.
    played = resigned_game(alice, bob, moves=6)
    assert rated(played)
    assert all(s.rating_after is not None for s in played.seat_list)
    assert ratings_recompute().total == 0


def test_only_the_first_games_of_a_pair_in_a_day_and_a_week_are_rated(alice, bob, carol):
    start = timezone.now()
    by_day: list[list[bool]] = []
    for day in range(4):
        # A day and an hour apart, so that no game is within 24 hours of the day before's.
        with time_machine.travel(start + datetime.timedelta(days=day, hours=day), tick=True):
            by_day.append([rated(resigned_game(alice, bob, moves=6)) for _ in range(4)])
            if day == 3:
                # Another pair is not held back by this one.
                assert rated(resigned_game(alice, carol, moves=6))
    # 3 a day; and 10 in 7 days: the fourth day has one left.
    assert by_day == [[True] * 3 + [False]] * 3 + [[True, False, False, False]]
    # A week on, the pair's games count again.
    with time_machine.travel(start + datetime.timedelta(days=11), tick=True):
        assert rated(resigned_game(alice, bob, moves=6))
    assert ratings_recompute().total == 0


def test_the_leaderboard_asks_for_different_opponents(players, settings, api_client_for):
    settings.RATINGS_MIN_GAMES = 1
    assert settings.RATINGS_MIN_OPPONENTS == 5
    me, *others = players(6)
    for other in others[:4]:
        assert rated(resigned_game(me, other, moves=6))
    # Four opponents: rated, but not listed, and told how many more they need.
    body = api_client_for(me).get(API).json()
    assert me.username not in [row["username"] for row in body["results"]]
    assert body["min_opponents"] == 5
    assert body["me"]["rank"] is None and body["me"]["opponents_needed"] == 1
    # The fifth: on the leaderboard.
    assert rated(resigned_game(me, others[4], moves=6))
    body = api_client_for(me).get(API).json()
    assert me.username in [row["username"] for row in body["results"]]
    assert body["me"]["rank"] is not None and body["me"]["opponents_needed"] == 0


def test_the_leaderboard_page_says_how_many_more_opponents(players, settings, client_for):
    settings.RATINGS_MIN_GAMES = 1
    me, other = players(2)
    assert rated(resigned_game(me, other, moves=6))
    html = client_for(me).get(reverse("ratings:leaderboard")).content.decode()
    assert 'id="opponents-needed"' in html and "4 more opponents to go" in html
    assert 'id="fair-play"' in html


@pytest.mark.slow
def test_a_farmed_second_account_moves_no_rating_and_buys_no_place(make_user, regulars):
    """The review's flood: 40 invite-accept-resign games through the API between a hostile
    account and its own second account. No game is rated; the leaderboard and the regular
    players' ratings are as they were."""
    hostile, alt = make_user("hostile"), make_user("alt")
    board_before = APIClient().get(API).json()
    ratings_before = dict(Rating.objects.values_list("user_id", "rating"))

    ids = farm_by_api(hostile, alt, 40)

    assert Game.objects.filter(id__in=ids, status=Game.Status.FINISHED).count() == 40
    assert not RatedGame.objects.filter(game_id__in=ids).exists()
    assert not Rating.objects.filter(user__in=[hostile, alt]).exists()
    assert APIClient().get(API).json() == board_before
    assert dict(Rating.objects.values_list("user_id", "rating")) == ratings_before
    me = api_client_for(hostile).get(API).json()["me"]
    assert me is None  # no rated game at all
    # The games stay in the history, unrated, and the admin sees the pair.
    pairs = selectors.lopsided_pairs()
    assert [(p.winner, p.loser, p.games, p.rated, p.wins) for p in pairs] == [
        (hostile, alt, 40, 0, 40)
    ]
    assert farmers_recomputed(hostile, alt)


def test_a_farmer_who_plays_a_few_moves_gets_only_the_allowed_games(make_user, regulars):
    """The farm, with three moves each before the resignation: only the pair's first 3 games
    of the day are rated, the rating is what those 3 wins give, and one opponent is not enough
    for the leaderboard."""
    hostile, alt = make_user("hostile"), make_user("alt")
    board_before = [row["username"] for row in APIClient().get(API).json()["results"]]
    games = [resigned_game(hostile, alt, moves=6) for _ in range(10)]
    assert [rated(g) for g in games] == [True] * 3 + [False] * 7

    allowed = [(skill.INITIAL_MU, skill.INITIAL_SIGMA)] * 2
    for _ in range(3):
        allowed = skill.rate(allowed, [1, 2])
    hostile_rating = Rating.objects.get(user=hostile)
    assert hostile_rating.rating == pytest.approx(skill.display(*allowed[0]))
    assert hostile_rating.opponents == 1
    assert Rating.objects.get(user=alt).rating == pytest.approx(skill.display(*allowed[1]))
    assert [row["username"] for row in APIClient().get(API).json()["results"]] == board_before
    assert farmers_recomputed(hostile, alt)


def test_recompute_applies_the_rules_to_games_rated_before_them(alice, bob, settings):
    """Games rated under the old rules (no pair limit): the recompute unrates those past the
    limit and `--fix` writes it."""
    settings.RATINGS_PAIR_GAMES_PER_DAY = 100
    games = [resigned_game(alice, bob, moves=6) for _ in range(5)]
    assert all(rated(g) for g in games)
    settings.RATINGS_PAIR_GAMES_PER_DAY = 3
    report = ratings_recompute()
    assert report.rated == 3 and report.differences["rated games"] == 2
    assert ratings_recompute(fix=True).fixed
    assert [rated(g) for g in games] == [True] * 3 + [False] * 2
    assert ratings_recompute().total == 0


def test_the_admin_lists_lopsided_pairs(make_user, client):
    hostile, alt = make_user("hostile"), make_user("alt")
    for _ in range(5):
        resigned_game(hostile, alt)
    admin = make_user("boss")
    admin.is_staff = admin.is_superuser = True
    admin.save()
    client.force_login(admin)
    html = client.get(reverse("admin:ratings_lopsided_pairs")).content.decode()
    assert '<table id="lopsided-pairs">' in html
    assert "<td>hostile</td><td>alt</td><td>5</td><td>0</td><td>5</td>" in html
    listing = client.get(reverse("admin:ratings_rating_changelist")).content.decode()
    assert reverse("admin:ratings_lopsided_pairs") in listing


def test_the_game_page_says_why_a_game_is_not_rated(alice, bob, client_for):
    short = resigned_game(alice, bob)
    html = client_for(alice).get(reverse("games:detail", args=[short.id])).content.decode()
    assert 'id="unrated-reason"' in html
    assert "resigned or abandoned before every player had made 3 moves" in html
    for _ in range(3):
        assert rated(resigned_game(alice, bob, moves=6))
    past_limit = resigned_game(alice, bob, moves=6)
    assert not rated(past_limit)
    html = client_for(bob).get(reverse("games:detail", args=[past_limit.id])).content.decode()
    assert "only 3 games a day and 10 a week between the same players" in html
    played = Game.objects.filter(rated__isnull=False).first()
    html = client_for(bob).get(reverse("games:detail", args=[played.id])).content.decode()
    assert 'id="unrated-reason"' not in html


def test_a_game_over_its_pairs_limit_leaves_no_rating_behind(alice, carol, settings):
    """A first game not rated for its pair's limit writes nothing: no rating row for players
    who have no rated game (which `ratings_recompute` would report as a difference)."""
    settings.RATINGS_PAIR_GAMES_PER_DAY = 0
    assert not rated(resigned_game(alice, carol, moves=6))
    assert not Rating.objects.exists()
    assert ratings_recompute().total == 0
