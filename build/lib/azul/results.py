"""The final result of a game: scores, places and the end-of-game bonuses (rulebook, "End of the
game")."""

from __future__ import annotations

from dataclasses import dataclass

from .state import State
from .tiling import end_bonuses


@dataclass(frozen=True)
class Standing:
    """One player's final result, with the end-of-game bonus breakdown."""

    player: int
    score: int
    place: int
    complete_rows: int
    row_bonus: int
    column_bonus: int
    color_bonus: int

    @property
    def bonus(self) -> int:
        return self.row_bonus + self.column_bonus + self.color_bonus


@dataclass(frozen=True)
class Result:
    """Final scores and places; places are shared when score and complete rows are equal."""

    standings: tuple[Standing, ...]

    @property
    def winners(self) -> list[int]:
        return [s.player for s in self.standings if s.place == 1]

    @property
    def ranking(self) -> list[int]:
        """Players from first place to last (ties in seat order)."""
        return [s.player for s in sorted(self.standings, key=lambda s: (s.place, s.player))]


def result(state: State) -> Result:
    """The final result of a finished game: the highest score wins, and on a tie the most
    complete horizontal lines; a tie on both shares the place (rulebook, "End of the game")."""
    if state.phase != "over":
        raise ValueError("the game is not over yet")
    keys = [(b.score, b.complete_rows()) for b in state.boards]
    standings = []
    for p, b in enumerate(state.boards):
        row_bonus, column_bonus, color_bonus = end_bonuses(b)
        standings.append(
            Standing(
                player=p,
                score=b.score,
                place=1 + sum(1 for other in keys if other > keys[p]),
                complete_rows=b.complete_rows(),
                row_bonus=row_bonus,
                column_bonus=column_bonus,
                color_bonus=color_bonus,
            )
        )
    return Result(tuple(standings))
