"""The board page's wait (`games:live`): has the game changed from the board the page shows?"""

from __future__ import annotations

import uuid
from typing import Any

from django.contrib.auth import SESSION_KEY
from django.contrib.auth.views import redirect_to_login
from django.http import (
    HttpRequest,
    HttpResponse,
    HttpResponseBadRequest,
    HttpResponseNotModified,
    JsonResponse,
)
from django.utils.cache import patch_cache_control
from django.views.decorators.http import require_GET

from accounts.middleware import shows_no_times
from games import live_marks as marks
from games.live.conditions import (
    BadWait,
    can_wait,
    etag,
    if_none_match,
    matches,
    version_or_404,
    wait_seconds,
)
from games.live.watcher import TooManyWaits, holds_share, max_waits_per_player, wait_for_change

RETRY_AFTER_SECONDS = 5
"""What a wait refused past the player's cap tells them to wait before asking again."""


@shows_no_times
@require_GET
def game_changes(request: HttpRequest, game_id: uuid.UUID) -> HttpResponse:
    """Whether the game has changed from the board the page shows, which the page names by the
    ETag this gave it (`If-None-Match`), or else by its ply (`?since=`): at once when it has
    already, else as soon as it does within `?wait=` seconds. Changed: 200, `{"ply": N}` and the
    new ETag (the page then loads the board partial from the site); unchanged: 304 (204 without
    `If-None-Match`) and the ETag. Signed-in users only, as the board is.

    With `?side=` (the `X-Live-Side` mark of the last answer, or empty for "from now") it also
    wakes when what is beside the board changed (`marks`: a chat message), which leaves the
    game's version as it is: 200 with the same ETag and the new mark, and the page refreshes
    its chat rather than its board.

    It renders no board: what wakes here is cheap, and the boards are rendered by the site's
    workers, which the page would ask for them anyway."""
    try:
        seconds = wait_seconds(request.GET.get("wait"))
    except BadWait as exc:
        return HttpResponseBadRequest(f"wait: {exc}", content_type="text/plain; charset=utf-8")
    # A player past their share of waits is refused before the game is read: a burst of
    # thousands then costs the process a session read each, not the user's row nor the game's
    # version (the session names its user; one whose session is no longer valid is refused all
    # the same). The time-zone middleware reads no user here either (`shows_no_times`).
    player = request.session.get(SESSION_KEY)
    if seconds and player is not None and holds_share(player):
        return _too_many_waits(TooManyWaits(max_waits_per_player()))
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    version = version_or_404(game_id, request.user)
    tag, tags = etag(version), if_none_match(request)
    seen = tags or ([tag] if request.GET.get("since") == str(version.ply) else [])
    side = request.GET.get("side")  # None: the page does not watch what is beside the board
    side_now = marks.side_mark(version.id) if side is not None else None
    side_seen = (side or side_now) if side is not None else None
    waits = seconds and matches(seen, tag) and side_now == side_seen and can_wait(request)
    try:
        changed = bool(waits) and wait_for_change(version, seconds, request.user.pk, side_seen)
    except TooManyWaits as exc:
        return _too_many_waits(exc)
    if changed:
        version = version_or_404(game_id, request.user)
        tag = etag(version)
        side_now = marks.side_mark(version.id) if side is not None else None
    side_changed = side_now != side_seen
    board_changed = not matches(seen, tag)
    response: HttpResponse
    if board_changed or side_changed:
        body: dict[str, Any] = {"ply": version.ply}
        if side is not None:
            body.update(board_changed=board_changed, side_changed=side_changed)
        response = JsonResponse(body)
    else:
        response = HttpResponseNotModified() if tags else HttpResponse(status=204)
    response["ETag"] = tag
    if side_now is not None:
        response["X-Live-Side"] = side_now
    patch_cache_control(response, private=True, no_cache=True)
    return response


def _too_many_waits(exc: TooManyWaits) -> HttpResponse:
    refused = JsonResponse({"detail": str(exc), "code": "too_many_waits"}, status=429)
    refused["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return refused
