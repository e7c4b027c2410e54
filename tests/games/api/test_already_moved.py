"""A move made in another tab or window of one's own is reported as one's own ("you already
moved"), not as someone else's ("someone moved first"), by the API and by the page."""

from django.urls import reverse

from tests.support.play import player_to_move
from tests.support.urls import api_url

ALREADY = "You already moved in another tab or window"


def post_move(client, game_id, move, expected_ply):
    return client.post(
        api_url("games", game_id, "moves"),
        {"move": move, "expected_ply": expected_ply},
        format="json",
    )


def legal(client, game_id) -> list[str]:
    return client.get(api_url("games", game_id, "legal-moves")).json()["legal_moves"]


def test_a_second_tab_is_told_the_player_moved(active_game, clients):
    game = active_game
    mover = clients[player_to_move(game)]
    moves = legal(mover, game["id"])
    assert post_move(mover, game["id"], moves[0], game["ply"]).status_code == 201

    # The other tab still shows the ply before the move, and tries another move.
    response = post_move(mover, game["id"], moves[1], game["ply"])

    assert response.status_code == 409
    body = response.json()
    assert body["code"] == "already_moved"
    assert body["detail"].startswith(ALREADY)
    assert body["current_ply"] == game["ply"] + 1


def test_someone_else_moving_first_is_still_stale(active_game, clients):
    game = active_game
    first = player_to_move(game)
    after = post_move(clients[first], game["id"], legal(clients[first], game["id"])[0], game["ply"])
    after = after.json()
    second = player_to_move(after)
    assert second != first

    # The second player chose a move on the ply before the first player's move.
    response = post_move(clients[second], game["id"], legal(clients[second], game["id"])[0], 1)

    assert response.status_code == 409
    assert response.json()["code"] == "stale_move"
    assert ALREADY not in response.json()["detail"]


def test_the_page_form_says_the_player_moved_in_another_tab(active_game, clients, client_for):
    from django.contrib.auth import get_user_model

    game = active_game
    username = player_to_move(game)
    moves = legal(clients[username], game["id"])
    assert post_move(clients[username], game["id"], moves[0], game["ply"]).status_code == 201
    page = client_for(get_user_model().objects.get(username=username))

    response = page.post(
        reverse("games:detail", args=[game["id"]]),
        {"move": moves[1], "expected_ply": game["ply"]},
        follow=True,
    )

    assert response.status_code == 200
    assert ALREADY in response.content.decode()


def test_the_page_script_says_it_in_the_players_language(client):
    """The board script has its own sentence for `already_moved` (the board it then shows is up
    to date), in the JavaScript catalog; tests/e2e/test_play_by_clicking.py plays it through."""
    script = client.get(
        reverse("javascript-catalog"), HTTP_ACCEPT_LANGUAGE="ko-KR,ko;q=0.9"
    ).content.decode()
    assert f"{ALREADY}. The board is now up to date." in script
