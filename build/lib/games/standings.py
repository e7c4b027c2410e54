"""How the site ranks a finished game: the rulebook's order, except that players who resigned
come last. Used by the services that record a result and by everything that shows one."""

from __future__ import annotations

import dataclasses
from collections.abc import Collection

import azul


def resigned_last(outcome: azul.Result, resigned: Collection[int]) -> azul.Result:
    """The result as the site records it (`services.playing.record_result`) and shows it: the
    seats whose players resigned come after every other seat whatever their scores, sharing the
    place after the last of those; the others keep the rulebook's order among themselves (score,
    then complete rows; a tie is shared)."""
    resigned = set(resigned)
    if not resigned:
        return outcome
    keys = {
        s.player: (s.score, s.complete_rows) for s in outcome.standings if s.player not in resigned
    }
    return azul.Result(
        tuple(
            dataclasses.replace(
                s,
                place=1 + len(keys)
                if s.player in resigned
                else 1 + sum(1 for key in keys.values() if key > keys[s.player]),
            )
            for s in outcome.standings
        )
    )
