"""The replay page: the board at any point of a game's log, stepped through by links (and the
arrow keys), public once the game is finished."""

import re

import pytest
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

import azul
from games.models import Game
from games.record import summary
from tests.support.play import play_forward
from tests.support.records import log_of, replayed

pytestmark = pytest.mark.django_db

REPLAY_BUDGET = 3
"""Queries of a replay page of a finished game for a visitor who is not signed in, once the
game's replay is in the cache: the game, its seats with their players, and its analysis (the
note on the move played from the position shown, `analysis.panels.replay_position_panel`)."""


def replay_url(game, ply=None) -> str:
    url = reverse("games:replay", args=[game.id])
    return url if ply is None else f"{url}?ply={ply}"


@pytest.mark.slow
@pytest.mark.parametrize("recorded", ["finished_colored", "finished_gray"])
def test_every_point_of_the_replay_is_the_engine_state_after_that_entry(recorded, request):
    game = request.getfixturevalue(recorded)
    entries = log_of(game)
    assert len(entries) == game.ply
    visitor = Client()  # finished games are public: no one signed in

    for ply in range(game.ply + 1):
        response = visitor.get(replay_url(game, ply))
        assert response.status_code == 200, ply
        expected = replayed(game, entries[:ply]).to_dict()
        assert response.context["point"]["state"] == expected, ply
        assert response.context["ply"] == ply
        content = response.content.decode()
        assert f'data-ply="{ply}"' in content
        # The board shows each player's score at that point.
        for board, player in zip(
            expected["boards"],
            sorted(response.context["board"]["boards"], key=lambda b: b["position"]),
            strict=True,
        ):
            assert player["score"] == board["score"]

    final = replayed(game, entries)
    assert final.phase == "over"
    assert final.scores == [s.final_score for s in game.seat_list]


def test_the_page_steps_with_links_and_arrow_keys(finished_colored):
    game = finished_colored
    visitor = Client()
    middle = game.ply // 2

    content = visitor.get(replay_url(game, middle)).content.decode()
    assert re.search(
        rf'id="replay-prev" rel="prev" href="\?ply={middle - 1}" data-key="ArrowLeft"', content
    )
    assert re.search(
        rf'id="replay-next" rel="next" href="\?ply={middle + 1}" data-key="ArrowRight"', content
    )
    assert 'data-key="Home"' in content and 'data-key="End"' in content
    assert f'href="?ply={game.ply}"' in content
    assert "games/replay.js" in content
    assert 'aria-current="step"' in content
    # Every entry of the move list links to the point just after it.
    for ply in range(1, game.ply + 1):
        assert f'<a href="?ply={ply}"' in content

    start = visitor.get(replay_url(game)).content.decode()
    assert 'id="replay-prev"' not in start and 'id="replay-next" rel="next" href="?ply=1"' in start
    end = visitor.get(replay_url(game, game.ply)).content.decode()
    assert 'id="replay-next"' not in end and f'href="?ply={game.ply - 1}"' in end
    assert "Game over." in end


@pytest.mark.parametrize("bad", ["abc", "-1", "1.5", "٣", "99999999999999"])
def test_a_bad_ply_is_a_400_saying_what_is_allowed(finished_colored, bad):
    response = Client().get(replay_url(finished_colored), {"ply": bad})

    assert response.status_code == 400
    assert f"from 0 to {finished_colored.ply}" in response.content.decode()


def test_a_ply_past_the_end_is_a_400_not_another_point(finished_colored):
    game = finished_colored
    response = Client().get(replay_url(game, game.ply + 1))

    assert response.status_code == 400
    assert f"this game&#x27;s log has {game.ply} entries" in response.content.decode()
    assert Client().get(replay_url(game, game.ply)).status_code == 200


def test_finished_games_are_public_and_games_in_progress_are_for_signed_in_users(
    start_game, finished_colored, alice, bob, carol, client_for
):
    assert Client().get(replay_url(finished_colored)).status_code == 200

    ongoing = play_forward(start_game(alice, bob), moves=5)
    assert ongoing.status == Game.Status.ACTIVE
    response = Client().get(replay_url(ongoing, 2))
    assert response.status_code == 302
    assert reverse("account_login") in response["Location"]

    # A watcher sees it up to now, as on the board page.
    response = client_for(carol).get(replay_url(ongoing, ongoing.ply))
    assert response.status_code == 200
    assert response.context["last_ply"] == ongoing.ply
    assert "in progress: up to now" in response.content.decode()
    assert client_for(carol).get(replay_url(ongoing, ongoing.ply + 1)).status_code == 400


def test_a_game_that_has_not_started_has_nothing_to_replay(alice, bob, client_for):
    from games import services

    game = services.game_create(
        creator=alice,
        num_players=2,
        variant="colored",
        days_per_move=3,
        seats=[services.SeatSpec(kind="invite", username=bob.username)],
    )
    response = client_for(alice).get(replay_url(game))

    assert response.status_code == 404


