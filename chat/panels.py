"""The chat panel on the board page (`core.slots`, connected in `ChatConfig.ready`): the
newest messages the viewer sees, and the form to write one. Its queries do not grow with the
number of messages (`selectors.PAGE_SIZE` at most)."""

from __future__ import annotations

from typing import Any

from django.contrib.messages import get_messages
from django.http import HttpRequest
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import get_language

from accounts.names import player_name
from chat import selectors, services, versions
from chat.errors import ChatError
from core.outages.cache import cached
from core.pages import form_answers
from core.pages.holes import CSRF_HOLE
from core.slots import Panel

PANEL_SECONDS = 600
"""How long a rendered panel is kept at most: what changes with time alone (the chat closing
some days after the game finished, a player's new name) shows within this."""


def game_page_panel(request: HttpRequest, *, game_id: Any, **page: Any) -> Panel | None:
    """None for a viewer who may not read the game's chat. Kept as rendered per game, viewer
    and language until the chat's versions change (`chat.versions`): a page whose chat has not
    changed reads it with no query."""
    if not request.user.is_authenticated:
        return None  # the chat is for signed-in players and spectators, as in the API
    viewer_id = request.user.pk
    chat_versions = versions.versions_key(game_id=game_id, user_id=viewer_id)
    # "2": the panel's markup since it has a place for its forms' answers (`ANSWERS_HOLE`).
    key = f"chat:panel:2:{game_id}:{viewer_id}:{get_language()}:{chat_versions}"
    html = cached(key, lambda: _render(request, game_id), PANEL_SECONDS)
    if not html:
        return None
    # What the panel's forms did (without the page's script), beside them: read for this
    # request, not kept with the panel.
    answers = render_to_string(
        "_form_answers.html",
        {"answers": form_answers.at(get_messages(request), BOARD_PLACE), "place": BOARD_PLACE},
    )
    return Panel.rendered(html.replace(ANSWERS_HOLE, answers))


BOARD_PLACE = "chat"
"""Where the board's chat panel shows what its forms did (`core.pages.form_answers`)."""
ANSWERS_HOLE = "\x00chat-answers\x00"
"""The place of those answers in the kept panel (no template writes a NUL character)."""


SETTINGS_PLACE = "chat-settings"
"""Where the settings page shows what its chat form did (`core.pages.form_answers`)."""


def settings_page_panel(request: HttpRequest, **page: Any) -> Panel | None:
    """The chat's setting on the settings page: whether spectators may read the chat of the
    player's finished games (the same setting as the board's "Chat settings")."""
    if not request.user.is_authenticated:
        return None
    context = {
        "spectators_may_read": selectors.spectators_may_read(user_id=request.user.pk),
        "messages": get_messages(request),
        "csrf_token": CSRF_HOLE,  # filled for this request by `core.slots`
    }
    return Panel.rendered(render_to_string("chat/_settings.html", context))


def _render(request: HttpRequest, game_id: Any) -> str:
    try:
        access = selectors.chat_access(game_id=game_id, viewer=request.user)
    except ChatError:
        return ""
    if access.human_seats < 2:
        return ""  # a game against the computer alone: nobody to write to
    chat = selectors.chat_page(access=access, viewer=request.user)
    context = {
        "game_id": game_id,
        "chat": chat,
        "can_write": access.can_write,
        "is_player": access.is_player,
        "max_length": services.MAX_LENGTH,
        "api_url": reverse("chat_api:chat", args=[game_id]),
        # The other players, to mute (or unmute) their messages.
        "others": [
            {
                "id": s.user_id,
                "name": player_name(s.user),
                "muted": s.user_id in chat.muted_player_ids,
            }
            for s in access.players
            if s.user_id != request.user.pk
        ],
        # Filled in for each request (`core.slots`).
        "csrf_token": CSRF_HOLE,
        "spectators_may_read": access.viewer_allows_spectators,
        "newest_id": chat.lines[-1].id if chat.lines else 0,
        "answers_hole": ANSWERS_HOLE,
    }
    return render_to_string("chat/_panel.html", context)


REPLAY_LINES = 10
"""The messages a replay's position shows: the newest written up to it."""


def replay_position_panel(
    request: HttpRequest, *, game: Any, ply: int, **page: Any
) -> Panel | None:
    """On the replay's position `ply`, the chat as it stood then: the newest messages written
    at or before it, for a viewer who may read the game's chat. The replay renders every
    position in one request, so the messages are read once per request (kept on it)."""
    if not request.user.is_authenticated:
        return None  # the chat is for signed-in players and spectators, as in the API
    lines = _replay_lines(request, game.pk)
    if lines is None:
        return None
    shown = [line for line in lines if line.ply <= ply][-REPLAY_LINES:]
    return Panel("chat/_replay.html", {"lines": shown, "ply": ply})


def _replay_lines(request: HttpRequest, game_id: Any) -> list[selectors.ChatLine] | None:
    kept: dict[Any, list[selectors.ChatLine] | None] = request.__dict__.setdefault(
        "_chat_replay_lines", {}
    )
    if game_id not in kept:
        try:
            access = selectors.chat_access(game_id=game_id, viewer=request.user)
        except ChatError:
            kept[game_id] = None
        else:
            lines = selectors.chat_page(
                access=access, viewer=request.user, limit=selectors.REPLAY_LIMIT
            ).lines
            kept[game_id] = lines
    return kept[game_id]
