"""A game's log replayed once: the board at any ply, and what each round's wall tiling scored.

A game is its log (`LogEntry`): the board after the first N entries is the engine's state after
replaying them. Replaying from the first entry on every request would make a page for ply N cost
N entries; instead, the log is replayed once per game and ply and what that yields is kept in
the cache (`replay_summary`): the log's entries, the engine state at the start of each round
(before its deal), each round's scoring and the points each move earned. The board at any ply N
is then the state at the start of N's round plus at most one round's entries, whatever N is.

Logs are append-only, so what a game's first `ply` entries yield never changes: the cache key is
the game and its ply, and a finished game's summary is built once.
"""

from __future__ import annotations

import bisect
from typing import Any

from django.utils.translation import gettext as _

import azul
from core.outages.cache import cached
from games.errors import GameNotFound
from games.models import Game
from games.selectors import log_entries, server_moves

REPLAY_CACHE_SECONDS = 24 * 3600
"""How long a finished game's replay summary is kept: it never goes stale (it is keyed by the
game's ply and the log is never rewritten), so this only bounds the cache's memory."""

REPLAY_CACHE_SECONDS_IN_PLAY = 600
"""A game in progress has a new summary at each ply, so each is kept only while it is likely to
be looked at again (someone stepping through the game so far)."""

SUMMARY_VERSION = 3
"""Part of the cache key: bump it when the summary's shape changes, so that no process reads a
summary written by another version of this module."""


def require_started(game: Game) -> int:
    """A game that has not started has no log to replay: GameNotFound (404) says so. Returns
    the player who started the first round."""
    if game.ply == 0 or game.first_player is None:
        raise GameNotFound(_("This game has not started: there is nothing to replay yet."))
    return game.first_player


def _new_tiles(start: list[list[Any]], end: list[list[Any]]) -> list[tuple[int, int, str]]:
    """(row, column, colour) of the wall spaces filled between two walls, top row first: the
    order in which wall tiling moves tiles (each player tiles their lines top to bottom)."""
    return [
        (r, c, end[r][c])
        for r in range(5)
        for c in range(5)
        if end[r][c] is not None and start[r][c] is None
    ]


def _filled(wall: list[list[Any]]) -> int:
    """The wall as the engine's bitmask of filled spaces (`azul.wall_points` reads it)."""
    return sum(1 << (r * 5 + c) for r in range(5) for c in range(5) if wall[r][c] is not None)


def _round_scoring(
    number: int,
    start: dict[str, Any],
    end: azul.State,
    earners: dict[tuple[int, int], int],
) -> dict[str, Any]:
    """What the wall tiling that ended round `number` scored, per player.

    `start` is the state after the round's deal (`to_dict`), `end` the state once every player
    has tiled (the next round waits for its deal, or the game is over, with its bonuses). Scores
    do not change during the factory offer, so the difference is the tiling's. Each tile that
    reached the wall scores what the engine's own rule gives for it (`azul.wall_points`, on the
    wall as it stood when that tile arrived: players tile top to bottom); what the score moved
    by beyond those points is what the floor line cost, which can be less than the floor's
    penalties when the score reaches 0 (it never goes below). At the end of the game, the
    bonuses are the engine's result's.
    """
    end_data = end.to_dict()
    standings = azul.result(end).standings if end.phase == "over" else None
    players = []
    for position, (before, after) in enumerate(
        zip(start["boards"], end_data["boards"], strict=True)
    ):
        filled = _filled(before["wall"])
        lines: list[dict[str, Any]] = []
        for row, column, color in _new_tiles(before["wall"], after["wall"]):
            filled |= 1 << (row * 5 + column)
            lines.append(
                {
                    "line": row + 1,
                    "column": column + 1,
                    "color": color,
                    "points": azul.wall_points(filled, row, column),
                    "entry": earners.get((position, row)),
                }
            )
        bonus = standings[position].bonus if standings is not None else 0
        tiled = after["score"] - bonus
        players.append(
            {
                "position": position,
                "score_before": before["score"],
                "lines": lines,
                "line_points": sum(line["points"] for line in lines),
                "floor": tiled - before["score"] - sum(line["points"] for line in lines),
                "bonus": bonus if standings is not None else None,
                "score": after["score"],
            }
        )
    return {"round": number, "players": players, "final": end.phase == "over"}


