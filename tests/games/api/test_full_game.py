"""A whole game played through the API, the way two players would."""

from io import StringIO

from django.core.management import call_command

import azul
from games.models import Game, LogEntry
from tests.support.play import first_move, game_over, play_forward
from tests.support.records import walk
from tests.support.urls import games_url


def test_two_players_play_a_whole_game_through_the_api(active_game, clients):
    game = active_game
    assert game["ply"] == 1  # the first deal
    assert game["turn_deadline"] is not None
    # The game should end well before 500 moves.
    play_forward(
        game["id"], until=game_over, how="api", clients=clients, pick=first_move, limit=500
    )
    game = clients["alice"].get(games_url(game["id"])).json()

    assert game["status"] == "finished"
    assert game["legal_moves"] == [] and game["to_move"] == []
    assert game["turn_deadline"] is None

    row = Game.objects.get(pk=game["id"])
    entries = list(LogEntry.objects.filter(game=row).order_by("number"))
    assert [e.number for e in entries] == list(range(row.ply))
    assert row.ply == game["ply"] == len(entries)

    replayed = azul.replay(
        [e.data for e in entries], players=2, variant="colored", first_player=row.first_player
    )
    assert replayed.to_dict() == row.state
    outcome = azul.result(replayed)
    by_position = {p["position"]: p for p in game["players"]}
    for standing in outcome.standings:
        assert by_position[standing.player]["final_score"] == standing.score
        assert by_position[standing.player]["place"] == standing.place
        assert by_position[standing.player]["score"] == standing.score
    assert game["result"]["winners"] == outcome.winners
    assert [s["score"] for s in game["result"]["standings"]] == [s.score for s in outcome.standings]

    log = clients["carol"].get(games_url(game["id"], "log")).json()
    assert log["ply"] == row.ply and len(log["entries"]) == row.ply
    assert log["entries"][0]["kind"] == "deal" and len(log["entries"][0]["tiles"]) == 5
    assert all(key != "seed" for key, _ in walk(log))

    out = StringIO()
    call_command("check_game_logs", stdout=out)
    assert "All 1 games agree" in out.getvalue()

    # Finished: nothing more can be played.
    refused = clients["alice"].post(
        games_url(game["id"], "moves"),
        {"move": "F1 blue 1", "expected_ply": row.ply},
        format="json",
    )
    assert refused.status_code == 409
    assert "over" in refused.json()["detail"]


def test_a_three_player_gray_game_reaches_its_end(alice, bob, carol, create_game, clients):
    """The gray wall's tiling phase lets several players choose at once; the API handles it."""
    game = create_game(alice, [{"kind": "open"}, {"kind": "open"}], variant="gray")
    clients["bob"].post(games_url(game["id"], "join"))
    game = clients["carol"].post(games_url(game["id"], "join")).json()
    phases: set[str] = set()

    def over(row: Game) -> bool:
        phases.add(row.engine_state().phase)
        return game_over(row)

    play_forward(game["id"], until=over, how="api", clients=clients, pick=first_move, limit=1000)
    game = clients["alice"].get(games_url(game["id"])).json()
    saw_tiling = "tile" in phases
    assert game["status"] == "finished"
    assert saw_tiling
    assert sorted(p["place"] for p in game["players"])[0] == 1
    out = StringIO()
    call_command("check_game_logs", stdout=out)
    assert "agree" in out.getvalue()
