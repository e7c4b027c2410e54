"""The formats of events, as pure functions of the entrants and the results so far: no Django,
no database (the events app turns its rows into these types and back).

- `types`: entrants, tables, rounds and table results;
- `scoring`: points per placing, standings with their tie-breaks, the crosstable;
- `round_robin`: the round robin "all at once";
- `swiss`: a Swiss round;
- `elimination`: elimination by groups, stage by stage.
"""

from .elimination import elimination_stage, going_on, is_final, next_stage
from .round_robin import games_per_entrant, pair_meetings, round_robin
from .scoring import Meeting, StandingsRow, crosstable, place_points, standings, table_points
from .swiss import swiss_round
from .types import Entrant, Round, Table, TableResult

__all__ = [
    "Entrant",
    "Meeting",
    "Round",
    "StandingsRow",
    "Table",
    "TableResult",
    "crosstable",
    "elimination_stage",
    "games_per_entrant",
    "going_on",
    "is_final",
    "next_stage",
    "pair_meetings",
    "place_points",
    "round_robin",
    "standings",
    "swiss_round",
    "table_points",
]
