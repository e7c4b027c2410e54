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
`"timeout": true`), numbered from 0 as in the game's log. A move the server made for a
person's seat also says why in `"server"`: `"timeout"` (their time ran out), `"resigned"` (the
computer played the seat after its player resigned), `"takeover"` (the computer took the seat at
its player's third timeout) or `"played_out"` (nobody was left to play for anything, and the
computer played the game out); a move without it was made by its seat's holder (a computer
seat's, by the computer). The engine ignores `"server"`, so a reader of the format before it
reads these files as before (`selectors.server_moves` says which moves they are).

A move also says who made it, as its log entry recorded it when it was played: `"by"` is
`"person"` (and `"by_player"` the username of the account that moved, null for a deleted
account, absent in a study, whose seats are nobody's), `"computer"` or `"server"` (at a
timeout). Moves played before the log recorded it say
nothing (unknown); so does a reader of the format before it, which ignores both.

`deals` is the commitment to the seed the deals were drawn from, and once the game is over
the seed and the players' contributions (`presenters.deals`): `python -m azul.verify
export.json` then checks every deal (`azul.fairness`). `format_version` changes only when a
reader of the previous version could misread a file (`"server"` changed nothing for them).
`games.record.study_import` reads such a file back; `games.serializers` describes the
format for the API's schema.

Who may export a game is who may replay it (`games.record.replay.replay_visible`), checked by
the API.
"""

from __future__ import annotations

from typing import Any

from django.utils import translation

import azul
from accounts.models import User
from core.slots import game_export_additions
from games.models import Game, LogEntry, Seat
from games.presenters.deals import deals_view
from games.presenters.game import result_view
from games.presenters.names import player_name, public_username, seat_names
from games.record.summary import replay_summary

FORMAT_VERSION = 1


def _player(seat: Seat, name: str) -> dict[str, Any]:
    computer = seat.kind == Seat.Kind.COMPUTER
    return {
        "name": name,
        "username": public_username(seat.user),
        "kind": "computer" if computer else "human",
        "bot_level": seat.bot_level if computer else None,
    }


def study_importer(game: Game) -> str | None:
    """A study's label: who imported it ("deleted player" once they deleted their account);
    None for a game played here. The study's creator is the player who imported it."""
    return player_name(game.created_by) if game.is_study else None


def _entries(game: Game, summary: dict[str, Any]) -> list[dict[str, Any]]:
    """The log's entries, each move the server made for a person's seat saying why, and each
    move who made it (where its log entry says)."""
    server = summary["server_moves"]
    usernames = _mover_usernames(game, summary["movers"])
    entries = []
    for index, entry in enumerate(summary["entries"]):
        if index in server:
            entry = {**entry, "server": server[index]}
        if index in summary["movers"]:
            kind, mover_id = summary["movers"][index]
            entry = {**entry, "by": kind}
            if kind == LogEntry.Mover.PERSON and mover_id is not None:
                entry["by_player"] = usernames.get(mover_id)
        entries.append(entry)
    return entries


def _mover_usernames(game: Game, movers: dict[int, tuple[str, int | None]]) -> dict[Any, Any]:
    """Account id -> public username, for the accounts that moved: the seats' own (no query),
    and any other (one query, only when a seat's account is not the one that moved)."""
    usernames = {s.user_id: public_username(s.user) for s in game.seat_list if s.user_id}
    others = {mover_id for _kind, mover_id in movers.values() if mover_id not in usernames}
    others.discard(None)
    for user in User.objects.filter(pk__in=others):
        usernames[user.pk] = public_username(user)
    return usernames


def game_export(*, game: Game) -> dict[str, Any]:
    """The game as an export (the log from the replay cache: 1 query when it is not there).
    `game` comes with its seats (`selectors.game_get`) and has started."""
    summary = replay_summary(game=game)
    state = azul.State.from_dict(summary["final"])
    # Named as every page names the seats (computers of one level numbered), in no language in
    # particular: a file is the same for everyone who downloads it, and its names become a
    # study's seat names when imported.
    with translation.override(None):
        names = seat_names(game.seat_list)
    return {
        "format_version": FORMAT_VERSION,
        "variant": game.variant,
        "first_player": game.first_player,
        "players": [_player(seat, names[seat.position]) for seat in game.seat_list],
        "entries": _entries(game, summary),
        "result": result_view(state) if state.phase == "over" else None,
        "deals": {key: value for key, value in deals_view(game).items() if key != "verifiable"},
        "game": {
            "id": game.id,
            "status": game.status,
            "is_study": game.is_study,
            "imported_by": study_importer(game),
            "started_at": game.started_at,
            "finished_at": game.finished_at,
            "ply": game.ply,
        },
        # What other apps add (the chat, when every player allowed it): `core.slots`.
        **game_export_additions.collect(game=game),
    }
