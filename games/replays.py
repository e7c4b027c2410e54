"""Replays: a game's board at any point of its log, and what each round's wall tiling scored.

Reads only. A game is its log (`LogEntry`): the board after the first N entries is the engine's
state after replaying them. Replaying from the first entry on every request would make a page for
ply N cost N entries; instead, the log is replayed once per game and ply and what that yields is
kept in the cache (`replay_summary`): the log's entries, the engine state at the start of each
round (before its deal), each round's scoring and the points each move earned. The board at any
ply N is then the state at the start of N's round plus at most one round's entries, whatever N is.

Logs are append-only, so what a game's first `ply` entries yield never changes: the cache key is
the game and its ply, and a finished game's summary is built once.

Who may see a replay: a finished game is public, to anyone signed in or not; a game in progress
is seen, up to now, by whoever may see its board today (any signed-in user: games are public to
watch, see `games.selectors`).
"""

from __future__ import annotations

import bisect
from typing import Any

from django.contrib.auth.base_user import AbstractBaseUser
from django.core.cache import cache
from django.utils.translation import gettext as _

import azul
from accounts.names import player_name
from azul.rules import _wall_points
from games.display import board_display
from games.errors import GameError, GameNotFound
from games.models import Game, LogEntry, Seat
from games.selectors import resigned_positions
from games.standings import resigned_last

REPLAY_CACHE_SECONDS = 24 * 3600
"""How long a finished game's replay summary is kept: it never goes stale (it is keyed by the
game's ply and the log is never rewritten), so this only bounds the cache's memory."""

REPLAY_CACHE_SECONDS_IN_PLAY = 600
"""A game in progress has a new summary at each ply, so each is kept only while it is likely to
be looked at again (someone stepping through the game so far)."""

SUMMARY_VERSION = 1
"""Part of the cache key: bump it when the summary's shape changes, so that no process reads a
summary written by another version of this module."""

CHART_WIDTH = 480
CHART_HEIGHT = 200
CHART_PAD = {"left": 34, "right": 12, "top": 12, "bottom": 28}


class BadPly(GameError):
    """A `?ply=` that is not a point of the game's log."""

    status_code = 400
    code = "bad_ply"


# -- who may see it --------------------------------------------------------------------------------


def replay_is_public(*, game: Game) -> bool:
    """A finished game can be replayed (and exported) by anyone, signed in or not."""
    return game.status == Game.Status.FINISHED


def replay_visible(*, game: Game, viewer: AbstractBaseUser | None) -> bool:
    """Whether `viewer` may replay `game` (up to now): anyone once it is finished; before that,
    whoever may see its board today, which is any signed-in user."""
    if replay_is_public(game=game):
        return True
    return viewer is not None and viewer.is_authenticated


def require_started(game: Game) -> None:
    """A game that has not started has no log to replay: GameNotFound (404) says so."""
    if game.ply == 0 or game.first_player is None:
        raise GameNotFound(_("This game has not started: there is nothing to replay yet."))


def parse_ply(raw: str | None, *, last: int) -> int:
    """The ply asked for by `?ply=` (0 when absent): a whole number from 0 (before the first
    deal) to `last` (the whole log); anything else is BadPly, a 400 that says what is allowed.

    Refused rather than clamped: a link to a point that does not exist is a broken link, and
    showing another point instead would let it pass unnoticed."""
    if raw is None or raw == "":
        return 0
    text = raw.strip()
    if not (text.isascii() and text.isdigit()) or len(text) > 9:
        raise BadPly(
            _("ply must be a whole number from 0 to %(last)s, not %(raw)s.")
            % {"last": last, "raw": repr(raw[:20])}
        )
    ply = int(text)
    if ply > last:
        raise BadPly(
            _("ply must be from 0 to %(last)s: this game's log has %(last)s entries.")
            % {"last": last}
        )
    return ply


# -- the summary: the log replayed once ------------------------------------------------------------


