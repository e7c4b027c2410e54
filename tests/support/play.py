"""Playing games forward the way their players (and the computer) would, and small readers of
whose turn it is.

`play_forward` is the one way tests move a game on: through the services (as the page's and the
API's views do, and the computer's task), or through the API with each player's own client.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any, Literal

from django.db import connection

import azul
from azul import fairness
from azul.ai.bots import choose_move
from games import selectors, services
from games.models import Game, LogEntry
from games.services.playing import deal_key, next_log_entry
from tests.support import factories
from tests.support.mail import only_these
from tests.support.urls import games_url

MovePicker = Callable[[azul.State, int, random.Random], azul.Move]
"""How a person chooses a move: from the state, their position and the game's random source."""


def any_move(state: azul.State, position: int, rng: random.Random) -> azul.Move:
    """A uniformly random legal move (the engine's `random_move`)."""
    return azul.random_move(state, rng, position)


def first_move(state: azul.State, position: int, rng: random.Random) -> azul.Move:
    """The first legal move, in the engine's order."""
    return azul.legal_moves(state, position)[0]


def random_players_move(state: azul.State, position: int, rng: random.Random) -> azul.Move:
    """What the site's random computer player would choose."""
    return choose_move(state, position, "random", seed=rng.randrange(2**32))


def play_forward(
    game: Game | Any,
    *,
    moves: int | None = None,
    until: Callable[[Game], bool] | None = None,
    how: Literal["service", "api"] = "service",
    pick: MovePicker = any_move,
    seed: int = 7,
    rng: random.Random | None = None,
    users: Mapping[int, Any] | None = None,
    clients: Mapping[str, Any] | None = None,
    committed: Callable[..., Any] | None = None,
    limit: int = 3000,
) -> Game:
    """Play `game` (a game or its id) on: `moves` moves, or until `until(game)` holds, and never
    past its end; returns the game as it is then.

    Whoever is to move plays (the first listed, when several tile at once): a person plays
    `pick`'s choice (random legal moves from `seed`, or `rng` if given), a computer seat (or a
    seat the computer took over) plays its own move as its task would. With `users` (position ->
    user) only those positions are played, by those users, and computer seats are left to the
    tasks that run on commit. `how="api"` sends each person's move with their client from
    `clients` (by username) after reading their legal moves, as a script would. `committed`
    wraps each service call (`committed(service, **kwargs)`), to run what it sends on commit.
    With `until` and no `moves`, failing to get there within `limit` moves is an error."""
    rng = rng if rng is not None else random.Random(seed)
    game_id = game.id if isinstance(game, Game) else game
    call = committed or (lambda service, **kwargs: service(**kwargs))
    # The game after a person's move, as `move_submit` returns it (with its seats), is the game
    # as it is when nothing ran on commit since: inside a test's transaction, with no
    # `committed`. Otherwise (a computer's move, a task run on commit) it is read again. Reading
    # it each time was half a move's cost in `finish`, which many fixtures use.
    after: Game | None = None
    for _ in range(moves if moves is not None else limit):
        game = after if after is not None else selectors.game_get(game_id=game_id)
        after = None
        if game.status != Game.Status.ACTIVE or (until is not None and until(game)):
            return game
        state = game.engine_state()
        if users is not None:
            position = next(p for p in state.to_move if p in users)
            person = users[position]
        else:
            position = state.to_move[0]
            seat = next(s for s in game.seat_list if s.position == position)
            if seat.played_by_computer:
                call(services.computer_move_play, game_id=game.id, expected_ply=game.ply)
                continue
            person = seat.user
        move = str(pick(state, position, rng))
        if how == "api":
            _move_by_api(clients[person.username], game.id, move)
        else:
            played = call(
                services.move_submit,
                game_id=game.id,
                user=person,
                move=move,
                expected_ply=game.ply,
            )
            unchanged_since = committed is None and connection.in_atomic_block
            after = played if unchanged_since and isinstance(played, Game) else None
    game = selectors.game_get(game_id=game_id)
    reached = game.status != Game.Status.ACTIVE or until is None or until(game)
    if moves is None and not reached:
        raise AssertionError(f"the game did not get there in {limit} moves")
    return game


