"""Game pages: thin views over `games.services` (writes) and `games.selectors` (reads)."""

from __future__ import annotations

import zoneinfo
from functools import partial
from typing import Any
from urllib.parse import urlencode
from uuid import UUID

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.core.cache import cache
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render, resolve_url
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.functional import SimpleLazyObject
from django.utils.html import format_html_join, json_script
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from games import replays, selectors, services
from games.display import board_display, game_over_banner, round_scored
from games.errors import GameError, GameNotFound
from games.filters import GameHistoryFilter
from games.forms import GameCreateForm, MoveForm, bot_levels
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


def _log_rows(
    summary: dict[str, Any],
    names: dict[int, str],
    viewer_seat: int | None,
    standings: list[dict[str, Any]] | None,
) -> list[dict[str, Any]]:
    """The move list: one row per log entry (numbered by the ply it leads to), each round's
    scoring after the move that ended its wall tiling (`games.replays` counts it), and the rows
    after the viewer's own last move marked `since`, with a "since" row before the first."""
    entries = summary["entries"]
    last_own = max(
        (
            i
            for i, e in enumerate(entries)
            # The viewer's own moves: not those the server made for them when time ran out.
            if e.get("kind") == "move" and e["player"] == viewer_seat and not e.get("timeout")
        ),
        default=None,
    )
    rows: list[dict[str, Any]] = []
    round_number = 0
    for index, entry in enumerate(entries):
        since = last_own is not None and index > last_own
        if since and index == last_own + 1:
            rows.append({"kind": "since"})
        row: dict[str, Any] = {"number": index + 1, "since": since}
        if entry.get("kind") == "deal":
            round_number += 1
            tiles = entry.get("tiles", [])
            row.update(kind="deal", round=round_number, text=replays._deal_text(tiles))
        else:
            player = entry["player"]
            row.update(
                kind="move",
                name=names.get(player, f"Seat {player}"),
                move=entry["move"],
                timeout=bool(entry.get("timeout")),
            )
        rows.append(row)
        if index in summary["tiled_after"]:
            scoring = summary["rounds"][summary["tiled_after"][index]]
            rows.append(
                {"kind": "scored", "since": since, **round_scored(scoring, names, standings)}
            )
    return rows


def _game_context(game: Any, viewer: Any) -> dict[str, Any]:
    """Everything `_board.html` shows about the game, as `viewer` sees it."""
    view = selectors.game_view(game=game, viewer=viewer)
    board = board_display(view) if view["state"] else None
    names = {p["position"]: p["display_name"] or p["username"] for p in view["players"]}
    boards = board["boards"] if board else []
    to_move = set(view["to_move"])
    viewer_board = next((b for b in boards if b["is_viewer"]), None)
    viewer_seat = next((p for p in view["players"] if p["is_viewer"]), None)
    result_rows, game_over = [], None
    if view["result"]:
        standings = view["result"]["standings"]
        players = {p["position"]: p for p in view["players"]}
        for standing in sorted(standings, key=lambda s: s["place"]):
            player = players[standing["position"]]
            result_rows.append({**standing, "name": names[standing["position"]], **player})
        position = viewer_seat["position"] if viewer_seat else None
        game_over = game_over_banner(standings, names, position)
    return {
        "game": view,
        "board": board,
        "names": names,
        "viewer_board": viewer_board,
        "tiling_line": viewer_board["tiling_line"] if viewer_board else None,
        "viewer_seat": viewer_seat,
        "to_move_names": [b["name"] for b in boards if b["position"] in to_move],
        "result_rows": result_rows,
        "game_over": game_over,
        "has_open_seat": any(p["is_open"] for p in view["players"]),
        "page_url": reverse("games:detail", args=[view["id"]]),
        "board_url": reverse("games:board", args=[view["id"]]),
        "api_move_url": reverse("games_api:moves", args=[view["id"]]),
    }


# What `_board.html` reads around the cached fragments once a game has a board.
_SNAPSHOT_GAME = ("id", "ply", "status", "num_players", "variant", "days_per_move", "turn_deadline")
_SNAPSHOT_BOARD = ("round", "phase", "can_move", "legal_moves")
_SNAPSHOT_KEYS = (
    "tiling_line",
    "to_move_names",
    "page_url",
    "board_url",
    "api_move_url",
    # A finished game's banner (`_game_over.html`), outside the cached markup so that the
    # page can put the game's actions (the rematch) in it.
    "game_over",
    "result_rows",
)


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
            "games/_board_side.html", {**context, **_scoring(game, context)}
        ),
    }


