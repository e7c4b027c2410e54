"""The board page (`games:detail`) and the board partial its script swaps in (`games:board`).

Building and rendering a board is most of a board page's cost, while what it shows changes only
with the game's version: so the board's markup (`_board.html`, and on the page the game's
actions) is rendered once per version, viewer, language and time zone (`_board_markup`), and a
GET reads the version (one small query) and that markup. Two things in it differ from one
request to the next of the same version, and are left as holes to fill: the CSRF token of its
forms and the time left to the deadline. The panels other apps add to the page (`core.slots`:
a finished game's analysis) are told what the kept markup knows of the game (whether it is a
study, its seats' names, the viewer's seat), so that they read nothing of the game again.
"""

from __future__ import annotations

import datetime
from typing import Any, TypedDict
from uuid import UUID

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.defaultfilters import timeuntil_filter
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.html import conditional_escape, format_html, format_html_join, json_script
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods

from accounts.http import AuthenticatedHttpRequest
from accounts.models import User
from core.outages.cache import cached
from core.pages.holes import CSRF_HOLE, csrf_filled
from core.slots import game_over_panels, game_page_panels
from games import effects, selectors, services
from games.errors import GameError, GameNotFound
from games.forms import MoveForm
from games.live.conditions import version_or_404
from games.models import Game
from games.presenters.board import board_log, board_page
from games.presenters.engine_words import refusal_text
from games.presenters.game import game_actions
from games.presenters.next_game import (
    MOVED_IN_PARAM,
    NextGame,
    arrival_url,
    goes_on_by_itself,
    moved_in_game,
    next_game_after_move,
    next_game_link,
)
from games.presenters.times import user_zone, user_zone_activated
from games.record.summary import replay_summary
from games.web.notes import notes_context

# Stand-ins, in the kept markup, for what each request fills in (`_with_holes_filled`), beside
# the CSRF token's (`core.pages.holes`): no template writes a NUL character, and escaping leaves it.
TIME_LEFT_HOLE = "\x00time-left\x00"
# A finished game's banner offers the player's next game, which changes with their other games
# (`_next_game_filled`).
NEXT_GAME_HOLE = "\x00next-game\x00"
# In the kept markup's key: a release that changes what `_render_board_markup` returns changes
# it, so that it never reads what an older release kept.
MARKUP_SHAPE = 5


class BoardMarkup(TypedDict):
    """A board as it is kept (`_board_markup`): its markup (`board`, and on the page `actions`),
    and what the page says and tells its panels around it."""

    id: UUID
    status: str
    turn_deadline: datetime.datetime | None
    can_move: bool
    is_study: bool
    seat_names: dict[int, str]  # by position
    viewer_position: int | None  # None for a viewer who holds no seat
    title: str  # the page's title (escaped), as the board's `data-title` has it too
    board: str
    actions: str


def _board_context(version: selectors.GameVersion, viewer: User) -> dict[str, Any]:
    """What `_board.html` reads: the game as `viewer` sees it (`presenters.board.board_page`),
    its URLs and, once it has a board, the board's parts rendered."""
    game = selectors.game_get(game_id=version.id)
    context = {
        **board_page(game, viewer),
        "is_creator": version.created_by_id == viewer.pk,
        "is_study": game.is_study,
        # A game waiting for players says when it is a rematch, and of which game.
        "rematch_of_id": game.rematch_of_id,
        "page_url": reverse("games:detail", args=[version.id]),
        "board_url": reverse("games:board", args=[version.id]),
        "api_move_url": reverse("games_api:moves", args=[version.id]),
    }
    board = context["board"]
    if board is not None:
        context.update(
            # The no-JavaScript form's choices and the page script's list of legal moves.
            move_options=format_html_join(
                "", '<option value="{}">{}</option>', ((m, m) for m in board["legal_moves"])
            ),
            legal_moves_script=json_script(board["legal_moves"], "legal-moves"),
            board_main=render_to_string("games/_board_main.html", context),
            board_side=render_to_string(
                "games/_board_side.html",
                {**context, **board_log(replay_summary(game=game), context)},
            ),
        )
    return context