def test_queries_do_not_grow_with_the_ply(finished_colored, django_assert_max_num_queries):
    game = finished_colored
    visitor = Client()
    points = (0, 1, game.ply // 2, game.ply)

    def count(ply: int) -> int:
        with CaptureQueriesContext(connection) as queries:
            assert visitor.get(replay_url(game, ply)).status_code == 200
        return len(queries)

    cold = set()
    for ply in points:
        cache.clear()
        cold.add(count(ply))
    assert cold == {REPLAY_BUDGET + 1}  # + the log, read once to build the replay

    for ply in points:
        with django_assert_max_num_queries(REPLAY_BUDGET):
            visitor.get(replay_url(game, ply))
    assert {count(ply) for ply in points} == {REPLAY_BUDGET}


def test_the_engine_replays_at_most_one_round_for_any_ply(finished_colored, monkeypatch):
    game = finished_colored
    entries = log_of(game)
    deals = [i for i, e in enumerate(entries) if e["kind"] == "deal"] + [len(entries)]
    longest_round = max(b - a for a, b in zip(deals, deals[1:], strict=False))
    visitor = Client()
    visitor.get(replay_url(game))  # the cache is warm from here on

    applied = []
    parsed = []
    real_apply, real_from_dict = azul.apply_entry, azul.State.from_dict
    monkeypatch.setattr(azul, "apply_entry", lambda s, e: applied.append(e) or real_apply(s, e))
    monkeypatch.setattr(
        azul.State, "from_dict", lambda data: parsed.append(1) or real_from_dict(data)
    )

    per_ply = {}
    for ply in range(game.ply + 1):
        applied.clear()
        parsed.clear()
        assert visitor.get(replay_url(game, ply)).status_code == 200
        per_ply[ply] = len(applied)
        assert len(parsed) <= 2  # the round's start, and the final state for the result
    assert max(per_ply.values()) <= longest_round
    assert per_ply[game.ply] <= longest_round < game.ply // 2


def test_the_move_list_shows_each_round_scoring_and_the_chart_every_round(finished_colored):
    game = finished_colored
    response = Client().get(replay_url(game, game.ply))
    context = response.context
    content = response.content.decode()

    rounds = context["rounds"]
    final_state = replayed(game, log_of(game))
    assert len(rounds) == final_state.round
    for number, scoring in enumerate(rounds, 1):
        assert f"Round {number} wall tiling" in content
        assert scoring["round"] == number
    # Every point a move earned is shown once, beside the move that earned it.
    earned = sum(row.get("earned_total", 0) for row in context["rows"])
    tiled = sum(p["line_points"] for r in rounds for p in r["players"])
    assert earned == tiled > 0

    chart = context["chart"]
    assert content.count("<polyline") == game.num_players
    for series in chart["series"]:
        assert len(series["points"].split()) == len(rounds) + 1
        assert series["final"] == final_state.scores[series["position"]]
    assert '<svg viewBox="0 0 480 200"' in content


def test_the_replay_summary_is_built_once_per_game_and_ply(finished_colored, monkeypatch):
    game = finished_colored
    built = []
    real = summary._summarize
    monkeypatch.setattr(summary, "_summarize", lambda *a: built.append(1) or real(*a))
    visitor = Client()

    for ply in (0, 5, game.ply):
        visitor.get(replay_url(game, ply))

    assert built == [1]


def test_the_board_page_links_to_the_replay(finished_colored, start_game, alice, bob, client_for):
    client = client_for(alice)
    finished = client.get(reverse("games:detail", args=[finished_colored.id])).content.decode()
    assert f'href="{replay_url(finished_colored)}">Replay</a>' in finished

    ongoing = start_game(alice, bob)
    content = client.get(reverse("games:detail", args=[ongoing.id])).content.decode()
    assert f'href="{replay_url(ongoing)}">Replay so far</a>' in content


def test_queries_do_not_grow_with_the_ply_for_a_watcher_of_a_game_in_progress(
    start_game, alice, bob, carol, client_for
):
    ongoing = play_forward(start_game(alice, bob), moves=30)
    assert ongoing.status == Game.Status.ACTIVE
    watcher = client_for(carol)

    def count(ply: int, cold: bool) -> int:
        if cold:
            cache.clear()
        with CaptureQueriesContext(connection) as queries:
            assert watcher.get(replay_url(ongoing, ply)).status_code == 200
        return len(queries)

    points = (0, ongoing.ply // 2, ongoing.ply)
    assert len({count(ply, cold=True) for ply in points}) == 1
    assert len({count(ply, cold=False) for ply in points}) == 1
