"""Live updates: answering "has this game changed?" as soon as it has, without holding a worker.

Two requests wait for a game to change:

- the board page's `GET /games/<id>/live/?wait=25` (`If-None-Match`: the ETag of the board it
  shows; `games.live.views.game_changes`), answered with 304 when nothing changed within the
  wait, or with 200 and the new ETag as soon as the game changes (the page then loads the new
  board from the site);
- the API's `GET /api/games/<id>/?wait_for_turn=30` (`games.api`), answered as soon as it is
  the caller's turn or the game changes (from the version named by `If-None-Match`, or else from
  the version the request found), or at the end of the wait with the unchanged game.

Both answer with the game's version as their ETag (`conditions.etag`: per viewer and language,
as everything cached for a game is), and a plain `If-None-Match` without a wait is an ordinary
conditional GET: 304 with no body when the version is current.

How a wait is served (`watcher`). A waiting request blocks its thread on an event and holds no
database connection while it waits; one thread per process reads the versions of all the games
waited on, in one query every `POLL_SECONDS`, and wakes the requests whose game has moved on.
So a move reaches a waiting page within `POLL_SECONDS` plus the answer's own time, and the
database sees one small query per process and tick, however many watch.

Where a wait is served (README, "Serving"): in production, these requests go to an ASGI process
of their own (uvicorn), where a waiting request is a parked thread of Django's ASGI handler and
the process goes on serving others: Django runs its synchronous middleware (sessions,
authentication) in a thread of each request's own, so an async view would park that thread just
the same. Django's development servers (`runserver`, the tests' live server) give each request a
thread, so they wait too. gunicorn's workers serve a fixed number of requests at once, so a
request there never waits (`conditions.can_wait`): it answers at once, and the page then polls
about once a second (static/games/board.js). A process holds at most `MAX_WAITERS` waiting
requests; past that, requests answer at once as well. One player holds at most
`max_waits_per_player()` of them (`LIVE_MAX_WAITS_PER_PLAYER`): past that, their next wait is
refused with 429 and a message, and every other player's boards keep their places.
"""

from games.live.conditions import (
    MAX_WAIT_SECONDS,
    BadWait,
    can_wait,
    etag,
    if_none_match,
    matches,
    wait_seconds,
)
from games.live.watcher import (
    MAX_WAITERS,
    POLL_SECONDS,
    TooManyWaits,
    max_waits_per_player,
    wait_for_change,
    watch,
)

__all__ = [
    "MAX_WAITERS",
    "MAX_WAIT_SECONDS",
    "POLL_SECONDS",
    "BadWait",
    "TooManyWaits",
    "can_wait",
    "etag",
    "if_none_match",
    "matches",
    "max_waits_per_player",
    "wait_for_change",
    "wait_seconds",
    "watch",
]
