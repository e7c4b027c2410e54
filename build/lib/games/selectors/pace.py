"""How reliably players keep the pace: over the last `PACE_DAYS` days, their average time per
move and how many of their turns ran out. The player's page and the lobby show it, so that a
player can choose opponents who keep the pace.

A move's time is from the moment it became the player's turn to their move. That moment is the
log entry before the move (the deal, or the previous player's take), except on the gray wall's
tiling, where every player tiles at once from the take that ended the round (or, for a second
line, from their own previous tiling): so the start is the later of the last entry before the
move that was not a tiling, and the player's own previous entry. Timed are only the moves the
player made themselves: not those the server made when their time ran out (those are counted
as turns that ran out), nor the computer's for them after their third timeout or once they
resigned, nor a game played out at once when nobody was left to play; no computer seat counts.
Time on vacation counts (no record of past vacations is kept), as the deadline it stopped
does not.
"""

from __future__ import annotations

import datetime
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from django.core.cache import cache
from django.db import connection
from django.utils import timezone

from games.selectors.log import TIMEOUTS_BEFORE_TAKEOVER

PACE_DAYS = 90
PACE_CACHE_SECONDS = 60 * 60
"""How long a player's pace is kept: over 90 days it moves slowly, and the lobby shows many
players at once."""
TURN_START_MARGIN = datetime.timedelta(days=45)
"""How far before the window the log is read for the start of its first turns: longer than a
turn can last (14 days a move, and a vacation of 14 days, twice across a new year)."""


@dataclass(frozen=True)
class Pace:
    """A player's last `PACE_DAYS` days: `moves` timed, their `average_seconds` (None without
    any), and `timeouts`, the turns that ran out."""

    moves: int = 0
    average_seconds: float | None = None
    timeouts: int = 0


# Read through the games' own log index ((game, number), by `= ANY(ARRAY(...))`), never the
# whole log by date; the log's rows narrowed to what the windows need before they are sorted;
# whether a game was played out at once after a resignation worked out per seat, not per move.
# Measured on `seed_history --players 2000 --games 20000` (2 million log entries), for the
# 100 players busiest in the window (750 games, 69,000 entries to fold): about 0.5 s where
# reading the log by date took 2.2 s, and 10 to 20 ms for one player. The time goes to the
# windows over the entries, which no index shortens; hence the cache below.
_PACE_SQL = """
WITH seats AS MATERIALIZED (
    SELECT s.game_id, s.position, s.user_id, s.resigned_at,
        (
            SELECT MIN(r.resigned_at) FROM games_seat r
            WHERE r.game_id = s.game_id AND r.resigned_at IS NOT NULL
              AND g.finished_at <= r.resigned_at + INTERVAL '1 minute'
        ) AS played_out_from
    FROM games_seat s JOIN games_game g ON g.id = s.game_id
    WHERE s.user_id = ANY(%(users)s) AND s.kind = 'human' AND NOT g.is_study
      AND g.started_at IS NOT NULL AND (g.finished_at IS NULL OR g.finished_at >= %(since)s)
),
log AS MATERIALIZED (
    SELECT e.game_id, e.number, e.player, e.created_at,
        e.kind = 'move' AND e.data ->> 'move' LIKE 'wall %%' AS wall,
        COALESCE(e.data ->> 'timeout', '') = 'true' AS timeout
    FROM games_logentry e
    WHERE e.game_id = ANY(ARRAY(SELECT DISTINCT game_id FROM seats))
      AND e.created_at >= %(read_from)s
),
entries AS (
    SELECT game_id, player, created_at, timeout,
        GREATEST(
            MAX(created_at) FILTER (WHERE NOT wall) OVER (
                PARTITION BY game_id ORDER BY number
                ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
            ),
            LAG(created_at) OVER (PARTITION BY game_id, player ORDER BY number)
        ) AS turn_start,
        COUNT(*) FILTER (WHERE timeout) OVER (
            PARTITION BY game_id, player ORDER BY number
            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
        ) AS timeouts_before
    FROM log
),
moves AS (
    SELECT s.user_id, e.timeout, e.created_at - e.turn_start AS took,
        NOT e.timeout AND e.turn_start IS NOT NULL
        AND e.timeouts_before < %(takeover)s
        AND (s.resigned_at IS NULL OR e.created_at < s.resigned_at)
        AND (s.played_out_from IS NULL OR e.created_at < s.played_out_from) AS timed
    FROM entries e JOIN seats s ON s.game_id = e.game_id AND s.position = e.player
    WHERE e.created_at >= %(since)s
)
SELECT user_id,
    COUNT(*) FILTER (WHERE timed),
    AVG(EXTRACT(EPOCH FROM took)) FILTER (WHERE timed),
    COUNT(*) FILTER (WHERE timeout)
FROM moves
GROUP BY user_id
"""


def _key(user_id: Any) -> str:
    return f"games:pace:{user_id}"


def _read(user_ids: list[Any], now: datetime.datetime) -> dict[Any, Pace]:
    since = now - datetime.timedelta(days=PACE_DAYS)
    params: dict[str, Any] = {
        "users": user_ids,
        "since": since,
        "read_from": since - TURN_START_MARGIN,
        "takeover": TIMEOUTS_BEFORE_TAKEOVER,
    }
    with connection.cursor() as cursor:
        cursor.execute(_PACE_SQL, params)
        rows = cursor.fetchall()
    found = {
        user_id: Pace(
            moves=moves,
            average_seconds=None if average is None else float(average),
            timeouts=timeouts,
        )
        for user_id, moves, average, timeouts in rows
    }
    return {user_id: found.get(user_id, Pace()) for user_id in user_ids}


def players_pace(user_ids: Collection[Any]) -> dict[Any, Pace]:
    """Each player's `Pace` (players with no move in the window have an empty one), kept in the
    cache for `PACE_CACHE_SECONDS`: at most 1 query however many players."""
    wanted = list(dict.fromkeys(user_ids))
    if not wanted:
        return {}
    kept = cache.get_many([_key(pk) for pk in wanted])
    paces = {pk: kept[_key(pk)] for pk in wanted if isinstance(kept.get(_key(pk)), Pace)}
    missing = [pk for pk in wanted if pk not in paces]
    if missing:
        fresh = _read(missing, timezone.now())
        cache.set_many({_key(pk): pace for pk, pace in fresh.items()}, PACE_CACHE_SECONDS)
        paces.update(fresh)
    return paces


def player_pace(user_id: Any) -> Pace:
    """One player's `Pace` (`players_pace`)."""
    return players_pace([user_id])[user_id]
