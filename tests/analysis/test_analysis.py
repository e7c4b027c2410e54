"""Post-game analysis: asked for by a player of a finished game, computed once by a task, kept,
and shown on the game's page and on the replay's positions."""

import re

import pytest
from django.conf import settings as django_settings
from django.urls import reverse
from django.utils import translation
from django.utils.html import escape

from analysis import services, tasks
from analysis.models import Analysis
from games.models import Game, LogEntry

pytestmark = pytest.mark.django_db


def api_url(game) -> str:
    return reverse("analysis_api:analysis", args=[game.pk])


@pytest.fixture
def ask(django_capture_on_commit_callbacks):
    """`ask(client, game)`: POST the request as a page would, running what it sends on commit
    (in-process tasks, as without a broker)."""

    def post(client, game, url=None):
        with django_capture_on_commit_callbacks(execute=True):
            return client.post(url or api_url(game))

    return post


def human_moves(game) -> list[int]:
    return list(
        LogEntry.objects.filter(game=game, kind="move")
        .order_by("number")
        .values_list("number", flat=True)
    )


def test_a_player_asks_and_every_move_with_a_choice_is_judged(
    finished_colored, alice, api_client_for, ask
):
    response = ask(api_client_for(alice), finished_colored)
    # In-process tasks: the analysis ran when it was asked for, after the request's commit.
    assert response.status_code == 202, response.content
    analysis = Analysis.objects.get(pk=finished_colored.pk)
    assert analysis.status == Analysis.Status.DONE
    judged = [m["ply"] for m in analysis.moves]
    assert judged == sorted(judged)
    assert set(judged) <= set(human_moves(finished_colored))
    # Only a move made with a single legal choice is left out; nearly all are judged.
    assert len(judged) >= 0.8 * len(human_moves(finished_colored))
    for move in analysis.moves:
        assert move["loss"] >= 0
        assert (move["loss"] == 0) or move["played"] != move["best"]
    view = api_client_for(alice).get(api_url(finished_colored)).json()
    assert view["status"] == "done"
    assert view["players"][0]["is_viewer"] is True
    for player in view["players"]:
        costly = [m for m in player["moves"] if m["costly"]]
        assert len(costly) <= 3
        worst = sorted((m["loss"] for m in player["moves"]), reverse=True)[: len(costly)]
        assert sorted((m["loss"] for m in costly), reverse=True) == worst


def test_asked_twice_it_is_computed_once(
    finished_colored, alice, bob, api_client_for, monkeypatch, ask
):
    ask(api_client_for(alice), finished_colored)
    first = Analysis.objects.get(pk=finished_colored.pk)
    calls = []
    monkeypatch.setattr(services, "judged_moves", lambda game: calls.append(game) or ([], 0.0))
    again = ask(api_client_for(bob), finished_colored)
    assert again.status_code == 200
    tasks.analyse_game(str(finished_colored.pk))  # the task run twice: nothing to do
    assert calls == []
    assert Analysis.objects.get(pk=finished_colored.pk).moves == first.moves


def test_only_players_of_a_finished_game_may_ask(
    finished_colored, carol, api_client_for, start_game, alice, bob
):
    refused = api_client_for(carol).post(api_url(finished_colored))
    assert refused.status_code == 403
    assert "players" in refused.json()["detail"]
    in_play = start_game(alice, bob)
    conflict = api_client_for(alice).post(api_url(in_play))
    assert conflict.status_code == 409
    assert "finished" in conflict.json()["detail"]
    unknown = api_client_for(alice).post("/api/games/not-a-game/analysis/")
    assert unknown.status_code == 404
    assert not Analysis.objects.exists()


def test_a_failed_analysis_can_be_asked_for_again(
    finished_colored, alice, api_client_for, monkeypatch, ask
):
    def broken(game):
        raise RuntimeError("search crashed")

    monkeypatch.setattr(services, "judged_moves", broken)
    # In-process, the task's error is logged by `send` and the request still succeeds.
    ask(api_client_for(alice), finished_colored)
    assert Analysis.objects.get(pk=finished_colored.pk).status == Analysis.Status.FAILED
    monkeypatch.undo()
    ask(api_client_for(alice), finished_colored)
    assert Analysis.objects.get(pk=finished_colored.pk).status == Analysis.Status.DONE


def test_the_game_page_and_the_replay_show_it(finished_colored, alice, client_for, ask):
    client = client_for(alice)
    page = client.get(reverse("games:detail", args=[finished_colored.pk])).content.decode()
    assert (
        'id="analysis"' in page and reverse("analysis:request", args=[finished_colored.pk]) in page
    )
    response = ask(
        client, finished_colored, reverse("analysis:request", args=[finished_colored.pk])
    )
    assert response.status_code == 302
    page = client.get(reverse("games:detail", args=[finished_colored.pk])).content.decode()
    analysis = Analysis.objects.get(pk=finished_colored.pk)
    assert 'class="analysis-moves"' in page
    costly = [m for m in analysis.moves if m["position"] == 0 and m["loss"] > 0]
    if costly:
        worst = max(costly, key=lambda m: m["loss"])
        assert f"<code>{worst['best']}</code>" in page
        replay = client.get(
            reverse("games:replay", args=[finished_colored.pk]), {"ply": worst["ply"]}
        ).content.decode()
        assert f'data-suggest="{worst["best"]}"' in replay


