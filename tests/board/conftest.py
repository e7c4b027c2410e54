"""Games for the board tests, played through the services as players (and the computer) play
them: a person against computer seats, stopped at the end of a round or of the game."""

import random
import re
from collections.abc import Callable
from html import unescape

from django.urls import reverse

import azul
from games import selectors, services
from games.models import Game


def board_url(game) -> str:
    return reverse("games:detail", args=[game.id])


def text(html: str) -> str:
    """The words of an HTML fragment, spaces collapsed."""
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", "", html))).strip()


def log_items(content: str) -> list[tuple[str, str]]:
    """(class, text) of each item of the move list, in order."""
    start = content.index('<ol class="move-log')
    log = content[start : content.index("</ol>", start)]
    return [
        (m.group(1), text(m.group(2)))
        for m in re.finditer(r'<li class="([^"]*)"[^>]*>(.*?)</li>', log, re.S)
    ]


def play_until(game: Game, person, done: Callable[[Game], bool], seed: int = 3) -> Game:
    """Play `game` (one person, computer seats) until `done(game)` or its end: the person plays
    random legal moves, the computer its own. Works whether the computer's task already ran when
    the person's move committed (a live server's tests) or not (a test inside a transaction)."""
    rng = random.Random(seed)
    for _ in range(3000):
        game = selectors.game_get(game_id=game.id)
        if game.status != Game.Status.ACTIVE or done(game):
            return game
        state = game.engine_state()
        position = state.to_move[0]
        seat = next(s for s in game.seat_list if s.position == position)
        if seat.user_id == person.pk:
            move = str(azul.random_move(state, rng, position))
            services.move_submit(game_id=game.id, user=person, move=move, expected_ply=game.ply)
        else:
            services.computer_move_play(game_id=game.id, expected_ply=game.ply)
    raise AssertionError("the game did not get there in 3,000 moves")


def round_over(number: int) -> Callable[[Game], bool]:
    """Round `number` has been tiled (the next one is dealt, or the game is over)."""
    return lambda game: game.engine_state().round > number


def game_over(game: Game) -> bool:
    return game.status == Game.Status.FINISHED


def past_ply(ply: int) -> Callable[[Game], bool]:
    return lambda game: game.ply > ply


def to_move(position: int) -> Callable[[Game], bool]:
    return lambda game: game.engine_state().to_move == [position]


def against_computer(
    person, computers: int = 1, level: str = "greedy", variant: str = "colored"
) -> Game:
    """A started game of `person` against `computers` computer seats (it starts at once)."""
    return services.game_create(
        creator=person,
        num_players=1 + computers,
        variant=variant,
        days_per_move=3,
        seats=[services.SeatSpec(kind="computer", level=level)] * computers,
    )


def long_game(person, plies: int = 100) -> Game:
    """A game of `person` against three random computer players, played past `plies` entries
    (the deals are random: a game that ends sooner is set aside and another one played)."""
    for _ in range(20):
        game = play_until(
            against_computer(person, computers=3, level="random"), person, past_ply(plies)
        )
        if game.ply > plies:
            return game
    raise AssertionError(f"20 games in a row ended within {plies} log entries")
