"""Helpers for the rating tests: games between people, played to the end with the random
computer player choosing every move, and finished through the services as players finish
them."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

import azul
from azul.ai.bots import choose_move
from games import selectors, services
from games.models import Game, LogEntry, Seat
from ratings.models import PlayerRecord, Rating


def random_move(state: azul.State, position: int, rng: random.Random) -> azul.Move:
    return choose_move(state, position, "random", seed=rng.randrange(2**32))


def fast_forward(game_id: Any, rng: random.Random) -> Game:
    """Play a started game in memory up to the move before the one that would end it, and
    write its log and state in one go: what a long game of moves through `services.move_submit`
    leaves, at a fraction of the cost. The last moves are left to `play_to_end`."""
    game = Game.objects.get(pk=game_id)
    state = game.engine_state()
    entries = []
    while True:
        if state.phase == "deal":
            tiles = azul.draw_tiles(state, rng)
            entry = azul.deal_entry(tiles)
            after = azul.deal(state, tiles=tiles)
        else:
            position = state.to_move[0]
            move = random_move(state, position, rng)
            entry = azul.move_entry(position, move)
            after = azul.play(state, move, position)
            if after.phase == "over":
                break
        entries.append(
            LogEntry(
                game=game,
                number=game.ply,
                kind=entry["kind"],
                player=entry.get("player"),
                data=entry,
            )
        )
        game.ply += 1
        state = after
    LogEntry.objects.bulk_create(entries)
    game.set_engine_state(state)
    game.save(update_fields=["state", "ply", "updated_at"])
    return game


def play_to_end(game_id: Any, *, seed: int = 0, fast: bool = True) -> Game:
    """Play a started game to its end through the services: each person's move (the random
    computer player's choice) with `move_submit`, each computer seat's with
    `computer_move_play`, as its task would. With `fast`, all but the last few moves are
    `fast_forward`ed first. Returns the finished game with its seats."""
    rng = random.Random(seed)
    if fast:
        fast_forward(game_id, rng)
    for _ in range(1000):
        game = selectors.game_get(game_id=game_id)
        if game.status != Game.Status.ACTIVE:
            return game
        state = game.engine_state()
        seat = next(s for s in game.seat_list if s.position == state.to_move[0])
        if seat.played_by_computer:
            services.computer_move_play(game_id=game.id, expected_ply=game.ply)
        else:
            services.move_submit(
                game_id=game.id,
                user=seat.user,
                move=str(random_move(state, seat.position, rng)),
                expected_ply=game.ply,
            )
    raise AssertionError("the game did not end within 1000 moves")


def seats_of(game_id: Any) -> list[Seat]:
    return list(Seat.objects.filter(game_id=game_id).order_by("position"))


def skill(user: Any) -> tuple[float, float]:
    """The user's (mu, sigma), or the initial ones before their first rated game."""
    rating = Rating.objects.filter(user=user).first()
    return (rating.mu, rating.sigma) if rating else (25.0, 25.0 / 3)


def record(user: Any, variant: str = "", players: int = 0) -> tuple[int, int]:
    """(games, wins) of the user's record for one kind of game."""
    row = PlayerRecord.objects.filter(user=user, variant=variant, num_players=players).first()
    return (row.games, row.wins) if row else (0, 0)


@pytest.fixture
def players(make_user) -> Callable[[int], list]:
    """`players(4)`: that many new users, p0, p1, ..."""
    made: list = []

    def make(n: int) -> list:
        start = len(made)
        made.extend(make_user(f"p{i}") for i in range(start, start + n))
        return made[start:]

    return make
