"""A running game's deal seed is shown nowhere: it would tell whoever saw it every deal to come.
Only its commitment is shown, from the start; the seed once the game is over."""

import logging

import pytest
from django.contrib.auth import get_user_model

from games.models import Game
from tests.support.factories import api_client_for, client_for, create_game_by_api
from tests.support.play import play_forward, round_over
from tests.support.urls import api_url, games_url, live_url

pytestmark = pytest.mark.django_db


def everything_shown(game_id, person) -> dict[str, str]:
    """Every response of the site about the game, as `person` (a player) gets them."""
    api, web = api_client_for(person), client_for(person)
    responses = {
        "api detail": api.get(games_url(game_id)),
        "api legal moves": api.get(games_url(game_id, "legal-moves")),
        "api log": api.get(games_url(game_id, "log")),
        "api export": api.get(games_url(game_id, "export")),
        "api my games": api.get(games_url()),
        "api history": api.get(games_url(status="finished")),
        "api lobby": api.get(api_url("lobby")),
        "board page": web.get(f"/games/{game_id}/"),
        "board partial": web.get(f"/games/{game_id}/board/"),
        "live": web.get(live_url(game_id, since=0)),
        "replay": web.get(f"/games/{game_id}/replay/"),
        "my games page": web.get("/games/"),
        "history page": web.get("/history/"),
    }
    for name, response in responses.items():
        assert response.status_code in (200, 204), (name, response.status_code)
    return {name: response.content.decode() for name, response in responses.items()}


def test_the_seed_of_a_running_game_is_in_no_response_nor_log(alice, bob, caplog):
    """Bob (the opponent, who would gain most) and Alice see the commitment, never the seed:
    not in a page, the API, the live updates, the export, the history or the replay, and no
    log line carries it, while the game is created, joined and played through a round."""
    caplog.set_level(logging.DEBUG)
    view = create_game_by_api(alice, [{"kind": "open"}], contribution="alice-dice")
    response = api_client_for(bob).post(
        games_url(view["id"], "join"), {"contribution": "bob-dice"}, format="json"
    )
    assert response.status_code == 200
    game = play_forward(Game.objects.get(pk=view["id"]), until=round_over(1), seed=5)
    assert game.status == Game.Status.ACTIVE
    seed = game.deal_seed
    assert len(seed) == 64

    for person in (bob, alice):
        for name, content in everything_shown(game.id, person).items():
            assert seed not in content, name
            assert seed.upper() not in content, name
    shown = everything_shown(game.id, bob)
    assert game.deal_commitment in shown["api detail"]
    assert game.deal_commitment in shown["board page"]  # in full, behind the short line
    assert f"Deals committed: {game.deal_commitment[:12]}" in shown["board page"]
    assert game.deal_commitment in shown["api export"]
    for record in caplog.records:
        assert seed not in record.getMessage()
        assert seed not in repr(record.__dict__)


def test_the_admin_change_form_does_not_show_the_seed(alice, bob):
    view = create_game_by_api(alice, [{"kind": "invite", "username": bob.username}])
    game = Game.objects.get(pk=view["id"])
    admin = get_user_model().objects.create_superuser("root", "root@example.com", "pw-12345678")
    page = client_for(admin).get(f"/admin/games/game/{game.id}/change/")
    assert page.status_code == 200
    content = page.content.decode()
    assert game.deal_commitment in content
    assert game.deal_seed not in content