def _move_by_api(client: Any, game_id: Any, move: str) -> dict:
    """`move`, sent as its player would: read the legal moves, post the move at their ply."""
    legal = client.get(games_url(game_id, "legal-moves")).json()
    assert move in legal["legal_moves"], (move, legal)
    response = client.post(
        games_url(game_id, "moves"), {"move": move, "expected_ply": legal["ply"]}, format="json"
    )
    assert response.status_code == 201, response.json()
    return response.json()


def write_log_ahead(
    game_id: Any,
    rng: random.Random,
    *,
    pick: MovePicker = random_players_move,
    plies: int | None = None,
    movers: bool = False,
    redraw_last: bool = False,
) -> bool:
    """Play a started game in memory (`pick` choosing every move) up to the move before the one
    that would end it, or with `plies` past that many log entries, and write its log and state in
    one go: what moves through `services.move_submit` leave, at a fraction of the cost (a game's
    70 to 200 entries took 0.5 to 1.1 s that way, 0.05 to 0.09 s this way). The deals are drawn
    as the site draws them (from the game's deal key, so that its export checks; at random for a
    game without a seed). With `movers` each move is marked as made by whoever holds the seat,
    as the services mark it. The last move is left to `play_forward`; with `redraw_last` the
    random source is put back as it was before that move was drawn, so that `play_forward` draws
    the same one. With `plies`, a game that would end first is left as it was: whether the log
    was written."""
    game = Game.objects.get(pk=game_id)
    seats = {seat.position: seat for seat in game.seats.all()}
    key = deal_key(game, list(seats.values()))
    state = game.engine_state()
    entries = []
    while plies is None or game.ply <= plies:
        if state.phase == "deal":
            tiles = azul.draw_tiles(state, rng) if key is None else fairness.deal_tiles(state, key)
            entries.append(next_log_entry(game, azul.deal_entry(tiles)))
            state = azul.deal(state, tiles=tiles)
            continue
        position = state.to_move[0]  # whoever `play_forward` would have play
        drawn = rng.getstate()
        move = pick(state, position, rng)
        after = azul.play(state, move, position)
        if after.phase == "over":
            if plies is not None:
                return False
            if redraw_last:
                rng.setstate(drawn)
            break
        entry = azul.move_entry(position, move)
        if movers:
            user = seats[position].user
            kind = LogEntry.Mover.PERSON if user is not None else LogEntry.Mover.COMPUTER
            entries.append(next_log_entry(game, entry, mover_kind=kind, mover=user))
        else:
            entries.append(next_log_entry(game, entry))
        state = after
    LogEntry.objects.bulk_create(entries)
    game.set_engine_state(state)
    game.save(update_fields=["state", "ply", "updated_at"])
    return True


def play_to_end(game: Game | Any, *, seed: int = 0, fast: bool = True) -> Game:
    """A started game played to its end, each person's move the random computer player's choice.
    With `fast`, all but the last moves are written outright first (`write_log_ahead`)."""
    rng = random.Random(seed)
    game_id = game.id if isinstance(game, Game) else game
    if fast:
        write_log_ahead(game_id, rng)
    return play_forward(game_id, until=game_over, pick=random_players_move, rng=rng, limit=1000)


def long_game(person, plies: int = 100) -> Game:
    """A game of `person` against three random computer players, played past `plies` entries
    (the deals are random: a game that ends sooner is set aside and another one played)."""
    for _ in range(20):
        game = factories.against_computer(person, computers=3, level="random")
        game = play_forward(game, until=past_ply(plies), seed=3)
        if game.ply > plies:
            return game
    raise AssertionError(f"20 games in a row ended within {plies} log entries")


def long_game_quickly(person, plies: int = 100) -> Game:
    """What `long_game` makes, its moves written outright (`write_log_ahead`), each marked as
    made by the person or the computer that holds the seat."""
    rng = random.Random(3)
    for _ in range(20):
        game = factories.against_computer(person, computers=3, level="random")
        if write_log_ahead(game.id, rng, plies=plies, movers=True):
            return Game.objects.get(pk=game.pk)
    raise AssertionError(f"20 games in a row ended within {plies} log entries")


