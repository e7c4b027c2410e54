"""Elimination by groups: tables of 2, 3 or 4; the best `advance` of each table go on to the
next stage, until one final table.

A stage seats its entrants in seeding order (the event's seeding: by rating, say), spread over
the tables in a snake (1, 2, 3, 3, 2, 1, ...) so that every table gets a fair share of the
strong. When the entrants do not divide by the table size, the remainder, the top seeds, go
straight on to the next stage (byes, as in a knock-out). Once the entrants fit at one table,
that table is the final.

Who goes on from a table: the best placed; a shared placing at the cut is decided by the game
score, then by the seeding. Each stage has fewer entrants than the last (a table sends on
fewer than it seats), so the event always reaches its final.
"""

from __future__ import annotations

from collections.abc import Sequence

from .types import Round, Table, TableResult, check_table_size


def _check(seeding: Sequence[int], table_size: int, advance: int) -> None:
    check_table_size(table_size)
    if not 1 <= advance < table_size:
        raise ValueError(f"between 1 and {table_size - 1} of a table of {table_size} go on")
    if len(set(seeding)) != len(seeding):
        raise ValueError("an entrant is seeded twice")
    if len(seeding) < 2:
        raise ValueError("an elimination needs at least two entrants")


def elimination_stage(seeding: Sequence[int], *, table_size: int, advance: int) -> Round:
    """The stage that seats `seeding` (best seed first): the final table when they fit at one,
    else tables of `table_size` in a snake, the top seeds of the remainder on byes."""
    _check(seeding, table_size, advance)
    if len(seeding) <= table_size:
        return Round(tables=(tuple(seeding),))
    byes = len(seeding) % table_size
    seated = seeding[byes:]
    count = len(seated) // table_size
    tables: list[list[int]] = [[] for _ in range(count)]
    for position, entrant in enumerate(seated):
        layer, place = divmod(position, count)
        tables[place if layer % 2 == 0 else count - 1 - place].append(entrant)
    return Round(tables=tuple(tuple(t) for t in tables), byes=tuple(seeding[:byes]))


def is_final(stage: Round) -> bool:
    """A stage of one table and nobody on a bye: everyone left is at it."""
    return len(stage.tables) == 1 and not stage.byes


def going_on(
    stage: Round, results: Sequence[TableResult], seeding: Sequence[int], *, advance: int
) -> list[int]:
    """Who goes on from `stage` (its byes too), in seeding order. `results` must hold a result
    for each of its tables (others are ignored)."""
    seed = {entrant: position for position, entrant in enumerate(seeding)}
    by_table = {frozenset(r.seats): r for r in results}
    chosen = set(stage.byes)
    for table in stage.tables:
        result = by_table.get(frozenset(table))
        if result is None:
            raise ValueError(f"table {table} has no result yet")
        best = sorted(
            result.seats,
            key=lambda e: (result.placing_of(e), -result.score_of(e), seed[e]),
        )
        chosen.update(best[:advance])
    return sorted(chosen, key=seed.__getitem__)


def next_stage(
    stage: Round,
    results: Sequence[TableResult],
    seeding: Sequence[int],
    *,
    table_size: int,
    advance: int,
) -> Round | None:
    """The stage after `stage` once every table of it has a result; None after the final."""
    if is_final(stage):
        return None
    return elimination_stage(
        going_on(stage, results, seeding, advance=advance),
        table_size=table_size,
        advance=advance,
    )


def final_table(stage: Round) -> Table | None:
    """The final's table, when `stage` is the final."""
    return stage.tables[0] if is_final(stage) else None
