"""A finished game, the same one `tests.support.play.finish` plays, at a fraction of its cost.

Played through `services.move_submit` move by move, a game's 70 to 200 log entries took 0.5 to
1.1 s of a test's time (0.05 to 0.09 s this way, measured). `finish_quickly` draws the very same
moves (the same picker, random source and order) and deals (from the game's deal key, as the site
deals), writes every log entry but the last move's in one go, each move marked as made by the
person who holds the seat (as the services mark it), and sends that last move through the
services: the game ends as a played game ends (its result, the seats' scores and places, the
ratings, the emails). What a test of a finished game reads is what `finish` leaves; what the
moves before the last did on the way (emails of whose turn it is, each move's own time) is not
there.
"""

from __future__ import annotations

import random

import azul
from azul import fairness
from games.models import Game, LogEntry
from games.services.playing import deal_key, next_log_entry
from tests.support.play import any_move, game_over, play_forward


def finish_quickly(game: Game, seed: int = 7) -> Game | None:
    """`finish(game, seed)`'s game, all its moves but the last written outright; None (and
    nothing done) for a game this cannot finish so: one not in play, or with a seat the computer
    plays (it chooses its own moves), or without a deal seed."""
    game = Game.objects.get(pk=game.pk)
    seats = {seat.position: seat for seat in game.seats.all()}
    key = deal_key(game, list(seats.values()))
    people = all(seat.user is not None and not seat.played_by_computer for seat in seats.values())
    if game.status != Game.Status.ACTIVE or not people or key is None:
        return None
    rng = random.Random(seed)
    state = game.engine_state()
    entries = []
    while True:
        if state.phase == "deal":
            tiles = fairness.deal_tiles(state, key)
            entry, after = azul.deal_entry(tiles), azul.deal(state, tiles=tiles)
            entries.append(next_log_entry(game, entry))
        else:
            # Whoever `play_forward` would have play: the first of those to move.
            position = state.to_move[0]
            drawn = rng.getstate()
            move = any_move(state, position, rng)
            after = azul.play(state, move, position)
            if after.phase == "over":
                rng.setstate(drawn)  # the last move is drawn again, by `play_forward`
                break
            person = seats[position].user
            entries.append(
                next_log_entry(
                    game,
                    azul.move_entry(position, move),
                    mover_kind=LogEntry.Mover.PERSON,
                    mover=person,
                )
            )
        state = after
    LogEntry.objects.bulk_create(entries)
    game.set_engine_state(state)
    game.save(update_fields=["state", "ply", "updated_at"])
    game = play_forward(game.id, until=game_over, rng=rng, limit=10)
    assert game.status == Game.Status.FINISHED
    return game


def long_game_quickly(person, plies: int = 100) -> Game:
    """What `tests.support.play.long_game` makes (a game of `person` against three random
    computer players, past `plies` log entries and not over), its moves written outright: each
    seat's moves the random computer player's choice, marked as made by the person or the
    computer that holds the seat, the deals from the game's deal key. A game whose deals end it
    within `plies` entries is set aside and another one made, as `long_game` does."""
    from tests.support import factories
    from tests.support.play import random_players_move

    rng = random.Random(3)
    for _ in range(20):
        game = factories.against_computer(person, computers=3, level="random")
        seats = {seat.position: seat for seat in game.seats.all()}
        key = deal_key(game, list(seats.values()))
        state = game.engine_state()
        entries = []
        while game.ply <= plies:
            if state.phase == "deal":
                tiles = fairness.deal_tiles(state, key)
                entry, after = azul.deal_entry(tiles), azul.deal(state, tiles=tiles)
                entries.append(next_log_entry(game, entry))
            else:
                position = state.to_move[0]
                move = random_players_move(state, position, rng)
                after = azul.play(state, move, position)
                if after.phase == "over":
                    break
                user = seats[position].user
                kind = LogEntry.Mover.PERSON if user is not None else LogEntry.Mover.COMPUTER
                entry = azul.move_entry(position, move)
                entries.append(next_log_entry(game, entry, mover_kind=kind, mover=user))
            state = after
        if game.ply > plies:
            LogEntry.objects.bulk_create(entries)
            game.set_engine_state(state)
            game.save(update_fields=["state", "ply", "updated_at"])
            return Game.objects.get(pk=game.pk)
    raise AssertionError(f"20 games in a row ended within {plies} log entries")
