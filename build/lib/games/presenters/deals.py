"""A game's deals as the board page, the game API and the export show them (README, "Checking a
game's deals"): the commitment from the start, and once the game is over the seed and the
players' contributions, with which anyone can check every deal (`azul.fairness`).

This is the one place that decides when the seed is shown: never while the game can still be
dealt (waiting for players, or in progress).
"""

from __future__ import annotations

from typing import Any

from azul import fairness
from games.models import Game

REVEALED = (Game.Status.FINISHED, Game.Status.ABORTED)
"""The statuses in which a game's seed is shown: no deal is left to draw from it (a cancelled
game never dealt; a finished one, resigned or abandoned included, has dealt its last)."""

SHORT_HEX = 12
"""How many hex digits of the commitment the board's line shows (the rest behind it)."""


def deals_view(game: Game) -> dict[str, Any]:
    """`verifiable` (the game has a commitment: one created before deals could be checked, or a
    study, has not), the `scheme`, the `commitment` (hex), and once the game is over the `seed`
    (hex) and the `contributions` (per seat, in seat order; null for a seat without one, such
    as a computer's); no query (`game.seat_list`)."""
    if not game.deal_commitment:
        return {
            "verifiable": False,
            "scheme": None,
            "commitment": None,
            "seed": None,
            "contributions": None,
        }
    revealed = game.status in REVEALED
    return {
        "verifiable": True,
        "scheme": fairness.SCHEME,
        "commitment": game.deal_commitment,
        "seed": game.deal_seed if revealed else None,
        "contributions": (
            [s.deal_contribution or None for s in game.seat_list] if revealed else None
        ),
    }


def deals_line(deals: dict[str, Any]) -> dict[str, Any]:
    """The board page's line about the deals, from `deals_view`: the commitment shortened
    (`short`), all of `deals_view` besides."""
    commitment = deals["commitment"] or ""
    return {**deals, "short": commitment[:SHORT_HEX]}
