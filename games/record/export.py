"""Exporting a game as JSON: what rebuilds the game anywhere with the engine alone::

    import azul
    state = azul.replay(
        export["entries"],
        players=len(export["players"]),
        variant=export["variant"],
        first_player=export["first_player"],
    )
    [s.score for s in azul.result(state).standings]  # the export's result's scores

`entries` are the log entries as the engine writes them (`azul.deal_entry`,
`azul.move_entry`; a move the server made when its player's time ran out also says
`"timeout": true`), numbered from 0 as in the game's log. `deals` is the commitment to the
seed the deals were drawn from, and once the game is over the seed and the players'
contributions (`presenters.deals`): `python -m azul.verify export.json` then checks every deal
(`azul.fairness`). `format_version` changes only when a
reader of the previous version could misread a file. `games.record.study_import` reads such a
file back; `games.record.serializers` describes the format for the API's schema.

Who may export a game is who may replay it (`games.record.replay.replay_visible`), checked by
the API.
"""

from __future__ import annotations

from typing import Any

from django.utils import translation

import azul
from games.models import Game, Seat
from games.presenters.deals import deals_view
from games.presenters.game import result_view
from games.presenters.names import seat_name
from games.record.summary import replay_summary

FORMAT_VERSION = 1


def _player(seat: Seat) -> dict[str, Any]:
    computer = seat.kind == Seat.Kind.COMPUTER
    # Named as every page names the seat, in no language in particular: a file is the same for
    # everyone who downloads it, and its names become a study's seat names when imported.
    with translation.override(None):
        name = seat_name(seat)
    return {
        "name": name,
        "username": seat.user.get_username() if seat.user is not None else None,
        "kind": "computer" if computer else "human",
        "bot_level": seat.bot_level if computer else None,
    }


def game_export(*, game: Game) -> dict[str, Any]:
    """The game as an export (the log from the replay cache: 1 query when it is not there).
    `game` comes with its seats (`selectors.game_get`) and has started."""
    summary = replay_summary(game=game)
    state = azul.State.from_dict(summary["final"])
    return {
        "format_version": FORMAT_VERSION,
        "variant": game.variant,
        "first_player": game.first_player,
        "players": [_player(seat) for seat in game.seat_list],
        "entries": summary["entries"],
        "result": result_view(state) if state.phase == "over" else None,
        "deals": {key: value for key, value in deals_view(game).items() if key != "verifiable"},
        "game": {
            "id": game.id,
            "status": game.status,
            "is_study": game.is_study,
            "started_at": game.started_at,
            "finished_at": game.finished_at,
            "ply": game.ply,
        },
    }
