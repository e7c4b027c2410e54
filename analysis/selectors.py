"""Reads of post-game analyses: what the game page and the API show."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.core.cache import cache

from accounts.models import User
from analysis.models import Analysis
from games.models import Game
from games.presenters.names import seat_names

COSTLIEST = 3
"""How many of a player's costliest moves are marked and shown on their position's board."""

CLOSE_TO_BEST = 1.0
"""A move that lost at most this many points against the best move found counts as close to
it: the search's own spread between near-equal moves is about this wide, so a player reads the
share of such moves as how often they played as well as the computer could tell."""

PANEL_CACHE_SECONDS = 60
"""How long a finished game's analysis panel is kept, as rendered for a viewer's seat and
language (`analysis.panels`, `panel_cache_key`). Every write of an analysis drops it
(`analysis_forget`); this bounds how long one read just before such a write and stored just
after it can be out of date (as `games.selectors`' `WAITING_COUNT_SECONDS` does for the count of
games waiting)."""

# The viewer's seat in a game (None: a visitor), each a panel of its own.
_VIEWER_POSITIONS: tuple[int | None, ...] = (None, 0, 1, 2, 3)


@dataclass(frozen=True)
class AnalysisRecord:
    """What the pages show of a game's analysis: its status (None: nobody asked for one), the
    search's time per position and the judged moves (`Analysis.moves`)."""

    status: str | None = None
    seconds_per_move: float | None = None
    moves: list[dict[str, Any]] = field(default_factory=list)


def analysis_for(*, game_id: Any) -> Analysis | None:
    """The game's analysis, if anyone asked for one (1 query)."""
    return Analysis.objects.filter(pk=game_id).first()


def analysis_record(*, game_id: Any) -> AnalysisRecord:
    """The game's analysis as the pages show it (1 query)."""
    analysis = analysis_for(game_id=game_id)
    if analysis is None:
        return AnalysisRecord()
    return AnalysisRecord(analysis.status, analysis.seconds_per_move, analysis.moves)


def panel_cache_key(*, game_id: Any, viewer_position: int | None, language: str) -> str:
    """Where the game page's analysis panel is kept for a viewer's seat and language."""
    return f"analysis:panel:{game_id}:{viewer_position}:{language}"


def analysis_forget(*, game_id: Any) -> None:
    """The game's analysis changed: its page reads it afresh, for every seat and language."""
    cache.delete_many(
        [
            panel_cache_key(game_id=game_id, viewer_position=position, language=language)
            for position in _VIEWER_POSITIONS
            for language, _name in settings.LANGUAGES
        ]
    )


def _player_moves(moves: list[dict[str, Any]], position: int) -> dict[str, Any]:
    """A player's moves as listed: the judged ones (their loss, the costliest marked) and, in
    their place, the ones the server made for them (`by_server`: no loss, never costly)."""
    mine = [dict(m) for m in moves if m["position"] == position]
    judged = [m for m in mine if not m.get("by_server")]
    ranked = sorted((m for m in judged if m["loss"] > 0), key=lambda m: (-m["loss"], m["ply"]))
    costliest = {m["ply"] for m in ranked[:COSTLIEST]}
    for move in mine:
        move["by_server"] = bool(move.get("by_server"))
        if move["by_server"]:
            move.update(best=None, loss=None, rollouts=None)
        move["costly"] = move["ply"] in costliest
        move["best_played"] = not move["by_server"] and move["played"] == move["best"]
    # A sum of losses grows with the length of the game and alarms even a winner: the page
    # shows the average per move and the share of moves close to the best instead (issue #58).
    total_loss = sum(m["loss"] for m in judged)
    close = sum(1 for m in judged if m["loss"] <= CLOSE_TO_BEST)
    return {
        "moves": mine,
        "judged_count": len(judged),
        "by_server_count": len(mine) - len(judged),
        "costliest": [m for m in mine if m["costly"]],
        "total_loss": round(total_loss, 1),
        "average_loss": round(total_loss / len(judged), 1) if judged else None,
        "close_to_best": close,
        "close_to_best_percent": round(100 * close / len(judged)) if judged else None,
        "best_found": sum(1 for m in judged if m["best_played"] or m["loss"] == 0),
    }


def analysis_view(*, game: Game, viewer: User | AnonymousUser | None) -> dict[str, Any]:
    """The analysis as shown: its status, and per player of the game (the viewer first) their
    judged moves with the costliest marked. `game` comes with `seat_list` (1 query: the
    analysis)."""
    viewer_id = getattr(viewer, "pk", None)
    viewer_position = next(
        (s.position for s in game.seat_list if viewer_id is not None and s.user_id == viewer_id),
        None,
    )
    return analysis_shown(
        analysis_record(game_id=game.pk),
        finished=game.status == Game.Status.FINISHED,
        is_study=game.is_study,
        seat_names=seat_names(game.seat_list),
        viewer_position=viewer_position,
    )


def analysis_shown(
    analysis: AnalysisRecord,
    *,
    finished: bool,
    is_study: bool,
    seat_names: Mapping[int, str],
    viewer_position: int | None,
) -> dict[str, Any]:
    """`analysis_view` from what the caller knows of the game (no query): whether it is
    finished, a study, its seats' names by position and the viewer's position (None for one
    who holds no seat)."""
    may_request = finished and not is_study and viewer_position is not None
    view: dict[str, Any] = {
        "status": analysis.status,
        "may_request": may_request and analysis.status in (None, Analysis.Status.FAILED),
        "seconds_per_move": analysis.seconds_per_move,
        "players": [],
    }
    if analysis.status != Analysis.Status.DONE:
        return view
    judged = {m["position"] for m in analysis.moves}
    # The viewer's seat first, then by position.
    ordered = sorted(seat_names, key=lambda position: (position != viewer_position, position))
    for position in ordered:
        if position not in judged:
            continue
        view["players"].append(
            {
                "position": position,
                "name": seat_names[position],
                "is_viewer": position == viewer_position,
                **_player_moves(analysis.moves, position),
            }
        )
    return view


def judged_move_at(*, game: Game, ply: int) -> dict[str, Any] | None:
    """The judged move played at log entry `ply`, if the game's analysis is done and judged it
    (not a move the server made for a person)."""
    analysis = analysis_for(game_id=game.pk)
    if analysis is None or analysis.status != Analysis.Status.DONE:
        return None
    return next((m for m in analysis.moves if m["ply"] == ply and not m.get("by_server")), None)
