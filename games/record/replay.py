"""Replays: who may see one, which point of the log a link asks for, and the replay page at it.

The board at any point comes from the game's log replayed once (`games.record.summary`); the
move list, the names and the deal texts from the presenters every page uses; the score chart's
geometry from `games.record.chart`. Reads only.

Who may see a replay: a finished game is public, to anyone signed in or not; a game in progress
is seen, up to now, by whoever may see its board today (any signed-in user: games are public to
watch, see `games.selectors`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.utils.translation import gettext as _

import azul
from accounts.models import User
from games.errors import GameError
from games.models import Game
from games.presenters.board import board_display
from games.presenters.moves import move_rows, move_text, with_names
from games.presenters.names import (
    game_title,
    players_title,
    position_name,
    public_username,
    seat_names,
)
from games.record.chart import score_chart
from games.record.export import study_importer
from games.record.summary import replay_summary, require_started, state_at
from games.selectors import resigned_positions
from games.standings import resigned_last

__all__ = [
    "BadPly",
    "parse_ply",
    "replay_is_public",
    "replay_page",
    "replay_points",
    "replay_visible",
    "require_started",
]


class BadPly(GameError):
    """A `?ply=` that is not a point of the game's log."""

    status_code = 400
    code = "bad_ply"


# -- who may see it --------------------------------------------------------------------------------


def replay_is_public(*, game: Game) -> bool:
    """A finished game can be replayed (and exported) by anyone, signed in or not."""
    return game.status == Game.Status.FINISHED


def replay_visible(*, game: Game, viewer: User | AnonymousUser | None) -> bool:
    """Whether `viewer` may replay `game` (up to now): anyone once it is finished; before that,
    whoever may see its board today, which is any signed-in user."""
    if replay_is_public(game=game):
        return True
    return viewer is not None and viewer.is_authenticated


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


# -- the page --------------------------------------------------------------------------------------


def _players(game: Game, state: azul.State) -> list[dict[str, Any]]:
    """The seats as `board_display` reads them, to move as of the replayed `state`."""
    to_move = set(state.to_move)
    names = seat_names(game.seat_list)
    return [
        {
            "position": seat.position,
            "kind": seat.kind,
            "username": public_username(seat.user),
            "display_name": names[seat.position],
            "autoplay": seat.autoplay,
            "away_until": None,
            "is_to_move": seat.position in to_move,
        }
        for seat in game.seat_list
    ]


def _point_text(
    state: azul.State, ply: int, summary: dict[str, Any], names: Mapping[int, str]
) -> str:
    """One line on what the board shows: the last entry, and what comes next."""
    if ply == 0:
        return _("Before the first deal.")
    entry = summary["entries"][ply - 1]
    if entry.get("kind") == "deal":
        last = _("Round %(round)s dealt.") % {"round": state.round}
    else:
        player = entry.get("player")
        last = _("%(name)s played %(move)s.") % {
            "name": names.get(player) or position_name(player),
            "move": move_text(entry.get("move", "")),
        }
    if state.phase == "over":
        return _("%(last)s Game over.") % {"last": last}
    if state.phase == "deal":
        return _("%(last)s Round %(round)s tiled; the next deal follows.") % {
            "last": last,
            "round": state.round,
        }
    waiting = ", ".join(names.get(p) or position_name(p) for p in state.to_move)
    if state.phase == "tile":
        return _("%(last)s Wall tiling: %(waiting)s to choose.") % {
            "last": last,
            "waiting": waiting,
        }
    return _("%(last)s %(waiting)s to move.") % {"last": last, "waiting": waiting}


def _round_starts(summary: dict[str, Any]) -> list[int]:
    """The plies just after each round's deal: where the round buttons go."""
    return [index + 1 for index, _state in summary["checkpoints"]]


def _previous_round_ply(summary: dict[str, Any], ply: int) -> int | None:
    """The ply just after the deal of the round before the one shown (for "previous round")."""
    earlier = [start for start in _round_starts(summary) if start < ply]
    return earlier[-1] if earlier else (0 if ply > 0 else None)


def _next_round_ply(summary: dict[str, Any], ply: int) -> int | None:
    """The ply just after the next round's deal (for "next round")."""
    later = [start for start in _round_starts(summary) if start > ply]
    return later[0] if later else None


def _result(game: Game, final: dict[str, Any], names: Mapping[int, str]) -> list[dict] | None:
    """A finished game's standings, as the site ranks them: players who resigned last
    (`standings.resigned_last`)."""
    if final["phase"] != "over":
        return None
    outcome = resigned_last(azul.result(azul.State.from_dict(final)), resigned_positions(game))
    return [
        {"name": names[s.player], "score": s.score, "place": s.place, "bonus": s.bonus}
        for s in sorted(outcome.standings, key=lambda s: (s.place, s.player))
    ]


def replay_page(*, game: Game, ply: int) -> dict[str, Any]:
    """Everything the replay page shows at `ply` (0 to `game.ply`, see `parse_ply`): the board
    after that many log entries, the move list with each round's scoring, and the score chart.

    `game` comes with its seats (`selectors.game_get`). No query beyond the log's, and none at
    all when the game's summary is in the cache; the engine replays at most one round.
    """
    summary = replay_summary(game=game)
    page = _point(game, summary, ply)
    names = page["names"]
    return page | {
        "rows": move_rows(summary, names, current_ply=ply),
        "rounds": [with_names(r, names) for r in summary["rounds"]],
        "chart": score_chart(summary["rounds"], names),
        "result": _result(game, summary["final"], names),
    }


def replay_points(*, game: Game) -> list[dict[str, Any]]:
    """The replay page at every point of the log so far, 0 to `game.ply` (a game in progress:
    up to now, nothing past it), from one summary: what the page's script steps through without
    asking the server again (`games/_replay_point.html`)."""
    summary = replay_summary(game=game)
    return [_point(game, summary, ply) for ply in range(game.ply + 1)]


def _point(game: Game, summary: dict[str, Any], ply: int) -> dict[str, Any]:
    """What changes from one point to the next: the board, the line on it, the buttons."""
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
    return {
        "game": game,
        # A study says who imported it (no query once the first point has read it).
        "imported_by": study_importer(game),
        "ply": ply,
        "last_ply": last,
        "prev_ply": ply - 1 if ply > 0 else None,
        "next_ply": ply + 1 if ply < last else None,
        # Where the round of this point starts and the next one does, for the round buttons.
        "round_start_ply": _previous_round_ply(summary, ply),
        "next_round_ply": _next_round_ply(summary, ply),
        "round_starts": _round_starts(summary),
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
        "names": names,
        # Who plays it, and where the game is now (not at the point shown).
        "players_title": players_title([names[p["position"]] for p in players]),
        "title": game_title(
            [names[p["position"]] for p in players],
            status=game.status,
            round_number=summary["final"]["round"],
        ),
    }
