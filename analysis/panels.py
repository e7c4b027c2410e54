"""The analysis on the game's pages: its panel on a finished game's page, and on a replay's
position the judgement of the move played from there. Games' pages show them through
`core.panels` (registered in `AnalysisConfig.ready`), so games imports nothing of analysis."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.http import HttpRequest
from django.middleware.csrf import get_token

from analysis import selectors
from core.panels import Panel, panel_register
from games.models import Game


def game_page_panel(
    request: HttpRequest,
    *,
    game_id: Any,
    status: str,
    is_study: bool,
    seat_names: Mapping[int, str],
    viewer_position: int | None,
    **page: Any,
) -> Panel | None:
    """The analysis panel of a finished game's page (none for a game in progress or a study).

    The page passes what it already shows of the game (whether it is a study, its seats' names
    by position, the viewer's position: None for one who holds no seat), so that the panel
    reads only the analysis, and that from the cache while it is unchanged
    (`selectors.analysis_record_cached`: no query then)."""
    if status != Game.Status.FINISHED:
        return None
    if is_study:
        return Panel("analysis/_panel.html", {"analysis": None})
    analysis = selectors.analysis_shown(
        selectors.analysis_record_cached(game_id=game_id),
        finished=True,
        is_study=False,
        seat_names=seat_names,
        viewer_position=viewer_position,
    )
    context = {"analysis": analysis, "game_id": game_id}
    if analysis["may_request"]:  # the request form's token; the page has its own for the rest
        context["csrf_token"] = get_token(request)
    return Panel("analysis/_panel.html", context)


def replay_position_panel(request: HttpRequest, *, game: Game, ply: int) -> Panel | None:
    """On a finished game's replay, the analysis of the move played from position `ply`."""
    if game.status != Game.Status.FINISHED:
        return None
    judged = selectors.judged_move_at(game=game, ply=ply)
    return Panel("analysis/_judged_move.html", {"judged": judged, "game": game})


def panels_register() -> None:
    panel_register("game_page", game_page_panel)
    panel_register("replay_position", replay_position_panel)
