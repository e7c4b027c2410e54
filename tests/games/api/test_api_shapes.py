"""The API answers with the selectors' dicts; the serializers that describe them in the OpenAPI
schema must name exactly the same fields, or the published schema would lie."""

from games.serializers import (
    GameSummarySerializer,
    GameViewSerializer,
    LegalMovesSerializer,
    PlayerSerializer,
)
from tests.support.urls import games_url


def fields(serializer_class) -> set[str]:
    return set(serializer_class().fields)


def test_game_view_matches_its_schema(active_game, clients):
    for body in (active_game, clients["carol"].get(games_url(active_game["id"])).json()):
        assert set(body) == fields(GameViewSerializer)
        for player in body["players"]:
            assert set(player) == fields(PlayerSerializer)


def test_game_list_matches_its_schema(active_game, clients):
    listed = clients["alice"].get(games_url()).json()
    assert listed
    for summary in listed:
        assert set(summary) == fields(GameSummarySerializer)


def test_legal_moves_match_their_schema(active_game, clients):
    for client in clients.values():
        body = client.get(games_url(active_game["id"], "legal-moves")).json()
        assert set(body) == fields(LegalMovesSerializer)