def test_the_queue_of_its_own():
    from django.conf import settings

    assert settings.CELERY_TASK_ROUTES[services.ANALYSE_TASK] == {"queue": services.ANALYSIS_QUEUE}
    assert services.ANALYSIS_QUEUE != "celery"


def test_the_budget_is_shared_within_bounds(settings):
    settings.ANALYSIS_SECONDS_PER_GAME = 60
    settings.ANALYSIS_MIN_SECONDS_PER_MOVE = 0.1
    settings.ANALYSIS_MAX_SECONDS_PER_MOVE = 2
    assert services.seconds_per_position(0) == 0
    assert services.seconds_per_position(10) == 2
    assert services.seconds_per_position(60) == 1
    assert services.seconds_per_position(1000) == 0.1


def test_a_lost_task_is_sent_again(finished_colored, alice, monkeypatch):
    from datetime import timedelta

    from django.utils import timezone

    sent = []
    monkeypatch.setattr(services, "send", lambda task, args: sent.append((task, args)))
    Analysis.objects.create(game=finished_colored, requested_by=alice)
    assert services.analyses_resend() == 0
    Analysis.objects.update(requested_at=timezone.now() - timedelta(hours=1))
    assert services.analyses_resend() == 1
    assert sent == [(services.ANALYSE_TASK, [str(finished_colored.pk)])]


def test_games_in_progress_have_no_panel(start_game, alice, bob, client_for):
    game = start_game(alice, bob)
    assert game.status == Game.Status.ACTIVE
    page = client_for(alice).get(reverse("games:detail", args=[game.pk])).content.decode()
    assert 'id="analysis"' not in page


def test_the_panel_reads_the_analysis_once_until_it_changes(
    finished_colored, alice, carol, client_for, ask, django_assert_num_queries
):
    """The game's page tells the panel what it shows already (the seats' names, the viewer's
    seat): the panel reads only the analysis, and keeps it until a write changes it."""
    url = reverse("games:detail", args=[finished_colored.pk])
    # The signed-in user and the game's version; a seated player's private note and next game
    # (the board's "Next game" link) besides.
    for viewer, queries in ((alice, 4), (carol, 2)):
        client = client_for(viewer)
        client.get(url)
        with django_assert_num_queries(queries):
            assert 'id="analysis"' in client.get(url).content.decode()
    ask(client_for(alice), finished_colored)
    assert 'class="analysis-moves"' in client_for(carol).get(url).content.decode()


def test_the_kept_panel_is_each_viewers_own(finished_colored, alice, carol, client_for):
    """The panel is kept as rendered per seat and language: a visitor never gets a player's
    request form, a Korean page never the English panel, and the form carries the request's
    own CSRF token (the kept markup has a hole for it)."""
    url = reverse("games:detail", args=[finished_colored.pk])
    request_url = reverse("analysis:request", args=[finished_colored.pk])
    player = client_for(alice)
    for _ in range(2):  # rendered, then read from the cache
        page = player.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
        assert "Analyze this game" in page and "\x00" not in page
        form = re.search(
            rf'action="{re.escape(request_url)}">\s*'
            r'<input type="hidden" name="csrfmiddlewaretoken" value="([^"]+)"',
            page,
        )
        assert form is not None
        assert _csrf_secret(form.group(1)) == _csrf_secret(player.cookies["csrftoken"].value)
    korean = player.get(url, HTTP_ACCEPT_LANGUAGE="ko").content.decode()
    assert "이 게임 분석하기" in korean and "Analyze this game" not in korean
    visitor = client_for(carol).get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'id="analysis"' in visitor and f'action="{request_url}"' not in visitor


def _csrf_secret(token: str) -> str:
    from django.middleware.csrf import _unmask_cipher_token

    return _unmask_cipher_token(token) if len(token) == 64 else token


LOSS_MEANING = (
    "Loss: how many points of final score margin (a player's final score minus the best"
    " opponent's) a move gave up against the best move the computer found."
)