def _render_board_markup(
    request: AuthenticatedHttpRequest, version: selectors.GameVersion, *, on_page: bool
) -> BoardMarkup:
    viewer = request.user
    context = _board_context(version, viewer)
    context.update(csrf_token=CSRF_HOLE, time_left=TIME_LEFT_HOLE)
    view, game_over = context["game"], context["game_over"]
    # One title for the page's <title> and the board's `data-title`, which the page's script
    # shows as a new board is swapped in (whose turn it is changes the title).
    context.update(page_title=render_to_string("games/_page_title.html", context).strip())
    # What other apps say in a finished game's banner (why it was not rated): `core.slots`,
    # read here, as the markup is rebuilt, rather than by a template tag.
    context.update(
        game_over_panels=game_over_panels.collect(request=request, game_id=version.id)
        if game_over
        else ""
    )
    if on_page:
        # On the page, the game's actions: in a finished game's banner, else below the board.
        context.update(actions=game_actions(game_id=version.id, viewer=viewer))
        context.update(actions_in_banner=bool(game_over), next_game_hole=NEXT_GAME_HOLE)
    return {
        "id": view["id"],
        "status": view["status"],
        "turn_deadline": view["turn_deadline"],
        "can_move": bool(context["board"] and context["board"]["can_move"]),
        # What the page's panels are told of the game (`game_detail`).
        "is_study": context["is_study"],
        "seat_names": context["names"],
        "viewer_position": next((p["position"] for p in view["players"] if p["is_viewer"]), None),
        "title": context["page_title"],
        "board": render_to_string("games/_board.html", context),
        "actions": (
            render_to_string("games/_game_actions.html", context)
            if on_page and not game_over
            else ""
        ),
    }


def _board_markup(
    request: AuthenticatedHttpRequest, version: selectors.GameVersion, *, on_page: bool
) -> BoardMarkup:
    """The board's markup (`board`), on the page with the game's actions (`actions`), as the
    request's user sees the game's `version`, and what the page says around it (`id`,
    `status`, `can_move`): rendered once per version, viewer, language (all in `version.key`),
    time zone (the times in it) and place (the page or the partial), then kept."""
    viewer = request.user
    zone = user_zone(viewer)
    place = "page" if on_page else "partial"

    def render_markup() -> BoardMarkup:
        with user_zone_activated(viewer):
            return _render_board_markup(request, version, on_page=on_page)

    markup = cached(
        f"games:board:{MARKUP_SHAPE}:{version.key}:{zone.key}:{place}",
        render_markup,
        selectors.VIEW_CACHE_SECONDS,
    )
    markup["board"] = _with_holes_filled(markup["board"], request, markup["turn_deadline"])
    markup["actions"] = _with_holes_filled(markup["actions"], request, markup["turn_deadline"])
    if markup["can_move"]:
        # The player has the game in front of them on their turn: no email needed to say so.
        effects.game_viewed(user_id=viewer.pk, game_id=version.id)
    return markup


def _next_game_filled(html: str, next_game: NextGame | None) -> SafeString:
    """`html` (kept markup) with the finished game's "Next game" link, or nothing there."""
    link = (
        format_html(
            '<span id="next-game" class="next-game">{}</span>',
            render_to_string("games/_next_game_link.html", {"url": next_game["url"]}),
        )
        if next_game is not None
        else ""
    )
    return mark_safe(html.replace(NEXT_GAME_HOLE, link))  # rendered, and escaped, as above


def _with_holes_filled(
    html: str, request: HttpRequest, deadline: datetime.datetime | None
) -> SafeString:
    html = csrf_filled(html, request)
    if TIME_LEFT_HOLE in html:
        html = html.replace(TIME_LEFT_HOLE, conditional_escape(timeuntil_filter(deadline)))
    return mark_safe(html)  # rendered, and escaped, by the template engine


