"""Game pages: thin views over `games.services` (writes) and `games.selectors` (reads)."""

from __future__ import annotations

import zoneinfo
from typing import Any
from uuid import UUID

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.core.cache import cache
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html_join, json_script
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from games import replays, selectors, services
from games.display import board_display
from games.errors import GameError, GameNotFound
from games.filters import GameHistoryFilter
from games.forms import GameCreateForm, MoveForm
from notifications.services import game_seen


def _viewer_tz(user: Any) -> zoneinfo.ZoneInfo:
    try:
        return zoneinfo.ZoneInfo(user.profile.time_zone)
    except (AttributeError, LookupError, ValueError, zoneinfo.ZoneInfoNotFoundError):
        return zoneinfo.ZoneInfo("UTC")


def _version_or_404(game_id: UUID, viewer: Any) -> selectors.GameVersion:
    try:
        return selectors.game_version(game_id=game_id, viewer=viewer)
    except GameNotFound as exc:
        raise Http404(exc.message) from None


def _log_rows(log: list[dict[str, Any]], names: dict[int, str]) -> list[dict[str, Any]]:
    rows = []
    round_number = 0
    for entry in log:
        if entry["kind"] == "deal":
            round_number += 1
            rows.append({"kind": "deal", "round": round_number, "text": entry["text"]})
        else:
            player = entry["player"]
            rows.append(
                {
                    "kind": "move",
                    "name": names.get(player, f"Seat {player}"),
                    "move": entry["move"],
                    "timeout": entry["timeout"],
                }
            )
    return rows


def _game_context(game: Any, viewer: Any) -> dict[str, Any]:
    """Everything `_board.html` shows about the game, as `viewer` sees it."""
    view = selectors.game_view(game=game, viewer=viewer)
    board = board_display(view) if view["state"] else None
    names = {p["position"]: p["display_name"] or p["username"] for p in view["players"]}
    boards = board["boards"] if board else []
    to_move = set(view["to_move"])
    result_rows = []
    if view["result"]:
        players = {p["position"]: p for p in view["players"]}
        for standing in sorted(view["result"]["standings"], key=lambda s: s["place"]):
            player = players[standing["position"]]
            result_rows.append({**standing, "name": names[standing["position"]], **player})
    viewer_board = next((b for b in boards if b["is_viewer"]), None)
    return {
        "game": view,
        "board": board,
        "names": names,
        "viewer_board": viewer_board,
        "tiling_line": viewer_board["tiling_line"] if viewer_board else None,
        "viewer_seat": next((p for p in view["players"] if p["is_viewer"]), None),
        "to_move_names": [b["name"] for b in boards if b["position"] in to_move],
        "result_rows": result_rows,
        "has_open_seat": any(p["is_open"] for p in view["players"]),
        "page_url": reverse("games:detail", args=[view["id"]]),
        "board_url": reverse("games:board", args=[view["id"]]),
        "api_move_url": reverse("games_api:moves", args=[view["id"]]),
    }


# What `_board.html` reads around the cached fragments once a game has a board.
_SNAPSHOT_GAME = ("id", "ply", "status", "num_players", "variant", "days_per_move", "turn_deadline")
_SNAPSHOT_BOARD = ("round", "phase", "can_move", "legal_moves")
_SNAPSHOT_KEYS = ("tiling_line", "to_move_names", "page_url", "board_url", "api_move_url")


def _board_snapshot(version: selectors.GameVersion, viewer: Any) -> dict[str, Any]:
    """A started game's board as the viewer sees it: the rendered factories, boards and log,
    and the few values the page shows around them.

    Building and rendering a board is most of a board page's cost, while what it shows changes
    only with the game's version, so it is built once per version and viewer. No CSRF token
    goes in (the move form is rendered around it), nor the time left.
    """
    key = f"games:board:{version.key}"
    snapshot = cache.get(key)
    if snapshot is None:
        game = selectors.game_get(game_id=version.id)
        context = _game_context(game, viewer)
        # Kept per viewer (`GameVersion`), so the times in it can be in the viewer's zone.
        with timezone.override(_viewer_tz(viewer)):
            snapshot = _render_snapshot(game, context)
        cache.set(key, snapshot, selectors.VIEW_CACHE_SECONDS)
    for name in ("move_options", "legal_moves_script", "board_main", "board_side"):
        snapshot[name] = mark_safe(snapshot[name])
    return snapshot


def _render_snapshot(game: Any, context: dict[str, Any]) -> dict[str, Any]:
    return {
        "game": {k: context["game"][k] for k in _SNAPSHOT_GAME},
        "board": {k: context["board"][k] for k in _SNAPSHOT_BOARD},
        **{k: context[k] for k in _SNAPSHOT_KEYS},
        # The no-JavaScript form's choices and the page script's list of legal moves.
        "move_options": format_html_join(
            "",
            '<option value="{}">{}</option>',
            ((m, m) for m in context["board"]["legal_moves"]),
        ),
        "legal_moves_script": json_script(context["board"]["legal_moves"], "legal-moves"),
        "board_main": render_to_string("games/_board_main.html", context),
        "board_side": render_to_string(
            "games/_board_side.html",
            {**context, "log": _log_rows(selectors.game_log(game=game), context["names"])},
        ),
    }


def _board_context(request: HttpRequest, version: selectors.GameVersion) -> dict[str, Any]:
    """The context of `_board.html`: a cached snapshot once the game has a board; before that,
    the seats and invitations (not cached: they are few, and the forms are personal)."""
    if version.started:
        context = _board_snapshot(version, request.user)
    else:
        context = _game_context(selectors.game_get(game_id=version.id), request.user)
    context["viewer_tz"] = _viewer_tz(request.user)
    context["is_creator"] = version.created_by_id == request.user.pk
    if context.get("board") and context["board"]["can_move"]:
        # The player has the game in front of them on their turn: no email needed to say so.
        game_seen(user_id=request.user.pk, game_id=version.id)
    return context


