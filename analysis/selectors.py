"""Reads of post-game analyses: what the game page and the API show."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.base_user import AbstractBaseUser

from accounts.names import player_name
from analysis.models import Analysis
from games.models import Game

COSTLIEST = 3
"""How many of a player's costliest moves are marked and shown on their position's board."""


def analysis_for(*, game: Game) -> Analysis | None:
    return Analysis.objects.filter(pk=game.pk).first()


def _player_moves(moves: list[dict[str, Any]], position: int) -> dict[str, Any]:
    mine = [dict(m) for m in moves if m["position"] == position]
    ranked = sorted((m for m in mine if m["loss"] > 0), key=lambda m: (-m["loss"], m["ply"]))
    costliest = {m["ply"] for m in ranked[:COSTLIEST]}
    for move in mine:
        move["costly"] = move["ply"] in costliest
        move["best_played"] = move["played"] == move["best"]
    return {
        "moves": mine,
        "costliest": [m for m in mine if m["costly"]],
        "total_loss": round(sum(m["loss"] for m in mine), 1),
        "best_found": sum(1 for m in mine if m["best_played"] or m["loss"] == 0),
    }


def analysis_view(*, game: Game, viewer: AbstractBaseUser | None) -> dict[str, Any]:
    """The analysis as shown: its status, and per player of the game (the viewer first) their
    judged moves with the costliest marked. `game` comes with `seat_list`."""
    analysis = analysis_for(game=game)
    seats = game.seat_list
    viewer_id = getattr(viewer, "pk", None)
    may_request = (
        game.status == Game.Status.FINISHED
        and not game.is_study
        and viewer_id is not None
        and any(seat.user_id == viewer_id for seat in seats)
    )
    view: dict[str, Any] = {
        "status": analysis.status if analysis else None,
        "may_request": may_request and (analysis is None or analysis.status == "failed"),
        "seconds_per_move": analysis.seconds_per_move if analysis else None,
        "players": [],
    }
    if analysis is None or analysis.status != Analysis.Status.DONE:
        return view
    judged = {m["position"] for m in analysis.moves}
    ordered = sorted(seats, key=lambda s: (s.user_id != viewer_id, s.position))
    for seat in ordered:
        if seat.position not in judged:
            continue
        view["players"].append(
            {
                "position": seat.position,
                "name": player_name(seat.user) if seat.user_id else seat.name,
                "is_viewer": viewer_id is not None and seat.user_id == viewer_id,
                **_player_moves(analysis.moves, seat.position),
            }
        )
    return view


def judged_move_at(*, game: Game, ply: int) -> dict[str, Any] | None:
    """The judged move played at log entry `ply`, if the game's analysis is done and judged it."""
    analysis = analysis_for(game=game)
    if analysis is None or analysis.status != Analysis.Status.DONE:
        return None
    return next((m for m in analysis.moves if m["ply"] == ply), None)