def _summarize(game: Game, first_player: int, entries: list[dict[str, Any]]) -> dict[str, Any]:
    """Replay the whole log once: the checkpoints, the rounds' scoring and each move's points."""
    state = azul.new_game(game.num_players, game.variant, first_player)
    checkpoints: list[tuple[int, dict[str, Any]]] = []
    rounds: list[dict[str, Any]] = []
    tiled_after: dict[int, int] = {}  # entry index -> the round whose tiling it completed
    round_start: dict[str, Any] | None = None
    # Per round, (player, pattern line) -> the entry that earned that line's wall points: the
    # take that filled the line (the last take onto it in the round: a full line takes no more
    # tiles), or on the gray wall the move that chose its wall space.
    earners: dict[tuple[int, int], int] = {}
    for index, entry in enumerate(entries):
        if entry.get("kind") == "deal":
            checkpoints.append((index, state.to_dict()))
        state = azul.apply_entry(state, entry)
        if entry.get("kind") == "deal":
            round_start, earners = state.to_dict(), {}
        else:
            move = azul.parse_move(entry["move"])
            player = entry["player"]
            if isinstance(move, azul.Place) or move.line != azul.FLOOR:
                earners[(player, move.line)] = index
        if state.phase in ("deal", "over") and round_start is not None:
            rounds.append(_round_scoring(state.round, round_start, state, earners))
            tiled_after[index] = len(rounds) - 1
            round_start = None
    points: dict[int, list[dict[str, Any]]] = {}
    for scoring in rounds:
        for player in scoring["players"]:
            for line in player["lines"]:
                if line["entry"] is not None:
                    points.setdefault(line["entry"], []).append(line)
    return {
        "entries": entries,
        "checkpoints": checkpoints,
        "rounds": rounds,
        "tiled_after": tiled_after,
        "points": points,
        "final": state.to_dict(),
    }


def replay_summary(*, game: Game) -> dict[str, Any]:
    """The game's log replayed once, as kept in the cache for its ply (1 query when it is not):

    - `entries`: the log entries, as the engine wrote them;
    - `checkpoints`: (entry index, `State.to_dict()`) before each deal, the start of each round;
    - `rounds`: each completed round's wall tiling, per player (`_round_scoring`);
    - `tiled_after`: entry index -> index in `rounds` of the tiling that entry completed;
    - `points`: entry index -> the wall tiles (and points) that move earned at its round's tiling;
    - `final`: the state after the whole log;
    - `server_moves`: entry index -> why the server made that move for a person's seat
      (`selectors.server_moves`), for the moves it made;
    - `movers`: entry index -> (`LogEntry.Mover`, the account's id or None), for the moves
      whose log entry says who made them.
    """
    first_player = require_started(game)

    def summarize() -> dict[str, Any]:
        # Up to the ply the game row says, so that an entry appended since does not slip in.
        records = log_entries(game=game, up_to_ply=game.ply)
        summary = _summarize(game, first_player, [record["data"] for record in records])
        seats = getattr(game, "seat_list", None)
        if seats is None:
            seats = list(game.seats.all())
        summary["server_moves"] = server_moves(seats=seats, entries=records)
        summary["movers"] = {
            index: (record["mover_kind"], record["mover_id"])
            for index, record in enumerate(records)
            if record["mover_kind"]
        }
        return summary

    finished = game.status == Game.Status.FINISHED
    return cached(
        f"games:replay:{SUMMARY_VERSION}:{game.id}:{game.ply}",
        summarize,
        REPLAY_CACHE_SECONDS if finished else REPLAY_CACHE_SECONDS_IN_PLAY,
    )


def state_at(summary: dict[str, Any], ply: int) -> azul.State:
    """The engine state after the first `ply` entries: the start of that point's round, plus at
    most that round's entries."""
    checkpoints = summary["checkpoints"]
    at = bisect.bisect_right([index for index, _ in checkpoints], ply) - 1
    start, data = checkpoints[at]
    state = azul.State.from_dict(data)
    for entry in summary["entries"][start:ply]:
        state = azul.apply_entry(state, entry)
    return state