@require_http_methods(["GET", "POST"])
def game_detail(request: AuthenticatedHttpRequest, game_id: UUID) -> HttpResponse:
    """The board. POST is the no-JavaScript move form: one legal move in notation.

    A finished game's page is public, like its replay: a visitor who is not signed in sees its
    board as a watcher does (read-only; a finished game hides nothing). Any other game asks
    them to sign in first."""
    if not request.user.is_authenticated:
        if request.method != "GET" or not _is_finished(game_id):
            return redirect_to_login(request.get_full_path())
    elif request.method == "POST":
        form = MoveForm(request.POST)
        if not form.is_valid():
            messages.error(request, _("Choose a move from the list."))
        else:
            try:
                played = services.move_submit(
                    game_id=game_id,
                    user=request.user,
                    move=form.cleaned_data["move"],
                    expected_ply=form.cleaned_data["expected_ply"],
                )
            except GameNotFound as exc:
                raise Http404(exc.message) from None
            except GameError as exc:
                messages.error(
                    request,
                    _("Your move was not played: %(reason)s") % {"reason": refusal_text(exc)},
                )
            else:
                move = form.cleaned_data["move"]
                # The player asked to go on to their next game after a move: there, unless
                # this game is still theirs to play (`presenters.next_game`).
                onward = (
                    next_game_after_move(game=played, user=request.user)
                    if goes_on_by_itself(request.user)
                    else None
                )
                messages.success(request, _("You played %(move)s.") % {"move": move})
                if onward is not None:
                    # The next game's page says in which game the move went, with a link back.
                    return redirect(arrival_url(onward, moved_in=game_id))
        return redirect("games:detail", game_id=game_id)
    version = version_or_404(game_id, request.user)
    markup = _board_markup(request, version, on_page=True)
    # A player who is not to move here is offered the game that waits for them next (read
    # fresh: it changes with their other games), which the script shows after a move too.
    next_game = None
    if (
        markup["viewer_position"] is not None
        and not markup["can_move"]
        and markup["status"] in (Game.Status.ACTIVE, Game.Status.FINISHED)
    ):
        next_game = next_game_link(user_id=request.user.pk, exclude=version.id)
    context = {
        "game": {"id": markup["id"], "status": markup["status"]},
        "page_title": mark_safe(markup["title"]),  # rendered, and escaped, by the template engine
        # Whether the board asks before sending a move (static/games/board.js).
        "confirm_moves": getattr(getattr(request.user, "profile", None), "confirm_moves", "auto"),
        "board": _next_game_filled(markup["board"], next_game),
        "actions": markup["actions"],
        "next_game": next_game,
        # Arrived here by moving on from another game after a move there: which one, to go back.
        "moved_in": moved_in_game(request.GET.get(MOVED_IN_PARAM), user=request.user),
        # What other apps show on a game's page (a finished game's analysis): `core.slots`.
        "game_page_panels": game_page_panels.collect(
            request=request,
            game_id=version.id,
            status=markup["status"],
            is_study=markup["is_study"],
            seat_names=markup["seat_names"],
            viewer_position=markup["viewer_position"],
        ),
    }
    # The viewer's private notes, read fresh (they are in no kept markup): `games.web.notes`.
    context.update(
        notes_context(
            game_id=version.id, viewer=request.user, viewer_position=markup["viewer_position"]
        )
    )
    return render(request, "games/detail.html", context)


def _is_finished(game_id: UUID) -> bool:
    return selectors.finished_games().filter(pk=game_id).exists()


@login_required
@require_GET
def game_board(request: AuthenticatedHttpRequest, game_id: UUID) -> HttpResponse:
    """The board partial the page's script swaps in; 204 when `?since=<ply>` is still current."""
    version = version_or_404(game_id, request.user)
    since = request.GET.get("since")
    if since is not None and since == str(version.ply):
        return HttpResponse(status=204)
    return HttpResponse(_board_markup(request, version, on_page=False)["board"])
