"""Export a game as JSON, rebuild it with the engine alone, and import it back as a study."""

import copy
from collections import Counter

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

import azul
from games import selectors, services
from games.errors import GameError
from games.models import Game, LogEntry, Seat
from games.serializers import (
    ExportPlayerSerializer,
    GameExportSerializer,
    StudyImportedSerializer,
)
from tests.support.play import play_forward
from tests.support.records import log_of

pytestmark = pytest.mark.django_db

IMPORT_URL = "/api/games/import/"


def export_url(game) -> str:
    return f"/api/games/{game.id}/export/"


def fields(serializer_class) -> set[str]:
    return set(serializer_class().fields)


def rebuilt(export: dict) -> azul.State:
    """The game from its export, with nothing but the azul."""
    return azul.replay(
        export["entries"],
        players=len(export["players"]),
        variant=export["variant"],
        first_player=export["first_player"],
    )


@pytest.fixture
def export(finished_colored) -> dict:
    response = APIClient().get(export_url(finished_colored))  # public: no one signed in
    assert response.status_code == 200, response.json()
    return response.json()


STUDY_NAMES = ("Ada", "Grace", "Hedy", "Joan")


def as_study_file(export: dict) -> dict:
    """The export with made-up player names: a study may not name the site's players."""
    renamed = copy.deepcopy(export)
    for player, name in zip(renamed["players"], STUDY_NAMES, strict=False):
        player["name"] = name
    return renamed


def without(entry: dict, *keys: str) -> dict:
    return {key: value for key, value in entry.items() if key not in keys}


def counts() -> tuple[int, int, int]:
    return Game.objects.count(), Seat.objects.count(), LogEntry.objects.count()


def test_an_export_rebuilds_the_game_with_the_engine_alone(finished_colored, export):
    game = finished_colored
    assert set(export) == fields(GameExportSerializer)
    for player in export["players"]:
        assert set(player) == fields(ExportPlayerSerializer)
    assert export["format_version"] == 1
    assert export["variant"] == game.variant
    assert export["first_player"] == game.first_player
    assert [p["name"] for p in export["players"]] == ["alice", "bob"]
    # The log as the engine wrote it, each move saying who made it (tests/games/record/
    # test_movers.py): here, both players themselves.
    assert [without(entry, "by", "by_player") for entry in export["entries"]] == log_of(game)
    assert {(e["by"], e["by_player"]) for e in export["entries"] if e["kind"] == "move"} == {
        ("person", "alice"),
        ("person", "bob"),
    }

    state = rebuilt(export)
    assert state.phase == "over"
    final_scores = [s.final_score for s in selectors.game_get(game_id=game.id).seat_list]
    assert state.scores == final_scores
    assert [s["score"] for s in export["result"]["standings"]] == final_scores
    assert state.to_dict() == game.state


def test_the_export_is_a_file_to_download_named_after_the_game(finished_colored):
    """Issue #58: the page's "Export (JSON)" link saves a file rather than opening the JSON in
    the tab."""
    response = Client().get(export_url(finished_colored), {"format": "json"})
    assert response.status_code == 200
    assert response["Content-Disposition"] == (
        f'attachment; filename="azul-game-{finished_colored.id}.json"'
    )
    assert response.json()["format_version"] == 1


def test_a_game_in_progress_is_exported_up_to_now_to_signed_in_users(
    start_game, alice, bob, carol, api_client_for
):
    game = play_forward(start_game(alice, bob), moves=6)

    assert APIClient().get(export_url(game)).status_code == 401
    response = api_client_for(carol).get(export_url(game))
    assert response.status_code == 200
    body = response.json()
    assert body["result"] is None
    assert len(body["entries"]) == game.ply
    assert rebuilt(body).to_dict() == game.state


def test_export_then_import_gives_a_study_with_the_same_final_scores(
    finished_colored, export, alice, bob, api_client_for
):
    response = api_client_for(bob).post(IMPORT_URL, as_study_file(export), format="json")

    assert response.status_code == 201, response.json()
    body = response.json()
    assert set(body) == fields(StudyImportedSerializer)
    assert body["imported_by"] == "bob"
    study = selectors.game_get(game_id=body["id"])
    assert study.is_study and study.status == Game.Status.FINISHED
    original_scores = [
        s.final_score for s in selectors.game_get(game_id=finished_colored.id).seat_list
    ]
    assert body["scores"] == original_scores
    assert [s.final_score for s in study.seat_list] == original_scores
    assert [s.place for s in study.seat_list] == [
        s.place for s in selectors.game_get(game_id=finished_colored.id).seat_list
    ]
    # The study's seats name the players but are nobody's: it is in no one's list of games.
    assert [s.name for s in study.seat_list] == ["Ada", "Grace"]
    assert all(s.user_id is None for s in study.seat_list)
    for user in (alice, bob):
        listed = api_client_for(user).get("/api/games/").json()
        assert str(study.id) not in {g["id"] for g in listed}

    # It replays like any finished game, and exports back to the same log and result.
    page = Client().get(body["replay_url"] + f"?ply={study.ply}")
    assert page.status_code == 200
    assert page.context["point"]["state"] == finished_colored.state
    assert "study" in page.content.decode()
    assert "imported by bob" in page.content.decode()
    again = APIClient().get(body["export_url"]).json()
    # The same, but for the accounts that moved: a study's seats are nobody's.
    assert again["entries"] == [without(entry, "by_player") for entry in export["entries"]]
    assert again["result"] == export["result"]
    assert again["players"][0]["name"] == "Ada" and again["players"][0]["username"] is None
    assert again["game"]["imported_by"] == "bob"

    # The game's page shows the players' names, not open seats.
    board = api_client_for(alice).get(f"/api/games/{study.id}/").json()
    assert [p["display_name"] for p in board["players"]] == ["Ada", "Grace"]
    assert not any(p["is_open"] for p in board["players"])