def _log_entries(game: Game) -> list[dict[str, Any]]:
    """The game's first `game.ply` log entries as the engine wrote them (1 query). Read up to the
    ply the game row says, so that an entry appended since then does not slip in."""
    rows = (
        LogEntry.objects.filter(game_id=game.id, number__lt=game.ply)
        .order_by("number")
        .values_list("data", flat=True)
    )
    return list(rows)


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
    reached the wall scores what the engine's own rule gives for it (`_wall_points`, on the wall
    as it stood when that tile arrived: players tile top to bottom); what the score moved by
    beyond those points is what the floor line cost, which can be less than the floor's
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
        lines = []
        for row, column, color in _new_tiles(before["wall"], after["wall"]):
            filled |= 1 << (row * 5 + column)
            lines.append(
                {
                    "line": row + 1,
                    "column": column + 1,
                    "color": color,
                    "points": _wall_points(filled, row, column),
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


def _summarize(game: Game, entries: list[dict[str, Any]]) -> dict[str, Any]:
    """Replay the whole log once: the checkpoints, the rounds' scoring and each move's points."""
    state = azul.new_game(game.num_players, game.variant, game.first_player)
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
    - `final`: the state after the whole log.
    """
    require_started(game)
    key = f"games:replay:{SUMMARY_VERSION}:{game.id}:{game.ply}"
    summary = cache.get(key)
    if summary is None:
        summary = _summarize(game, _log_entries(game))
        finished = game.status == Game.Status.FINISHED
        timeout = REPLAY_CACHE_SECONDS if finished else REPLAY_CACHE_SECONDS_IN_PLAY
        cache.set(key, summary, timeout)
    return summary


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


# -- the page --------------------------------------------------------------------------------------


def _seat_name(seat: Seat) -> str:
    if seat.kind == Seat.Kind.COMPUTER and not seat.name:
        return _("Computer (%(level)s)") % {"level": seat.get_bot_level_display().lower()}
    if seat.user is not None:
        return player_name(seat.user)
    return seat.name or _player(seat.position + 1)


def _player(number: Any) -> str:
    return _("Player %(number)s") % {"number": number}


def _players(game: Game, state: azul.State) -> list[dict[str, Any]]:
    """The seats as `display.board_display` reads them, to move as of the replayed `state`."""
    to_move = set(state.to_move)
    return [
        {
            "position": seat.position,
            "kind": seat.kind,
            "username": seat.user.get_username() if seat.user is not None else None,
            "display_name": _seat_name(seat),
            "autoplay": seat.autoplay,
            "away_until": None,
            "is_to_move": seat.position in to_move,
        }
        for seat in game.seat_list
    ]


def _deal_text(tiles: list[list[str]]) -> str:
    empty = _("(empty)")
    return "; ".join(
        f"F{i} {' '.join(factory) if factory else empty}" for i, factory in enumerate(tiles, 1)
    )


def _move_rows(summary: dict[str, Any], names: dict[int, str], ply: int) -> list[dict[str, Any]]:
    """The move list: one row per log entry, each a link to the point just after it, with the
    points the move earned at its round's tiling and, after the entry that ended a round's
    tiling, that round's scoring."""
    rows = []
    round_number = 0
    rounds, tiled_after, points = summary["rounds"], summary["tiled_after"], summary["points"]
    for index, entry in enumerate(summary["entries"]):
        row: dict[str, Any] = {"ply": index + 1, "current": index + 1 == ply}
        if entry.get("kind") == "deal":
            round_number += 1
            row.update(kind="deal", round=round_number, text=_deal_text(entry.get("tiles", [])))
        else:
            player = entry.get("player")
            earned = points.get(index, [])
            row.update(
                kind="move",
                player=player,
                name=names.get(player, _player(player)),
                move=entry.get("move", ""),
                timeout=bool(entry.get("timeout")),
                earned=earned,
                earned_total=sum(line["points"] for line in earned),
            )
        if index in tiled_after:
            row["tiling"] = _with_names(rounds[tiled_after[index]], names)
        rows.append(row)
    return rows


def _with_names(scoring: dict[str, Any], names: dict[int, str]) -> dict[str, Any]:
    return {
        **scoring,
        "players": [{**p, "name": names.get(p["position"], "")} for p in scoring["players"]],
    }


def _nice_top(value: int) -> int:
    """The chart's top score: the highest score rounded up to a multiple of 10 (at least 10)."""
    return max(10, -(-value // 10) * 10)


def score_chart(rounds: list[dict[str, Any]], names: dict[int, str]) -> dict[str, Any] | None:
    """Every player's score after each round as SVG coordinates (the template draws them as
    polylines); None before the first round is tiled."""
    if not rounds:
        return None
    width, height, pad = CHART_WIDTH, CHART_HEIGHT, CHART_PAD
    top = _nice_top(max(p["score"] for r in rounds for p in r["players"]))
    plot_w = width - pad["left"] - pad["right"]
    plot_h = height - pad["top"] - pad["bottom"]
    count = len(rounds)

    def x(round_index: int) -> float:
        return round(pad["left"] + plot_w * round_index / count, 1)

    def y(score: int) -> float:
        return round(pad["top"] + plot_h * (1 - score / top), 1)

    series = []
    for position in sorted(names):
        scores = [0] + [r["players"][position]["score"] for r in rounds]
        dots = [
            {"x": x(i), "y": y(s), "round": i, "score": s} for i, s in enumerate(scores) if i > 0
        ]
        series.append(
            {
                "position": position,
                "name": names[position],
                "points": " ".join(f"{x(i)},{y(s)}" for i, s in enumerate(scores)),
                "dots": dots,
                "final": scores[-1],
            }
        )
    step = top // 5
    return {
        "width": width,
        "height": height,
        "series": series,
        "y_ticks": [{"value": v, "y": y(v)} for v in range(0, top + 1, step)],
        "x_ticks": [{"round": i, "x": x(i)} for i in range(count + 1)],
        "left": pad["left"],
        "right": width - pad["right"],
        "bottom": height - pad["bottom"],
        "top": pad["top"],
        "label_y": height - 6,
    }


def _point_text(state: azul.State, ply: int, summary: dict[str, Any], names: dict) -> str:
    """One line on what the board shows: the last entry, and what comes next."""
    if ply == 0:
        return _("Before the first deal.")
    entry = summary["entries"][ply - 1]
    if entry.get("kind") == "deal":
        last = _("Round %(round)s dealt.") % {"round": state.round}
    else:
        player = entry.get("player")
        last = _("%(name)s played %(move)s.") % {
            "name": names.get(player, _player(player)),
            "move": entry.get("move"),
        }
    if state.phase == "over":
        return _("%(last)s Game over.") % {"last": last}
    if state.phase == "deal":
        return _("%(last)s Round %(round)s tiled; the next deal follows.") % {
            "last": last,
            "round": state.round,
        }
    waiting = ", ".join(names.get(p, _player(p)) for p in state.to_move)
    if state.phase == "tile":
        return _("%(last)s Wall tiling: %(waiting)s to choose.") % {
            "last": last,
            "waiting": waiting,
        }
    return _("%(last)s %(waiting)s to move.") % {"last": last, "waiting": waiting}


def replay_page(*, game: Game, ply: int) -> dict[str, Any]:
    """Everything the replay page shows at `ply` (0 to `game.ply`, see `parse_ply`): the board
    after that many log entries, the move list with each round's scoring, and the score chart.

    `game` comes with its seats (`selectors.game_get`). No query beyond the log's, and none at
    all when the game's summary is in the cache; the engine replays at most one round.
    """
    summary = replay_summary(game=game)
    state = state_at(summary, ply)
    state_data = state.to_dict()
    players = _players(game, state)
    names = {p["position"]: p["display_name"] for p in players}
    view = {
        "state": state_data,
        "players": players,
        "viewer_seat": None,
        "viewer_can_move": False,
        "legal_moves": [],
    }
    last = game.ply
    rows = _move_rows(summary, names, ply)
    final = summary["final"]
    result = None
    if final["phase"] == "over":
        # As the site ranks it: players who resigned last (`standings.resigned_last`).
        outcome = resigned_last(azul.result(azul.State.from_dict(final)), resigned_positions(game))
        result = [
            {"name": names[s.player], "score": s.score, "place": s.place, "bonus": s.bonus}
            for s in sorted(outcome.standings, key=lambda s: (s.place, s.player))
        ]
    return {
        "game": game,
        "ply": ply,
        "last_ply": last,
        "prev_ply": ply - 1 if ply > 0 else None,
        "next_ply": ply + 1 if ply < last else None,
        # Where the round of this point starts and the next one does, for the round buttons.
        "round_start_ply": _round_start(summary, ply),
        "next_round_ply": _next_round(summary, ply),
        "round_starts": [index + 1 for index, _ in summary["checkpoints"]],
        "point": {
            "state": state_data,
            "round": state.round,
            "phase": state.phase,
            "scores": state.scores,
            "text": _point_text(state, ply, summary, names),
        },
        "board": board_display(view),
        # What `_board_main.html` reads of the game: "to move" badges are shown while the
        # replayed point is still being played.
        "board_game": {"status": "finished" if state.phase == "over" else "active"},
        "rows": rows,
        "rounds": [_with_names(r, names) for r in summary["rounds"]],
        "chart": score_chart(summary["rounds"], names),
        "result": result,
        "names": names,
    }


def _round_start(summary: dict[str, Any], ply: int) -> int | None:
    """The ply just after the deal of the round before the one shown (for "previous round")."""
    starts = [index + 1 for index, _ in summary["checkpoints"]]
    earlier = [s for s in starts if s < ply]
    return earlier[-1] if earlier else (0 if ply > 0 else None)


def _next_round(summary: dict[str, Any], ply: int) -> int | None:
    """The ply just after the next round's deal (for "next round")."""
    later = [index + 1 for index, _ in summary["checkpoints"] if index + 1 > ply]
    return later[0] if later else None
