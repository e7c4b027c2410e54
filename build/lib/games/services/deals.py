"""Deals anyone can check (README, "Checking a game's deals"; the scheme is `azul.fairness`'s):
a game's secret seed and its commitment picked at creation, each player's contribution taken as
they sit down, and the deal key they make together once the game starts.

The seed is read only here (to pick the first player and deal) and shown only once the game is
over (`presenters.deals`); it goes into no message, log line or error.
"""

from __future__ import annotations

import random
import secrets

from django.utils.translation import gettext as _

import azul
from azul import fairness
from games.errors import InvalidContribution
from games.models import Game, Seat


def deal_seed_new(game: Game) -> None:
    """Give the new `game` (not saved yet) its secret seed and the commitment to it."""
    seed = secrets.token_bytes(fairness.SEED_BYTES)
    game.deal_seed = seed.hex()
    game.deal_commitment = fairness.commitment(seed)


def contribution_or_new(value: object) -> str:
    """The player's contribution to the deals as sent (the API's `contribution`, the forms'
    hidden field the page's script fills), or one made up for them when they sent none (a form
    without JavaScript); InvalidContribution (400) saying what is wrong with one that cannot
    be."""
    if value is None or value == "":
        return secrets.token_hex(fairness.CONTRIBUTION_MAX // 2)
    if fairness.contribution_problem(value) is not None:
        raise InvalidContribution(
            _(
                "A contribution to the deals is 1 to %(most)s printable ASCII characters (letters,"
                " digits and punctuation, no spaces)."
            )
            % {"most": fairness.CONTRIBUTION_MAX}
        )
    assert isinstance(value, str)
    return value


def deal_key(game: Game, seats: list[Seat]) -> bytes | None:
    """The game's deal key, from its seed and its seats' contributions in seat order; None for
    a game without a seed (created before deals could be checked), dealt as before."""
    if not game.deal_seed:
        return None
    contributions = [s.deal_contribution for s in sorted(seats, key=lambda s: s.position)]
    return fairness.deal_key(bytes.fromhex(game.deal_seed), contributions)


def first_player(game: Game, seats: list[Seat]) -> int:
    """The seat (from 0) that starts the game: from the deal key, or at random for a game
    without a seed."""
    key = deal_key(game, seats)
    if key is None:
        return random.SystemRandom().randrange(game.num_players)
    return fairness.first_player(key, game.num_players)


def round_tiles(game: Game, seats: list[Seat], state: azul.State) -> list[list[str]]:
    """The factory fill of the round about to be dealt in `state`: from the deal key, or for a
    game without a seed drawn at random now (nothing about future draws exists before then)."""
    key = deal_key(game, seats)
    if key is None:
        return azul.draw_tiles(state, random.SystemRandom())
    return fairness.deal_tiles(state, key)