def test_a_study_is_not_playable(finished_colored, export, alice, api_client_for):
    study = as_study_file(export)
    study_id = api_client_for(alice).post(IMPORT_URL, study, format="json").json()["id"]
    with pytest.raises(GameError):
        services.move_submit(game_id=study_id, user=alice, move="F1 blue 1", expected_ply=0)
    response = api_client_for(alice).post(
        f"/api/games/{study_id}/moves/", {"move": "F1 blue 1", "expected_ply": 0}, format="json"
    )
    assert response.status_code in (403, 409)


def test_importing_needs_signing_in(export):
    before = counts()
    assert APIClient().post(IMPORT_URL, export, format="json").status_code == 401
    assert counts() == before


def first_move(export: dict, after: int = 0) -> int:
    return next(i for i, e in enumerate(export["entries"]) if e["kind"] == "move" and i > after)


def tamper_move(export: dict) -> tuple[dict, int, str]:
    """A move changed to one the rules refuse there: a take from a factory already emptied."""
    bad = copy.deepcopy(export)
    index = first_move(bad, first_move(bad))  # the round's second move
    emptied = bad["entries"][first_move(bad)]["move"].split()[0]
    if emptied == "C":
        emptied = "F1"
    bad["entries"][index]["move"] = f"{emptied} blue 1"
    return bad, index, "illegal move"


def tamper_deal_count(export: dict) -> tuple[dict, int, str]:
    """The first deal with a tile moved from factory 1 to factory 2 (3 and 5 tiles)."""
    bad = copy.deepcopy(export)
    tiles = bad["entries"][0]["tiles"]
    tiles[1].append(tiles[0].pop())
    return bad, 0, "illegal deal: factory 1 must get 4 tiles, not 3"


def tamper_deal_colors(export: dict) -> tuple[dict, int, str]:
    """The second round's deal, every tile the colour the first round drew most of: the bag
    cannot hold 20 of it."""
    bad = copy.deepcopy(export)
    deals = [i for i, e in enumerate(bad["entries"]) if e["kind"] == "deal"]
    first, second = deals[0], deals[1]
    color, _ = Counter(t for f in bad["entries"][first]["tiles"] for t in f).most_common(1)[0]
    bad["entries"][second]["tiles"] = [[color] * 4 for _ in bad["entries"][second]["tiles"]]
    return bad, second, f"illegal deal: the deal draws 20 {color} tiles but the bag holds"


def missing_player(export: dict) -> tuple[dict, int, str]:
    bad = copy.deepcopy(export)
    index = first_move(bad)
    del bad["entries"][index]["player"]
    return bad, index, "a move needs 'player'"


def player_as_text(export: dict) -> tuple[dict, int, str]:
    bad = copy.deepcopy(export)
    index = first_move(bad)
    bad["entries"][index]["player"] = str(bad["entries"][index]["player"])
    return bad, index, "'player' must be a whole number from 0 to 1"


def move_as_number(export: dict) -> tuple[dict, int, str]:
    bad = copy.deepcopy(export)
    index = first_move(bad)
    bad["entries"][index]["move"] = 3
    return bad, index, "'move' must be text"


def tiles_as_text(export: dict) -> tuple[dict, int, str]:
    bad = copy.deepcopy(export)
    bad["entries"][0]["tiles"] = "blue blue red red"
    return bad, 0, "one list of color names per factory"


def not_a_move(export: dict) -> tuple[dict, int, str]:
    bad = copy.deepcopy(export)
    index = first_move(bad)
    bad["entries"][index]["move"] = "F3 purple 2"
    return bad, index, "is not a move: unknown color 'purple'"


def unknown_kind(export: dict) -> tuple[dict, int, str]:
    bad = copy.deepcopy(export)
    bad["entries"][3] = {"kind": "undo"}
    return bad, 3, "'kind' must be 'deal' or 'move'"