def test_the_page_gives_losses_in_points_and_says_what_they_mean(
    finished_colored, alice, client_for, ask
):
    client = client_for(alice)
    url = reverse("games:detail", args=[finished_colored.pk])
    ask(client, finished_colored, reverse("analysis:request", args=[finished_colored.pk]))
    analysis = Analysis.objects.get(pk=finished_colored.pk)
    assert all(move["loss"] >= 0 for move in analysis.moves)
    page = client.get(url).content.decode()
    assert LOSS_MEANING in page
    # The Loss column shows the points given up, never a negative number.
    cells = re.findall(r'<td class="num">(-|−)?([0-9.]+)', page)
    assert cells and not [sign for sign, _ in cells if sign]
    client.cookies[django_settings.LANGUAGE_COOKIE_NAME] = "ko"
    korean = client.get(url).content.decode()
    assert "손실: 컴퓨터가 찾은 최선의 수에 비해" in korean and LOSS_MEANING not in korean
    view = client.get(api_url(finished_colored)).json()
    for player in view["players"]:
        losses = [m["loss"] for m in player["moves"]]
        assert player["total_loss"] == pytest.approx(round(sum(losses), 1))
        # What the page shows instead of the sum (issue #58): the average loss per move and
        # the share of moves within a point of the best.
        assert player["average_loss"] == pytest.approx(round(sum(losses) / len(losses), 1))
        close = len([loss for loss in losses if loss <= 1.0])
        assert player["close_to_best"] == close
        assert player["close_to_best_percent"] == round(100 * close / len(losses))
    client.cookies[django_settings.LANGUAGE_COOKIE_NAME] = "en"
    page = client.get(url).content.decode()
    mine = next(p for p in view["players"] if p["is_viewer"])
    assert "points lost in all" not in page
    assert (
        f"{mine['close_to_best']} of {mine['judged_count']} moves within a point of the best"
        f" ({mine['close_to_best_percent']}%)"
    ) in page
    assert f"Average loss: <strong>{mine['average_loss']}</strong> points per move" in page


def test_moves_the_server_made_are_listed_as_its_own_without_a_loss(
    finished_colored, alice, client_for, api_client_for, ask
):
    """Two of alice's moves were made by the server when her time ran out: they are not
    judged, and the analysis lists them as the server's, without a loss."""
    entries = LogEntry.objects.filter(game=finished_colored, kind="move", player=0)
    timed_out = list(entries.order_by("number")[2:4])
    for entry in timed_out:
        LogEntry.objects.filter(pk=entry.pk).update(data={**entry.data, "timeout": True})
    plies = {entry.number for entry in timed_out}
    ask(
        client_for(alice), finished_colored, reverse("analysis:request", args=[finished_colored.pk])
    )
    analysis = Analysis.objects.get(pk=finished_colored.pk)
    server = [m for m in analysis.moves if m.get("by_server")]
    assert {m["ply"] for m in server} == plies
    assert all("loss" not in m and "best" not in m and m["position"] == 0 for m in server)
    judged = [m for m in analysis.moves if not m.get("by_server")]
    assert not plies & {m["ply"] for m in judged}

    view = api_client_for(alice).get(api_url(finished_colored)).json()
    [mine] = [p for p in view["players"] if p["position"] == 0]
    listed = [m for m in mine["moves"] if m["by_server"]]
    assert [(m["ply"], m["loss"], m["best"], m["costly"]) for m in listed] == [
        (ply, None, None, False) for ply in sorted(plies)
    ]
    assert mine["by_server_count"] == 2
    assert mine["judged_count"] == len([m for m in judged if m["position"] == 0])
    assert mine["total_loss"] == pytest.approx(
        round(sum(m["loss"] for m in judged if m["position"] == 0), 1)
    )

    page = client_for(alice).get(reverse("games:detail", args=[finished_colored.pk]))
    html = page.content.decode()
    assert html.count("Played by the server, not judged") == 2
    assert "2 moves played by the server" in html
    # The replay judges no move the server made.
    replay = client_for(alice).get(
        reverse("games:replay", args=[finished_colored.pk]), {"ply": min(plies)}
    )
    assert "judged-move" not in replay.content.decode()


def test_the_moves_are_named_in_the_pages_language(finished_colored, alice, client_for, ask):
    """Issue #58: the analysis names the moves as the move list does, in Korean words on a
    Korean page ("공장1 노랑 → 3번 줄"), while the API keeps the notation."""
    from games.presenters.moves import move_text

    client = client_for(alice)
    url = reverse("games:detail", args=[finished_colored.pk])
    ask(client, finished_colored, reverse("analysis:request", args=[finished_colored.pk]))
    played = [m["played"] for m in Analysis.objects.get(pk=finished_colored.pk).moves]
    english = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert f"<code>{played[0]}</code>" in english
    client.cookies[django_settings.LANGUAGE_COOKIE_NAME] = "ko"
    korean = client.get(url).content.decode()
    with translation.override("ko"):
        words = move_text(played[0])
    assert words != played[0] and f"<code>{escape(words)}</code>" in korean
    assert f"<code>{played[0]}</code>" not in korean
    assert (
        client.get(api_url(finished_colored)).json()["players"][0]["moves"][0]["played"] in played
    )
