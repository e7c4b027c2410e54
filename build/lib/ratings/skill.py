"""The rating arithmetic, apart from the database: which seats of a finished game are rated, how
they rank, and their new skills from OpenSkill's Plackett-Luce model. The live update
(`ratings.services.game_rate`) and the recompute from history (`ratings_recompute`) both go
through these functions, so they agree to the last bit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

# OpenSkill's defaults (mu 25, sigma 25/3, beta 25/6, tau 25/300): tau keeps a little
# uncertainty added at each game, so an established rating can still move.
MODEL = PlackettLuce()
INITIAL_MU: float = MODEL.mu
INITIAL_SIGMA: float = MODEL.sigma

# Shown value: the conservative estimate mu - 3 sigma (OpenSkill's ordinal: the player is better
# than this with about 99.7% confidence), on an Elo-like scale where a new player shows 1000 and
# one unit of mu is 40 points (a 2-player win between established players moves about 10-15).
DISPLAY_BASE = 1000.0
DISPLAY_SCALE = 40.0


def display(mu: float, sigma: float) -> float:
    """The shown rating of a skill (unrounded: leaderboards order by it; pages round it)."""
    return DISPLAY_BASE + DISPLAY_SCALE * (mu - 3.0 * sigma)


INITIAL_DISPLAY = display(INITIAL_MU, INITIAL_SIGMA)


@dataclass(frozen=True)
class RatedSeat:
    """What the rating needs to know of one seat of a finished game."""

    user_id: int
    place: int
    # The computer played the seat to the end after its player's third timeout.
    absent: bool = False


def is_rated(kinds: Sequence[str], user_ids: Sequence[int | None]) -> bool:
    """A game is rated when every seat is a person's: no computer seat, and no seat of a study
    game, which names its players without their accounts (README, "Ratings and leaderboards")."""
    return len(kinds) >= 2 and all(
        kind == "human" and user is not None for kind, user in zip(kinds, user_ids, strict=True)
    )


def ranks(seats: Sequence[RatedSeat]) -> list[int]:
    """Ranks for OpenSkill (1 best; equal ranks are ties): present players by their place, which
    is shared on a tie; every seat lost by timeouts after them all, tied with one another."""
    last = 1 + max((s.place for s in seats), default=0)
    return [last if s.absent else s.place for s in seats]


def winners(seats: Sequence[RatedSeat]) -> list[bool]:
    """Who counts as a winner in the records: ranked first, and present (a seat the computer
    finished never wins for its absent player)."""
    order = ranks(seats)
    best = min(order)
    return [rank == best and not seat.absent for rank, seat in zip(order, seats, strict=True)]


def rate(skills: Sequence[tuple[float, float]], order: Sequence[int]) -> list[tuple[float, float]]:
    """New (mu, sigma) of each player after a game they finished in `order` (ranks)."""
    teams = [[MODEL.rating(mu=mu, sigma=sigma)] for mu, sigma in skills]
    rated = MODEL.rate(teams, ranks=list(order))
    return [(team[0].mu, team[0].sigma) for team in rated]
