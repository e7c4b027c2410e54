"""Helpers for the tests of the API as a script uses it: the game tests' fixtures, and games
driven to the positions these tests need."""

from typing import Any

import azul
from games import services
from games.models import Game
from tests.games.conftest import active_game, clients, create_game  # noqa: F401 (fixtures)


def api_url(*parts: Any) -> str:
    return "/api/" + "".join(f"{p}/" for p in parts)


def play_to_tiling(game: Game, users: dict[int, Any]) -> Game:
    """Play a gray-wall game through `services.move_submit` to its first wall-tiling phase, with
    every player to tile: each player's first take goes to pattern line 1 (which fills it: the
    gray wall's first row takes any colour, in any of five columns), every later one to the
    floor line. Returns the game with every player in `to_move`."""
    for _ in range(100):
        state = game.engine_state()
        if state.phase == "tile":
            assert sorted(state.to_move) == list(range(game.num_players)), state
            return game
        player = state.to_move[0]
        moves = [str(m) for m in azul.legal_moves(state, player)]
        move = next((m for m in moves if m.endswith(" 1")), None)
        move = move or next(m for m in moves if m.endswith(" floor"))
        game = services.move_submit(
            game_id=game.id, user=users[player], move=move, expected_ply=game.ply
        )
    raise AssertionError("no tiling phase after 100 moves")


def tiling_move(client, game_id: Any) -> tuple[str, int]:
    """The caller's first legal move and the ply they see it at."""
    body = client.get(api_url("games", game_id, "legal-moves")).json()
    assert body["legal_moves"], body
    return body["legal_moves"][0], body["ply"]