def waiting_for(game: Game, person: Any) -> Game:
    """`game`, played on (first legal moves) until it is `person`'s turn and nobody else's, the
    emails of those moves dropped."""
    position = position_of(game, person)
    return only_these(
        lambda: play_forward(game, until=only_to_move(position), pick=first_move, limit=10)
    )


def finish(game: Game, seed: int = 7) -> Game:
    """Play `game` to its end with random legal moves, and return it as it is then. A game of
    people only, dealt from its key, has the same moves written outright but the last
    (`write_log_ahead`), which goes through the services: the game ends as a played game ends
    (its result, the seats' scores and places, the ratings, the emails). What the moves before
    the last did on the way (emails of whose turn it is, each move's own time) is not there."""
    game = Game.objects.get(pk=game.pk)
    seats = list(game.seats.all())
    people = all(seat.user is not None and not seat.played_by_computer for seat in seats)
    rng = random.Random(seed)
    if game.status == Game.Status.ACTIVE and people and deal_key(game, seats) is not None:
        write_log_ahead(game.id, rng, pick=any_move, movers=True, redraw_last=True)
    game = play_forward(game.id, until=game_over, rng=rng, limit=2000)
    assert game.status == Game.Status.FINISHED
    return game


# -- when to stop ---------------------------------------------------------------------------------


def game_over(game: Game) -> bool:
    return game.status == Game.Status.FINISHED


def round_over(number: int) -> Callable[[Game], bool]:
    """Round `number` has been tiled (the next one is dealt, or the game is over)."""
    return lambda game: game.engine_state().round > number


def past_ply(ply: int) -> Callable[[Game], bool]:
    return lambda game: game.ply > ply


def only_to_move(position: int) -> Callable[[Game], bool]:
    """It is `position`'s turn and nobody else's."""
    return lambda game: game.engine_state().to_move == [position]


# -- whose turn ------------------------------------------------------------------------------------


def to_move_user(game: Game):
    """The user whose turn it is (the first listed when several tile at once)."""
    game = selectors.game_get(game_id=game.id)
    position = game.engine_state().to_move[0]
    return next(s.user for s in game.seat_list if s.position == position)


def waiting_user(game: Game):
    """A player of the game whose turn it is not."""
    game = selectors.game_get(game_id=game.id)
    to_move = set(game.engine_state().to_move)
    return next(s.user for s in game.seat_list if s.position not in to_move)


def position_of(game: Game, person: Any) -> int:
    return next(s.position for s in game.seats.all() if s.user_id == person.pk)


def positions(game: Game) -> dict[Any, int]:
    """user id -> position, for the game's players."""
    return {s.user_id: s.position for s in game.seats.all() if s.user_id is not None}


def mover_and_other(game_id: Any, users: Mapping[int, Any]) -> tuple[Any, Any]:
    """(the user to move, another player) of a two-player game; `users` by position."""
    game = selectors.game_get(game_id=game_id)
    player = game.engine_state().to_move[0]
    return users[player], next(u for p, u in users.items() if p != player)


def player_to_move(view: dict) -> str:
    """Username of the (first) player to move in an API game view."""
    position = view["to_move"][0]
    return next(p["username"] for p in view["players"] if p["position"] == position)


def next_move(game: Game, users: Mapping[int, Any]) -> dict[str, Any]:
    """`services.move_submit`'s arguments for the first legal move of the player to move in
    `game` as given; `users` maps positions to users."""
    state = game.engine_state()
    player = state.to_move[0]
    return {
        "game_id": game.id,
        "user": users[player],
        "move": str(azul.legal_moves(state, player)[0]),
        "expected_ply": game.ply,
    }


def first_legal_move(game_id: Any) -> tuple[int, str, int]:
    """Who is to move in the game (the first, if several), their first legal move, the ply."""
    game = Game.objects.get(pk=game_id)
    state = game.engine_state()
    player = state.to_move[0]
    return player, str(azul.legal_moves(state, player)[0]), game.ply
