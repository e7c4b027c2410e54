"""The analysis on the game's pages: its panel on a finished game's page, and on a replay's
position the judgement of the move played from there. Games' pages show them through
`core.slots` (connected in `AnalysisConfig.ready`), so games imports nothing of analysis."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.http import HttpRequest
from django.template.loader import render_to_string
from django.utils.translation import get_language

from analysis import selectors
from core.outages.cache import cached
from core.pages.holes import CSRF_HOLE
from core.slots import Panel
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
    reads only the analysis. It changes only when the analysis does, and rendering it was a
    seventh of a finished game's page: so it is kept as rendered for the viewer's seat and
    language until then (`selectors.panel_cache_key`, dropped by `analysis_forget`), and a
    page reads it from the cache, with no query."""
    if status != Game.Status.FINISHED:
        return None
    if is_study:
        return Panel("analysis/_panel.html", {"analysis": None})

    def render() -> str:
        analysis = selectors.analysis_shown(
            selectors.analysis_record(game_id=game_id),
            finished=True,
            is_study=False,
            seat_names=seat_names,
            viewer_position=viewer_position,
        )
        # The request form's token is filled in for each request (`core.slots`).
        context = {"analysis": analysis, "game_id": game_id, "csrf_token": CSRF_HOLE}
        return render_to_string("analysis/_panel.html", context)

    key = selectors.panel_cache_key(
        game_id=game_id, viewer_position=viewer_position, language=get_language()
    )
    return Panel.rendered(cached(key, render, selectors.PANEL_CACHE_SECONDS))


def replay_position_panel(
    request: HttpRequest, *, game: Game, ply: int, **page: Any
) -> Panel | None:
    """On a finished game's replay, the analysis of the move played from position `ply`."""
    if game.status != Game.Status.FINISHED:
        return None
    judged = selectors.judged_move_at(game=game, ply=ply)
    return Panel("analysis/_judged_move.html", {"judged": judged, "game": game})