def entry_not_an_object(export: dict) -> tuple[dict, int, str]:
    bad = copy.deepcopy(export)
    bad["entries"][2] = "F1 blue 1"
    return bad, 2, "a log entry is an object"


def unfinished(export: dict) -> tuple[dict, int, str]:
    bad = copy.deepcopy(export)
    bad["entries"] = bad["entries"][:-3]
    bad["result"] = None
    return bad, len(bad["entries"]) - 1, "the game is not over after the last entry"


def move_after_the_end(export: dict) -> tuple[dict, int, str]:
    bad = copy.deepcopy(export)
    bad["entries"].append({"kind": "move", "player": 0, "move": "F1 blue 1"})
    return bad, len(bad["entries"]) - 1, "the game is over"


@pytest.mark.parametrize(
    "tamper",
    [
        tamper_move,
        tamper_deal_count,
        tamper_deal_colors,
        missing_player,
        player_as_text,
        move_as_number,
        tiles_as_text,
        not_a_move,
        unknown_kind,
        entry_not_an_object,
        unfinished,
        move_after_the_end,
    ],
)
def test_a_tampered_export_is_refused_naming_the_entry(export, alice, api_client_for, tamper):
    bad, index, reason = tamper(export)
    before = counts()

    response = api_client_for(alice).post(IMPORT_URL, bad, format="json")

    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid_import"
    assert body["entry"] == index
    assert body["detail"].startswith(f"entry {index}:") or body["detail"].startswith("entries:")
    assert reason in body["detail"], body["detail"]
    assert counts() == before


def test_a_changed_move_names_the_move_and_the_player(export, alice, api_client_for):
    bad, index, _ = tamper_move(export)
    player = bad["entries"][index]["player"]
    move = bad["entries"][index]["move"]

    detail = api_client_for(alice).post(IMPORT_URL, bad, format="json").json()["detail"]

    assert detail.startswith(f"entry {index}: illegal move '{move}' for player {player}: ")


@pytest.mark.parametrize(
    "change, reason",
    [
        (lambda e: e.pop("variant"), "variant: this field is required"),
        (lambda e: e.pop("entries"), "entries: this field is required"),
        (lambda e: e.update(variant="grey"), "variant: must be 'colored' or 'gray'"),
        (lambda e: e.update(format_version=2), "this site reads version 1, not 2"),
        (lambda e: e.update(first_player="0"), "first_player: must be a whole number"),
        (lambda e: e.update(first_player=5), "first_player: must be a whole number"),
        (lambda e: e.update(players=[{"name": "solo"}]), "players: a list of the 2 to 4"),
        (lambda e: e["players"][1].update(name=""), "players[1]: 'name' must be"),
        (lambda e: e.update(entries={"0": {}}), "entries: a list of the game's log entries"),
        (
            lambda e: e["result"]["standings"][0].update(
                score=e["result"]["standings"][0]["score"] + 1
            ),
            "result: the file gives player 0 a score of",
        ),
        (
            lambda e: e.update(players=[*e["players"], {"name": "Extra"}]),
            "entry 0: illegal deal: a deal lists the tiles of each of the 7 factories",
        ),
    ],
)
def test_a_malformed_export_is_refused_and_nothing_is_created(
    export, alice, api_client_for, change, reason
):
    bad = copy.deepcopy(export)
    change(bad)
    before = counts()

    response = api_client_for(alice).post(IMPORT_URL, bad, format="json")

    assert response.status_code == 400
    assert reason in response.json()["detail"], response.json()["detail"]
    assert counts() == before


@pytest.mark.parametrize("body", [[], "text", 3])
def test_a_body_that_is_not_an_object_is_refused(alice, api_client_for, body):
    response = api_client_for(alice).post(IMPORT_URL, body, format="json")

    assert response.status_code == 400
    assert "An export is a JSON object" in response.json()["detail"]


def test_an_oversized_body_is_refused_with_413(alice, api_client_for, export):
    bad = copy.deepcopy(export)
    bad["padding"] = "x" * 70_000
    response = api_client_for(alice).post(IMPORT_URL, bad, format="json")

    assert response.status_code == 413


def test_a_gray_game_with_wall_choices_round_trips(finished_gray, alice, api_client_for):
    export = APIClient().get(export_url(finished_gray)).json()
    assert any(e.get("move", "").startswith("wall") for e in export["entries"])

    response = api_client_for(alice).post(IMPORT_URL, as_study_file(export), format="json")

    assert response.status_code == 201, response.json()
    assert response.json()["scores"] == rebuilt(export).scores


def test_the_schema_describes_export_and_import(client):
    response = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    paths = response.json()["paths"]

    export = paths["/api/games/{game_id}/export/"]["get"]
    assert {"200", "401", "404"} <= set(export["responses"])
    imported = paths["/api/games/import/"]["post"]
    assert {"201", "400", "413"} <= set(imported["responses"])
    assert "requestBody" in imported
    assert reverse("games_api:import") == IMPORT_URL
