"""Creating, joining, answering invitations and cancelling games through the API."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from games import selectors
from games.models import Game, LogEntry, Seat
from games.presenters import lists
from tests.support.play import first_move, play_forward
from tests.support.records import snapshot, walk
from tests.support.urls import games_url


def test_invited_game_starts_when_the_invitation_is_accepted(alice, bob, create_game, clients):
    game = create_game(alice, [{"kind": "invite", "username": "bob"}], days_per_move=2)
    assert game["status"] == "open" and game["ply"] == 0 and game["state"] is None
    assert [p["invitation"] for p in game["players"]] == ["none", "pending"]
    assert str(lists.invitations_for_user(user=bob)[0]["id"]) == game["id"]
    # An invitee is not yet a player: bob cannot join through the lobby instead.
    joined = clients["bob"].post(games_url(game["id"], "join"))
    assert joined.status_code == 409 and "accept the invitation" in joined.json()["detail"]

    response = clients["bob"].post(
        games_url(game["id"], "invitation"), {"accept": True}, format="json"
    )
    assert response.status_code == 200
    started = response.json()
    assert started["status"] == "active" and started["ply"] == 1
    assert started["first_player"] in (0, 1) and started["to_move"] == [started["first_player"]]
    assert started["started_at"] and started["turn_deadline"]
    assert LogEntry.objects.get(game_id=game["id"]).kind == "deal"
    assert lists.invitations_for_user(user=bob) == []


def test_a_declined_seat_waits_for_the_creator_who_may_open_it(
    alice, bob, carol, create_game, clients
):
    game = create_game(alice, [{"kind": "invite", "username": "bob"}])
    response = clients["bob"].post(
        games_url(game["id"], "invitation"), {"accept": False}, format="json"
    )
    assert response.status_code == 200
    assert response.json()["status"] == "open"
    declined = response.json()["players"][1]
    assert declined["invitation"] == "declined" and not declined["is_open"]
    again = clients["bob"].post(
        games_url(game["id"], "invitation"), {"accept": True}, format="json"
    )
    assert again.status_code == 404 and "no pending invitation" in again.json()["detail"]

    # Declined is not open: not in the lobby, and nobody can take the seat from there.
    assert lists.open_games_for_lobby(user=carol) == []
    refused = clients["carol"].post(games_url(game["id"], "join"))
    assert refused.status_code == 409 and "no open seat" in refused.json()["detail"]

    opened = clients["alice"].post(games_url(game["id"], "seats", 1, "open"))
    assert opened.status_code == 200 and opened.json()["players"][1]["is_open"]
    assert [str(g["id"]) for g in lists.open_games_for_lobby(user=carol)] == [game["id"]]
    assert lists.open_games_for_lobby(user=alice) == []  # her own game
    joined = clients["carol"].post(games_url(game["id"], "join"))
    assert joined.status_code == 200 and joined.json()["status"] == "active"
    assert joined.json()["players"][1]["username"] == "carol"
    assert lists.open_games_for_lobby(user=bob) == []


def test_open_seats_fill_from_the_lobby(alice, bob, carol, create_game, clients):
    game = create_game(alice, [{"kind": "open"}, {"kind": "open"}], variant="gray")
    assert game["variant"] == "gray" and game["num_players"] == 3
    again = clients["alice"].post(games_url(game["id"], "join"))
    assert again.status_code == 409 and "already have a seat" in again.json()["detail"]
    assert clients["bob"].post(games_url(game["id"], "join")).json()["status"] == "open"
    twice = clients["bob"].post(games_url(game["id"], "join"))
    assert twice.status_code == 409
    full = clients["carol"].post(games_url(game["id"], "join")).json()
    assert full["status"] == "active"
    assert [p["username"] for p in full["players"]] == ["alice", "bob", "carol"]
    assert len(full["state"]["factories"]) == 7


def test_joining_a_full_or_started_game_is_refused(make_user, alice, bob, create_game, clients):
    game = create_game(alice, [{"kind": "open"}])
    clients["bob"].post(games_url(game["id"], "join"))
    response = clients["carol"].post(games_url(game["id"], "join"))
    assert response.status_code == 409
    assert "not waiting for players" in response.json()["detail"]


@pytest.mark.parametrize(
    "body, words",
    [
        ({"players": 2, "seats": [{"kind": "invite", "username": "nobody"}]}, "no player called"),
        ({"players": 2, "seats": [{"kind": "invite", "username": "alice"}]}, "invite yourself"),
        (
            {"players": 3, "seats": [{"kind": "invite", "username": "bob"}] * 2},
            "already invited",
        ),
        ({"players": 3, "seats": [{"kind": "open"}]}, "needs 2 other seats"),
        ({"players": 2, "seats": []}, "needs 1 other seat"),
        ({"players": 5, "seats": [{"kind": "open"}] * 4}, 'players: "5" is not a valid choice'),
        ({"players": 2, "seats": [{"kind": "robot"}]}, "seats.0.kind"),
        ({"players": 2, "seats": [{"kind": "invite"}]}, "Name the player to invite"),
        ({"players": 2, "seats": [{"kind": "computer", "level": "god"}]}, "seats.0.level"),
        ({"players": 2, "days_per_move": 4, "seats": [{"kind": "open"}]}, "days_per_move"),
        ({"players": 2, "variant": "pink", "seats": [{"kind": "open"}]}, "variant"),
        ({"seats": [{"kind": "open"}]}, "players: This field is required"),
    ],
)
def test_create_validation_errors_are_clear(alice, bob, clients, body, words):
    response = clients["alice"].post(games_url(), body, format="json")
    assert response.status_code == 400, response.json()
    assert words in response.json()["detail"], response.json()
    assert not Game.objects.exists()


def test_creator_cancels_before_the_start(alice, bob, create_game, clients):
    game = create_game(alice, [{"kind": "invite", "username": "bob"}])
    refused = clients["bob"].post(games_url(game["id"], "cancel"))
    assert refused.status_code == 403 and "Only the player who created" in refused.json()["detail"]
    response = clients["alice"].post(games_url(game["id"], "cancel"))
    assert response.status_code == 200 and response.json()["status"] == "aborted"
    late = clients["bob"].post(games_url(game["id"], "invitation"), {"accept": True}, format="json")
    assert late.status_code == 409
    assert Game.objects.get(pk=game["id"]).status == "aborted"


def test_a_started_game_cannot_be_cancelled(active_game, clients):
    before = snapshot(active_game["id"])
    response = clients["alice"].post(games_url(active_game["id"], "cancel"))
    assert response.status_code == 409 and "not started yet" in response.json()["detail"]
    assert snapshot(active_game["id"]) == before


def test_no_moves_before_the_start(alice, bob, create_game, clients):
    game = create_game(alice, [{"kind": "open"}])
    response = clients["alice"].post(
        games_url(game["id"], "moves"), {"move": "F1 blue 1", "expected_ply": 0}, format="json"
    )
    assert response.status_code == 409 and "no moves yet" in response.json()["detail"]


def test_computer_opponent_moves_by_itself(
    alice, create_game, clients, django_capture_on_commit_callbacks
):
    """Tasks run in-process (eager) after commit: the computer answers at once."""
    with django_capture_on_commit_callbacks(execute=True):
        game = create_game(alice, [{"kind": "computer", "level": "random"}])
    game = clients["alice"].get(games_url(game["id"])).json()
    assert game["status"] == "active"
    assert game["to_move"] == [0], "after the computer's turn, it is alice's"
    assert game["players"][1]["kind"] == "computer"
    for _ in range(6):
        with django_capture_on_commit_callbacks(execute=True):
            play_forward(game["id"], moves=1, how="api", clients=clients, pick=first_move)
        game = clients["alice"].get(games_url(game["id"])).json()
        assert game["to_move"] == [0] or game["status"] == "finished"
    moves = [e for e in clients["carol"].get(games_url(game["id"], "log")).json()["entries"]]
    assert any(e["kind"] == "move" and e["player"] == 1 for e in moves)
    call_command("check_game_logs", stdout=StringIO())


def test_a_retried_computer_task_does_nothing(
    alice, create_game, django_capture_on_commit_callbacks
):
    from games.services import computer_move_play

    with django_capture_on_commit_callbacks(execute=True):
        game = create_game(alice, [{"kind": "computer"}])
    row = Game.objects.get(pk=game["id"])
    before = snapshot(row.id)
    for ply in range(row.ply + 2):
        assert computer_move_play(game_id=row.id, expected_ply=ply) is None
    assert snapshot(row.id) == before


def test_responses_hold_no_seed_and_the_bag_only_as_counts(active_game, clients):
    for url in (
        games_url(active_game["id"]),
        games_url(active_game["id"], "log"),
        games_url(active_game["id"], "legal-moves"),
        games_url(),
    ):
        body = clients["carol"].get(url).json()
        # The deals' seed is named (`deals.seed`), and empty until the game is over.
        assert all(value is None for key, value in walk(body) if "seed" in str(key).lower()), url
        assert all(key not in ("rng", "random_state") for key, _ in walk(body)), url
    state = clients["carol"].get(games_url(active_game["id"])).json()["state"]
    assert set(state["bag"]) == {"blue", "yellow", "red", "black", "white"}
    assert all(isinstance(n, int) for n in state["bag"].values())
    assert sum(state["bag"].values()) == 100 - 20


def test_watchers_see_the_game_but_no_legal_moves(active_game, clients):
    view = clients["carol"].get(games_url(active_game["id"])).json()
    assert view["viewer_seat"] is None and view["legal_moves"] == []
    assert not view["viewer_can_move"]
    assert not any(p["is_viewer"] for p in view["players"])
    legal = clients["carol"].get(games_url(active_game["id"], "legal-moves")).json()
    assert legal["legal_moves"] == []


def test_my_games_lists_and_filters(active_game, alice, carol, clients, create_game):
    create_game(alice, [{"kind": "open"}])
    mine = clients["alice"].get(games_url()).json()
    assert {g["status"] for g in mine} == {"active", "open"}
    only_open = clients["alice"].get(games_url(), {"status": "open"}).json()
    assert [g["status"] for g in only_open] == ["open"]
    bad = clients["alice"].get(games_url(), {"status": "sleeping"})
    assert bad.status_code == 400 and "status" in bad.json()["detail"]
    assert clients["carol"].get(games_url()).json() == []
    turns = lists.games_for_user(user=alice)
    all_listed = turns["my_turn"] + turns["waiting"]
    assert all(g["is_my_turn"] for g in turns["my_turn"])
    assert len(all_listed) == 2


def test_check_game_logs_detects_a_tampered_cache(active_game, clients):
    play_forward(active_game["id"], moves=1, how="api", clients=clients, pick=first_move)
    call_command("check_game_logs", stdout=StringIO())
    game = Game.objects.get(pk=active_game["id"])
    state = dict(game.state)
    state["boards"] = [dict(b) for b in state["boards"]]
    state["boards"][0]["score"] += 5
    Game.objects.filter(pk=game.pk).update(state=state)
    err = StringIO()
    with pytest.raises(CommandError, match="1 of 1 games disagree"):
        call_command("check_game_logs", stdout=StringIO(), stderr=err)
    assert str(game.id) in err.getvalue()
    assert "differs from the replayed log" in err.getvalue()


def test_log_entries_are_never_rewritten(active_game):
    entry = LogEntry.objects.filter(game_id=active_game["id"]).first()
    entry.data = {"kind": "deal", "tiles": []}
    with pytest.raises(ValueError, match="never rewritten"):
        entry.save()


def test_seat_states(alice, bob, create_game):
    game = create_game(alice, [{"kind": "invite", "username": "bob"}, {"kind": "computer"}])
    seats = list(Seat.objects.filter(game_id=game["id"]).order_by("position"))
    assert [s.is_filled for s in seats] == [True, False, True]


@pytest.mark.parametrize("level", ["random", "greedy"])
def test_computer_levels_play_legal_moves(
    alice, create_game, clients, django_capture_on_commit_callbacks, level
):
    with django_capture_on_commit_callbacks(execute=True):
        game = create_game(alice, [{"kind": "computer", "level": level}])
    for _ in range(3):
        game = clients["alice"].get(games_url(game["id"])).json()
        assert game["to_move"] == [0]
        assert game["players"][1]["bot_level"] == level
        with django_capture_on_commit_callbacks(execute=True):
            play_forward(game["id"], moves=1, how="api", clients=clients, pick=first_move)
    call_command("check_game_logs", stdout=StringIO())


def test_a_computer_task_delivered_twice_plays_one_move(
    alice, create_game, django_capture_on_commit_callbacks
):
    """Celery may deliver a task twice (acks_late): the second run finds the ply moved on."""
    from games import services

    with django_capture_on_commit_callbacks(execute=False):
        game = create_game(alice, [{"kind": "computer", "level": "greedy"}])
        row = Game.objects.get(pk=game["id"])
        if row.state["current"] == 0:  # alice starts: she moves, the computer's task waits
            legal = selectors.legal_moves_for(game=selectors.game_get(game_id=row.id), viewer=alice)
            services.move_submit(game_id=row.id, user=alice, move=legal[0], expected_ply=row.ply)
    row = Game.objects.get(pk=game["id"])
    ply = row.ply

    assert services.computer_move_play(game_id=row.id, expected_ply=ply) is not None
    assert services.computer_move_play(game_id=row.id, expected_ply=ply) is None

    computer_moves = LogEntry.objects.filter(game=row, kind="move", player=1, number__gte=ply)
    assert computer_moves.count() == 1


def test_computer_seats_offer_exactly_the_engines_levels():
    from azul.ai.bots import LEVELS

    assert set(Seat.BotLevel.values) == set(LEVELS)
