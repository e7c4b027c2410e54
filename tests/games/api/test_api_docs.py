"""The OpenAPI schema describes the game API, and Swagger UI is served without a CDN."""

import pytest

pytestmark = pytest.mark.django_db


def test_schema_lists_the_game_endpoints(client):
    response = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    paths = response.json()["paths"]
    for path in (
        "/api/games/",
        "/api/games/{game_id}/",
        "/api/games/{game_id}/legal-moves/",
        "/api/games/{game_id}/log/",
        "/api/games/{game_id}/moves/",
        "/api/games/{game_id}/join/",
        "/api/games/{game_id}/invitation/",
        "/api/games/{game_id}/cancel/",
    ):
        assert path in paths, path
    moves = paths["/api/games/{game_id}/moves/"]["post"]
    assert {"201", "400", "403", "404", "409", "413"} <= set(moves["responses"])


def test_swagger_ui_uses_our_own_static_files(client):
    response = client.get("/api/docs/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "swagger-ui" in page
    assert "cdn." not in page and "jsdelivr" not in page and "unpkg" not in page
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/" in page


# What Schemathesis found the schema did not say (tests/azul_site/test_api_schemathesis.py).


def api_schema(client) -> dict:
    return client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()


def test_reading_the_games_needs_no_sign_in_in_the_schema_but_creating_one_does(client):
    games = api_schema(client)["paths"]["/api/games/"]
    # The history of finished games is public (`HistoryOrSignedIn`).
    assert {} in games["get"]["security"]
    assert {} not in games["post"]["security"]
    assert {"tokenAuth": []} in games["post"]["security"]


def test_names_and_moves_are_not_empty_in_the_schema(client):
    components = api_schema(client)["components"]["schemas"]
    assert components["SeatInviteInput"]["properties"]["username"]["minLength"] == 1
    assert components["SeatInput"]["properties"]["username"]["minLength"] == 1
    assert components["MoveInput"]["properties"]["move"]["minLength"] == 1


def test_the_schema_says_what_a_contribution_is(client):
    contribution = api_schema(client)["components"]["schemas"]["ContributionInput"]
    assert contribution["properties"]["contribution"]["oneOf"] == [
        {"type": "string", "pattern": "^[!-~]{1,64}$"},
        {"type": "string", "maxLength": 0},  # none: the server makes one up
    ]


def test_the_history_filters_take_an_empty_value_for_any(client, finished_game, alice, bob):
    parameters = {
        p["name"]: p["schema"]
        for p in api_schema(client)["paths"]["/api/games/"]["get"]["parameters"]
    }
    for name in ("variant", "players", "result", "finished_after", "finished_before"):
        assert {"type": "string", "enum": [""]} in parameters[name]["anyOf"], name
    finished_game([(alice, 50, 1), (bob, 40, 2)])

    everything = client.get("/api/games/", {"player": "alice"}).json()
    with_empty_filters = client.get(
        "/api/games/", {"player": "alice", "variant": "", "players": "", "finished_before": ""}
    )

    assert with_empty_filters.status_code == 200
    assert with_empty_filters.json() == everything and everything["count"] == 1
