"""The computer levels on the players' scale: the arithmetic, apart from the database.

A level's skill is an OpenSkill (mu, sigma) like a person's, so that its shown rating
(`skill.display`) reads on the leaderboard's scale. It is not moved game by game: it is fitted,
all levels at once, to every result the site has about them (`fit`):

- the calibration arena between levels (`level_calibration.json`, made by `python -m
  research.calibrate`), which says how far apart the levels are;
- games between people and levels, which say where the levels sit among people. A person's skill
  is taken as their rating says now, and is never moved by a game against a computer (README,
  "Ratings and leaderboards"): a player cannot buy rating from a computer.

The model is OpenSkill's for two players (Plackett-Luce): the chance that A finishes ahead of B
is `1 / (1 + exp(-(mu_A - mu_B) / c))`, with `c = sqrt(2 beta^2 + sigma_A^2 + sigma_B^2)`. A
level plays the same way every game, so its own sigma in `c` is 0; a person's is theirs. A game
of 3 or 4 players counts as its pairs, each weighing 1/(players - 1), so that it weighs one game.

With no game against people the scale has no anchor: `medium` (the level offered by default) is
then placed where a new player starts (mu 25, sigma 25/3), as unknown as a new player, and the
others at their arena distances from it. Results against people move that anchor, and every
level with it, as far as they outweigh its prior.

The fit is the maximum of the posterior (a Gaussian prior on `medium`, and a weak one on each
step between neighbours: half a game each way, so that a step the arena never saw lost stays
finite), by Newton's method; a level's sigma is its posterior standard deviation.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from ratings import skill

# Weakest first: `games.models.Seat.BotLevel`'s order (a test keeps the two equal).
LEVELS: tuple[str, ...] = ("random", "greedy", "medium", "strong", "master")
ANCHOR = "medium"
BETA: float = skill.MODEL.beta
CALIBRATION_FILE = Path(__file__).with_name("level_calibration.json")
# Half a game each way on every step between neighbours (see above).
STEP_PRIOR_GAMES = 0.5


@dataclass(frozen=True)
class Pairing:
    """`games` results between two sides, `score` of them for side a (a win 1, a tie 1/2).
    Side b is a level (`b`) or a person of skill (`mu`, `sigma`) when `b` is None. `weight`
    scales what these results count for (a person's cap, a multi-player game's pairs)."""

    a: str
    b: str | None
    score: float
    games: float
    mu: float = 0.0
    sigma: float = 0.0
    weight: float = 1.0


@dataclass(frozen=True)
class LevelSkill:
    level: str
    mu: float
    sigma: float

    @property
    def rating(self) -> float:
        """Shown like a person's rating (never below 0: `random` is far below any person)."""
        return max(0.0, skill.display(self.mu, self.sigma))


@dataclass(frozen=True)
class ArenaPair:
    """One run of the calibration arena: `stronger` against `weaker` (the level above)."""

    stronger: str
    weaker: str
    wins: int
    losses: int
    ties: int
    command: str

    @property
    def games(self) -> int:
        return self.wins + self.losses + self.ties

    @property
    def win_rate(self) -> float:
        return (self.wins + self.ties / 2) / self.games if self.games else 0.0

    def interval(self, z: float = 1.96) -> tuple[float, float]:
        """The 95% Wilson interval of `win_rate`."""
        n = self.games
        if not n:
            return 0.0, 1.0
        p = self.win_rate
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return max(0.0, centre - half), min(1.0, centre + half)

    def pairing(self) -> Pairing:
        return Pairing(self.stronger, self.weaker, self.wins + self.ties / 2, self.games)


@cache
def calibration() -> tuple[ArenaPair, ...]:
    """The shipped calibration arena's runs (`level_calibration.json`)."""
    data = json.loads(CALIBRATION_FILE.read_text())
    return tuple(
        ArenaPair(
            stronger=run["stronger"],
            weaker=run["weaker"],
            wins=run["wins"],
            losses=run["losses"],
            ties=run["ties"],
            command=run["command"],
        )
        for run in data["runs"]
    )


def _spread(sigma: float) -> float:
    return math.sqrt(2 * BETA * BETA + sigma * sigma)


def expected(mu: float, sigma: float, other_mu: float, other_sigma: float) -> float:
    """The chance that a side of skill (mu, sigma) finishes ahead of one of (other_mu,
    other_sigma) in a 2-player game."""
    spread = math.sqrt(2 * BETA * BETA + sigma * sigma + other_sigma * other_sigma)
    return 1.0 / (1.0 + math.exp(-(mu - other_mu) / spread))


def fit(pairings: Iterable[Pairing], levels: Sequence[str] = LEVELS) -> dict[str, LevelSkill]:
    """Every level's skill from the results (see the module's text)."""
    index = {level: i for i, level in enumerate(levels)}
    rows: list[tuple[int, int | None, float, float, float, float]] = []
    for p in pairings:
        if p.games <= 0 or p.weight <= 0 or p.a not in index:
            continue
        other = None if p.b is None else index.get(p.b)
        if p.b is not None and other is None:
            continue
        spread = _spread(0.0 if p.b is not None else p.sigma)
        rows.append((index[p.a], other, p.mu, p.score * p.weight, p.games * p.weight, spread))
    for lower, upper in zip(levels, levels[1:], strict=False):
        # The weak prior on each step: half a game each way.
        rows.append(
            (index[upper], index[lower], 0.0, STEP_PRIOR_GAMES, 2 * STEP_PRIOR_GAMES, _spread(0))
        )

    n = len(levels)
    anchor = index[ANCHOR]
    mu = np.full(n, skill.INITIAL_MU)
    prior_precision = 1.0 / (skill.INITIAL_SIGMA**2)
    hessian = np.eye(n)
    for _ in range(100):
        gradient = np.zeros(n)
        hessian = np.zeros((n, n))
        gradient[anchor] -= (mu[anchor] - skill.INITIAL_MU) * prior_precision
        hessian[anchor, anchor] += prior_precision
        for a, b, other_mu, score, games, spread in rows:
            difference = mu[a] - (other_mu if b is None else mu[b])
            expected = 1.0 / (1.0 + math.exp(-difference / spread))
            slope = (score - games * expected) / spread
            curvature = games * expected * (1 - expected) / (spread * spread)
            gradient[a] += slope
            hessian[a, a] += curvature
            if b is not None:
                gradient[b] -= slope
                hessian[b, b] += curvature
                hessian[a, b] -= curvature
                hessian[b, a] -= curvature
        step = np.linalg.solve(hessian, gradient)
        mu = mu + step
        if float(np.max(np.abs(step))) < 1e-9:
            break
    covariance = np.linalg.inv(hessian)
    return {
        level: LevelSkill(level, float(mu[i]), float(math.sqrt(covariance[i, i])))
        for level, i in index.items()
    }
