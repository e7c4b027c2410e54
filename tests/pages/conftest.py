"""Games for the page tests, made through the services the way players make them."""

import random

import azul
from games import selectors, services
from games.models import Game


def to_move_user(game: Game):
    """The user whose turn it is (the first listed when several tile at once)."""
    game = selectors.game_get(game_id=game.id)
    position = azul.State.from_dict(game.state).to_move[0]
    return next(s.user for s in game.seats.all() if s.position == position)


def waiting_user(game: Game):
    """A player of the game whose turn it is not."""
    game = selectors.game_get(game_id=game.id)
    to_move = set(azul.State.from_dict(game.state).to_move)
    return next(s.user for s in game.seats.all() if s.position not in to_move)


def play_moves(game: Game, count: int, seed: int = 7) -> Game:
    """Play `count` legal moves for whoever is to move; returns the game as it is then."""
    rng = random.Random(seed)
    for _ in range(count):
        game = selectors.game_get(game_id=game.id)
        if game.status != Game.Status.ACTIVE:
            break
        state = azul.State.from_dict(game.state)
        position = state.to_move[0]
        user = next(s.user for s in game.seats.all() if s.position == position)
        move = str(azul.random_move(state, rng, position))
        services.move_submit(game_id=game.id, user=user, move=move, expected_ply=game.ply)
    return selectors.game_get(game_id=game.id)