@login_required
@require_http_methods(["GET", "POST"])
def game_detail(request: HttpRequest, game_id: UUID) -> HttpResponse:
    """The board. POST is the no-JavaScript move form: one legal move in notation."""
    if request.method == "POST":
        form = MoveForm(request.POST)
        if not form.is_valid():
            messages.error(request, "Choose a move from the list.")
        else:
            try:
                services.move_submit(
                    game_id=game_id,
                    user=request.user,
                    move=form.cleaned_data["move"],
                    expected_ply=form.cleaned_data["expected_ply"],
                )
            except GameNotFound as exc:
                raise Http404(exc.message) from None
            except GameError as exc:
                messages.error(request, f"Your move was not played: {exc.message}")
            else:
                messages.success(request, f"You played {form.cleaned_data['move']}.")
        return redirect("games:detail", game_id=game_id)
    version = _version_or_404(game_id, request.user)
    return render(request, "games/detail.html", _board_context(request, version))


@login_required
@require_GET
def game_board(request: HttpRequest, game_id: UUID) -> HttpResponse:
    """The board partial the page's script swaps in; 204 when `?since=<ply>` is still current."""
    version = _version_or_404(game_id, request.user)
    since = request.GET.get("since")
    if since is not None and since == str(version.ply):
        return HttpResponse(status=204)
    return render(request, "games/_board.html", _board_context(request, version))


@login_required
@require_http_methods(["GET", "POST"])
def game_new(request: HttpRequest) -> HttpResponse:
    form = GameCreateForm(request.POST or None, creator=request.user)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            game = services.game_create(
                creator=request.user,
                num_players=data["num_players"],
                variant=data["variant"],
                days_per_move=data["days_per_move"],
                seats=[services.SeatSpec(**seat) for seat in data["seats"]],
            )
        except GameError as exc:
            form.add_error(None, exc.message)
        else:
            messages.success(request, "Your game was created.")
            return redirect("games:detail", game_id=game.id)
    return render(request, "games/new.html", {"form": form})


@login_required
@require_GET
def lobby(request: HttpRequest) -> HttpResponse:
    games = selectors.open_games_for_lobby(user=request.user)
    return render(request, "games/lobby.html", {"games": games})


@login_required
@require_GET
def my_games(request: HttpRequest) -> HttpResponse:
    context = {
        "groups": selectors.games_for_user(user=request.user),
        "invitations": selectors.invitations_for_user(user=request.user),
        "viewer_tz": _viewer_tz(request.user),
    }
    return render(request, "games/my_games.html", context)


@require_GET
def history(request: HttpRequest) -> HttpResponse:
    """Finished games, newest first, filtered (`games.filters.GameHistoryFilter`) and paginated.
    Public: finished games are anyone's to look at."""
    filters = GameHistoryFilter(request.GET, queryset=selectors.finished_games())
    # An invalid filter shows every game (and the form says what is wrong).
    games = filters.qs if filters.is_valid() else selectors.finished_games()
    page = Paginator(games, selectors.HISTORY_PAGE_SIZE).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    context = {
        "form": filters.form,
        "page": page,
        "rows": selectors.history_rows(page.object_list),
        # The filters, kept in the links to other pages.
        "query": query.urlencode(),
    }
    return render(request, "games/history.html", context)


def _post_action(request: HttpRequest, action: Any, success: str, **kwargs: Any) -> Any:
    try:
        game = action(user=request.user, **kwargs)
    except GameNotFound as exc:
        raise Http404(exc.message) from None
    except GameError as exc:
        messages.error(request, exc.message)
        return None
    messages.success(request, success)
    return game


@login_required
@require_POST
def game_join(request: HttpRequest, game_id: UUID) -> HttpResponse:
    game = _post_action(request, services.game_join, "You joined the game.", game_id=game_id)
    if game is None:
        return redirect("games:lobby")
    return redirect("games:detail", game_id=game.id)


@login_required
@require_POST
def invitation_respond(request: HttpRequest, game_id: UUID) -> HttpResponse:
    accept = request.POST.get("accept") == "1"
    success = "You accepted the invitation." if accept else "You declined the invitation."
    game = _post_action(
        request, services.invitation_respond, success, game_id=game_id, accept=accept
    )
    if game is not None and accept:
        return redirect("games:detail", game_id=game.id)
    return redirect("games:my_games")


@login_required
@require_POST
def game_cancel(request: HttpRequest, game_id: UUID) -> HttpResponse:
    _post_action(request, services.game_cancel, "The game was cancelled.", game_id=game_id)
    return redirect("games:my_games")


# -- replays (games.replays) -----------------------------------------------------------------------


@require_GET
def game_replay(request: HttpRequest, game_id: UUID) -> HttpResponse:
    """The board at any point of the log (`?ply=N`, 0 to the game's ply; anything else is a
    400 saying what is allowed). Finished games are public; a game in progress is shown up to
    now to whoever may see its board (signed-in users)."""
    try:
        game = selectors.game_get(game_id=game_id)
        replays.require_started(game)
    except GameNotFound as exc:
        raise Http404(exc.message) from None
    if not replays.replay_visible(game=game, viewer=request.user):
        return redirect_to_login(request.get_full_path())
    try:
        ply = replays.parse_ply(request.GET.get("ply"), last=game.ply)
    except replays.BadPly as exc:
        context = {"game": game, "message": exc.message, "last_ply": game.ply}
        return render(request, "games/replay_bad_ply.html", context, status=exc.status_code)
    return render(request, "games/replay.html", replays.replay_page(game=game, ply=ply))
