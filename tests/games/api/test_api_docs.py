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
