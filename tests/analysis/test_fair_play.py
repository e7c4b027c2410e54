"""Fair play for analyses: a game too short to judge is refused, the moves the server made for a
player are never judged, and one player's pending analyses are capped, so that a hostile
account with a script cannot fill the analysis queue ahead of everyone else."""

import pytest
from django.urls import reverse

import core.tasks
from analysis import services
from analysis.models import Analysis
from games import services as game_services
from games.models import Game, Seat
from games.services.moves import TIMEOUTS_BEFORE_AUTOPLAY
from tests.support.play import finish, past_ply, play_forward, play_to_end

pytestmark = pytest.mark.django_db


def api_url(game) -> str:
    return reverse("analysis_api:analysis", args=[game.pk])


@pytest.fixture
def post(django_capture_on_commit_callbacks):
    """`post(client, game)`: ask for the analysis as the API does, running what it sends on
    commit."""

    def ask(client, game):
        with django_capture_on_commit_callbacks(execute=True):
            return client.post(api_url(game))

    return ask


@pytest.fixture
def sent(monkeypatch):
    """The tasks sent, recorded rather than run: the analyses stay pending, as behind a busy
    worker."""
    calls = []

    def record(task, args, countdown=None, queue=None):
        calls.append((task, args))
        return True

    monkeypatch.setattr(core.tasks, "send", record)
    return calls


def analyses_sent(sent) -> list[str]:
    return [args[0] for task, args in sent if task == services.ANALYSE_TASK]


def test_a_game_resigned_at_once_is_too_short_to_analyse(
    alice, bob, start_game, api_client_for, sent
):
    game = start_game(alice, bob)
    game_services.game_resign(game_id=game.pk, user=alice)
    assert Game.objects.get(pk=game.pk).status == Game.Status.FINISHED

    refused = api_client_for(alice).post(api_url(game))
    assert refused.status_code == 422, refused.content
    body = refused.json()
    assert body["code"] == "too_few_moves"
    assert "too short" in body["detail"] and "0 moves" in body["detail"]
    assert not Analysis.objects.exists()
    assert analyses_sent(sent) == []


def test_the_page_says_why_too(alice, bob, start_game, client_for, sent):
    game = start_game(alice, bob)
    game_services.game_resign(game_id=game.pk, user=bob)
    response = client_for(alice).post(reverse("analysis:request", args=[game.pk]), follow=True)
    assert response.status_code == 200
    assert "too short to analyze" in response.content.decode()
    assert not Analysis.objects.exists()


def test_moves_the_server_made_for_a_player_are_never_judged(alice, bob, start_game):
    game = play_to_end(start_game(alice, bob))
    entries = services._log(game)
    moves = [ply for ply, e in enumerate(entries) if e["kind"] == "move"]
    assert services.people_moves(game, entries) == moves  # all theirs

    # Position 0 timed out three times early on: the computer took the seat from then.
    zeros = [ply for ply in moves if entries[ply]["player"] == 0]
    for ply in zeros[:TIMEOUTS_BEFORE_AUTOPLAY]:
        entries[ply]["timeout"] = True
    taken_over = zeros[TIMEOUTS_BEFORE_AUTOPLAY - 1]
    judged = services.people_moves(game, entries)
    assert not [p for p in judged if entries[p]["player"] == 0]
    ones = [ply for ply in moves if entries[ply]["player"] == 1]
    assert [p for p in judged if entries[p]["player"] == 1] == ones
    assert taken_over not in judged
    # Each of position 0's moves is the server's: its timeouts and the computer's from then.
    makers = services.move_makers(game, entries)
    assert {makers[p] for p in zeros} == {services.SERVER}
    assert {makers[p] for p in ones} == {services.PERSON}

    # Position 1 resigned halfway: the moves written after it are the computer's.
    halfway = ones[len(ones) // 2]
    Seat.objects.filter(game=game, position=1).update(resigned_at=entries[halfway]["created_at"])
    game = Game.objects.get(pk=game.pk)
    judged = services.people_moves(game, services._log(game))
    assert [p for p in judged if entries[p]["player"] == 1] == ones[: len(ones) // 2]


def test_a_resigned_players_played_out_moves_are_not_judged(
    alice, bob, start_game, api_client_for, django_capture_on_commit_callbacks
):
    game = play_forward(start_game(alice, bob), until=past_ply(40), seed=5)
    game = game_services.game_resign(game_id=game.pk, user=bob)
    assert game.status == Game.Status.FINISHED
    resigned = Seat.objects.get(game=game, user=bob)
    with django_capture_on_commit_callbacks(execute=True):
        response = api_client_for(alice).post(api_url(game))
    assert response.status_code == 202, response.content
    analysis = Analysis.objects.get(pk=game.pk)
    assert analysis.status == Analysis.Status.DONE
    entries = services._log(game)
    judged = [m for m in analysis.moves if not m.get("by_server")]
    for move in judged:
        entry = entries[move["ply"]]
        if entry["player"] == resigned.position:
            assert entry["created_at"] < resigned.resigned_at
    # Only the moves made before the resignation are judged: none of the play-out's.
    assert max(m["ply"] for m in judged) < 42
    # The play-out's moves, both seats', are listed as the server's, without a loss.
    played_out = [
        ply
        for ply, entry in enumerate(entries)
        if entry["kind"] == "move" and entry["created_at"] >= resigned.resigned_at
    ]
    assert played_out
    server = [m for m in analysis.moves if m.get("by_server")]
    assert [m["ply"] for m in server] == played_out
    assert all("loss" not in m for m in server)


def test_a_hostile_player_cannot_delay_anothers_analysis_being_queued(
    alice, bob, make_user, start_game, api_client_for, sent, settings, post
):
    settings.ANALYSIS_MAX_PENDING_PER_PLAYER = 3
    mallory, accomplice = make_user("mallory"), make_user("mallory2")
    hers = [play_to_end(start_game(mallory, accomplice), seed=i) for i in range(4)]
    client = api_client_for(mallory)
    for game in hers[:3]:
        assert post(client, game).status_code == 202
    past = post(client, hers[3])
    assert past.status_code == 429, past.content
    assert past.json()["code"] == "too_many_analyses"
    assert "3 analyses in progress" in past.json()["detail"]
    assert not Analysis.objects.filter(pk=hers[3].pk).exists()
    assert analyses_sent(sent) == [str(g.pk) for g in hers[:3]]
    # Her second account asking for the same games queues nothing more.
    assert post(api_client_for(accomplice), hers[0]).json()["status"] == "pending"
    assert len(analyses_sent(sent)) == 3

    # Alice's request is queued at once, whatever mallory has pending.
    mine = finish(start_game(alice, bob))
    response = post(api_client_for(alice), mine)
    assert response.status_code == 202, response.content
    assert analyses_sent(sent)[-1] == str(mine.pk)

    # Once one of hers is done, mallory may ask again.
    Analysis.objects.filter(pk=hers[0].pk).update(status=Analysis.Status.DONE)
    assert post(client, hers[3]).status_code == 202


def test_the_cap_counts_a_failed_analysis_asked_for_again(
    alice, bob, start_game, api_client_for, sent, settings
):
    settings.ANALYSIS_MAX_PENDING_PER_PLAYER = 1
    first, second = (play_to_end(start_game(alice, bob), seed=i) for i in range(2))
    client = api_client_for(alice)
    assert client.post(api_url(first)).status_code == 202
    Analysis.objects.create(game=second, requested_by=bob, status=Analysis.Status.FAILED)
    assert client.post(api_url(second)).status_code == 429
    assert Analysis.objects.get(pk=second.pk).status == Analysis.Status.FAILED
