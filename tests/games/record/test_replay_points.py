"""The replay's points (`games:replay_points`): every point of the log as the replay page shows
it, asked once by the page's script so that stepping asks the server nothing more; up to the
game's ply and no further, seen by whoever may see the replay."""

import re

import pytest
from django.test import Client
from django.urls import reverse

from games import throttles
from games.models import Game
from tests.support.play import play_forward

pytestmark = pytest.mark.django_db


def points_url(game) -> str:
    return reverse("games:replay_points", args=[game.id])


def replay_url(game, ply: int) -> str:
    return reverse("games:replay", args=[game.id]) + f"?ply={ply}"


def point_of(page: str) -> str:
    """The point's markup on a replay page."""
    start = page.index('<div class="replay-point"')
    end = page.index('<p class="visually-hidden" id="replay-announce"')
    return page[start:end].strip()


def test_each_point_is_the_one_its_page_shows(finished_colored):
    game = finished_colored
    visitor = Client()  # finished games are public
    response = visitor.get(points_url(game))

    assert response.status_code == 200
    body = response.json()
    assert body["last_ply"] == game.ply
    assert len(body["points"]) == game.ply + 1
    for ply in (0, 1, game.ply // 2, game.ply):
        page = visitor.get(replay_url(game, ply)).content.decode()
        assert body["points"][ply].strip() == point_of(page), ply
        assert re.search(rf'<div class="replay-point" data-ply="{ply}"', body["points"][ply])
    assert "Game over." in body["points"][-1]


def test_a_game_in_progress_is_given_up_to_now_and_only_to_those_who_may_see_it(
    start_game, alice, bob, carol, client_for
):
    game = play_forward(start_game(alice, bob), moves=5)
    assert game.status == Game.Status.ACTIVE

    assert Client().get(points_url(game)).status_code == 403
    body = client_for(carol).get(points_url(game)).json()
    assert len(body["points"]) == game.ply + 1
    assert f'data-ply="{game.ply + 1}"' not in "".join(body["points"])


def test_a_game_that_has_not_started_has_no_points(alice, bob, client_for):
    from games import services

    game = services.game_create(
        creator=alice,
        num_players=2,
        variant="colored",
        days_per_move=3,
        seats=[services.SeatSpec(kind="invite", username=bob.username)],
    )
    assert client_for(alice).get(points_url(game)).status_code == 404


def test_the_replay_page_says_where_its_points_are(finished_colored):
    page = Client().get(replay_url(finished_colored, 3)).content.decode()
    assert f'data-points="{points_url(finished_colored)}"' in page


def test_the_points_travel_compressed(finished_colored):
    response = Client().get(points_url(finished_colored), HTTP_ACCEPT_ENCODING="gzip")

    assert response["Content-Encoding"] == "gzip"
    assert len(response.content) < 100_000


@pytest.mark.slow
def test_one_account_loading_replays_over_and_over_leaves_others_theirs(
    finished_colored, mallory, alice, client_for, monkeypatch
):
    """Every point at once is the costliest read: one account's loop is refused past its rate
    (and its page steps a move at a time, as without the points), another's is served."""
    monkeypatch.setattr(throttles.ReplayPointsThrottle, "rate", "3/hour", raising=False)
    game = finished_colored
    hostile = client_for(mallory)
    answers = [hostile.get(points_url(game)).status_code for _ in range(5)]
    assert answers == [200, 200, 200, 429, 429]
    refused = hostile.get(points_url(game))
    assert "a move at a time" in refused.json()["detail"] and int(refused["Retry-After"]) > 0
    assert client_for(alice).get(points_url(game)).status_code == 200
    # A visitor is counted by address, apart from the accounts.
    assert Client().get(points_url(game)).status_code == 200