def _scoring(game: Any, context: dict[str, Any]) -> dict[str, Any]:
    """The move list with each round's scoring, and the last round's scoring for the summary
    panel, from the game's replay (`games.replays`: the log read and replayed once per ply)."""
    summary = replays.replay_summary(game=game)
    names = context["names"]
    result = context["game"]["result"]
    standings = result["standings"] if result else None
    viewer_seat = context["viewer_seat"]["position"] if context["viewer_seat"] else None
    log = _log_rows(summary, names, viewer_seat, standings)
    return {
        "log": log,
        "last_round": next((r for r in reversed(log) if r["kind"] == "scored"), None),
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
    # Read only where `_game_actions.html` is shown (the page, not the board's partial).
    context["actions"] = SimpleLazyObject(partial(_game_actions, version, request.user))
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
            messages.error(request, _("Choose a move from the list."))
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
                messages.error(
                    request, _("Your move was not played: %(reason)s") % {"reason": exc.message}
                )
            else:
                messages.success(
                    request, _("You played %(move)s.") % {"move": form.cleaned_data["move"]}
                )
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
            messages.success(request, _("Your game was created."))
            return redirect("games:detail", game_id=game.id)
    context = {
        "form": form,
        "bot_levels": bot_levels(),
    }
    return render(request, "games/new.html", context)


@require_GET
def lobby(request: HttpRequest) -> HttpResponse:
    """Games waiting for players. Public: a visitor who is not signed in sees them all, and
    "Sign in to join" brings them back here with `?join=<id>`, that game picked out, to press
    Join (a POST, as always). The signed-in creator sees their own waiting games, marked."""
    user = request.user
    # Each row says whether the viewer created it (`is_mine`) or can join it (`can_join`).
    games = selectors.open_games_for_lobby(user=user, include_own=True)
    if not user.is_authenticated:
        for g in games:
            back = f"{reverse('games:lobby')}?join={g['id']}"
            g["sign_in_to_join"] = f"{resolve_url(settings.LOGIN_URL)}?{urlencode({'next': back})}"
    picked = request.GET.get("join", "")
    context = {
        "games": games,
        "picked": next((g for g in games if str(g["id"]) == picked), None),
        "picked_missing": bool(picked) and not any(str(g["id"]) == picked for g in games),
    }
    return render(request, "games/lobby.html", context)


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
    game = _post_action(request, services.game_join, _("You joined the game."), game_id=game_id)
    if game is None:
        return redirect("games:lobby")
    return redirect("games:detail", game_id=game.id)


@login_required
@require_POST
def invitation_respond(request: HttpRequest, game_id: UUID) -> HttpResponse:
    accept = request.POST.get("accept") == "1"
    success = _("You accepted the invitation.") if accept else _("You declined the invitation.")
    game = _post_action(
        request, services.invitation_respond, success, game_id=game_id, accept=accept
    )
    if game is not None and accept:
        return redirect("games:detail", game_id=game.id)
    return redirect("games:my_games")


@login_required
@require_POST
def game_cancel(request: HttpRequest, game_id: UUID) -> HttpResponse:
    _post_action(request, services.game_cancel, _("The game was cancelled."), game_id=game_id)
    return redirect("games:my_games")


# -- declined invitations, resigning and rematches (`_game_actions.html`) ----------------------


def _game_actions(version: selectors.GameVersion, viewer: Any) -> dict[str, Any]:
    """What `_game_actions.html` offers the viewer (`selectors.game_actions`), kept under the
    game's version like the board (a rematch gives the finished game a new version)."""
    key = f"games:actions:{version.key}"
    actions = cache.get(key)
    if actions is None:
        actions = selectors.game_actions(game_id=version.id, viewer=viewer)
        cache.set(key, actions, selectors.VIEW_CACHE_SECONDS)
    return actions


def _back_to(request: HttpRequest, game_id: UUID) -> HttpResponse:
    """Back to the page the form was on (`next`, a path of this site: the notices on the home
    page and "My games"), else to the game."""
    back = request.POST.get("next", "")
    if back and url_has_allowed_host_and_scheme(
        back, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return redirect(back)
    return redirect("games:detail", game_id=game_id)


@login_required
@require_POST
def seat_invite(request: HttpRequest, game_id: UUID, position: int) -> HttpResponse:
    """The creator gives a declined (or unanswered) seat to another player."""
    username = request.POST.get("username", "").strip()
    _post_action(
        request,
        services.seat_invite,
        _("You invited %(name)s.") % {"name": username},
        game_id=game_id,
        position=position,
        username=username,
    )
    return _back_to(request, game_id)


@login_required
@require_POST
def seat_open(request: HttpRequest, game_id: UUID, position: int) -> HttpResponse:
    """The creator opens a declined (or unanswered) seat to anyone in the lobby."""
    _post_action(
        request,
        services.seat_open,
        _("Seat %(number)s is open: anyone may join it from the lobby.") % {"number": position + 1},
        game_id=game_id,
        position=position,
    )
    return _back_to(request, game_id)


@login_required
@require_http_methods(["GET", "POST"])
def game_resign(request: HttpRequest, game_id: UUID) -> HttpResponse:
    """Resign, once confirmed. The board's button asks with a dialog (`game_actions.js`) and
    then posts `confirm=yes`; without JavaScript it posts without, and gets this confirmation
    page (as a GET does), whose button posts `confirm=yes`."""
    if request.method == "POST" and request.POST.get("confirm") == "yes":
        try:
            game = services.game_resign(game_id=game_id, user=request.user)
        except GameNotFound as exc:
            raise Http404(exc.message) from None
        except GameError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(
                request,
                _("You resigned: the computer plays your seat to the end, and you finish last.")
                if game.status == game.Status.ACTIVE
                else _(
                    "You resigned. With nothing left to play for, the computer played the game"
                    " out at once: you finished last."
                ),
            )
        return redirect("games:detail", game_id=game_id)
    version = _version_or_404(game_id, request.user)
    actions = _game_actions(version, request.user)
    if not actions["can_resign"]:
        messages.error(request, _("You cannot resign this game: you are not playing it now."))
        return redirect("games:detail", game_id=game_id)
    return render(request, "games/resign_confirm.html", {"game_id": version.id})


@login_required
@require_POST
def game_rematch(request: HttpRequest, game_id: UUID) -> HttpResponse:
    """A rematch of a finished game: a new game with the same players and settings, or the one
    the player has already."""
    try:
        rematch, created = services.game_rematch(game_id=game_id, user=request.user)
    except GameNotFound as exc:
        raise Http404(exc.message) from None
    except GameError as exc:
        messages.error(request, exc.message)
        return redirect("games:detail", game_id=game_id)
    if created:
        messages.success(request, _("Your rematch is created: the other players are invited."))
    else:
        messages.info(request, _("You have a rematch of that game already: here it is."))
    return redirect("games:detail", game_id=rematch.id)


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
