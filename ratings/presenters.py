"""How ratings show what a game did to them: the reason an unrated game gives, in words, and a
finished game's rating as the API answers it (`ratings.selectors.game_rating`)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.urls import reverse
from django.utils.translation import gettext

from core.pages.links import link_maker
from games.models import Seat
from games.presenters.names import public_username, seat_name
from ratings import levels
from ratings.fair_play import Unrated
from ratings.levels import ArenaPair
from ratings.selectors import GameRating, LevelStanding


def leaderboard_table(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`selectors.leaderboard_rows` with each player's link, made once per page
    (`core.pages.links`): a `{% url %}` for each of a page's 50 players was a sixth of its time."""
    player_link = link_maker("accounts:player", "sample-player")
    return [{**row, "url": player_link(row["username"])} for row in rows]


def unrated_reason_text(reason: Unrated) -> str:
    """The reason a finished game is not rated, as a sentence in the active language."""
    if reason == Unrated.TOO_SHORT:
        return gettext(
            "Not rated: the game was resigned or abandoned before every player had made "
            "%(moves)s moves of their own."
        ) % {"moves": settings.RATINGS_MIN_OWN_MOVES}
    if reason == Unrated.UNRATED_GAME:
        return gettext("Not rated: its players agreed to play it unrated (an unrated event).")
    if reason == Unrated.PAIR_LIMIT:
        return gettext(
            "Not rated: only %(day)s games a day and %(week)s a week between the same players "
            "count in the ratings."
        ) % {
            "day": settings.RATINGS_PAIR_GAMES_PER_DAY,
            "week": settings.RATINGS_PAIR_GAMES_PER_WEEK,
        }
    return gettext(
        "Not rated: only games between people with accounts count in the ratings, not games "
        "with a computer player or studies."
    )


def game_rating_view(rating: GameRating) -> dict[str, Any]:
    """A finished game's rating as the API gives it (`serializers.GameRatingSerializer`)."""
    return {
        "rated": rating.rated,
        "reason": None if rating.reason is None else str(rating.reason),
        "reason_text": None if rating.reason is None else unrated_reason_text(rating.reason),
        "seats": [
            {
                "position": seat.seat.position,
                "username": public_username(seat.seat.user),
                "name": seat_name(seat.seat),
                "rating_before": seat.before,
                "rating_after": seat.after,
                "change": seat.change,
            }
            for seat in rating.seats
        ],
    }


def level_label(level: str) -> str:
    """The level's name in the active language."""
    return str(Seat.BotLevel(level).label) if level in Seat.BotLevel.values else level


def chance_against(standing: LevelStanding, mu: float, sigma: float) -> float:
    """The chance that a player of skill (mu, sigma) finishes ahead of the level in a
    2-player game (`levels.expected`)."""
    return levels.expected(mu, sigma, standing.mu, standing.sigma)


def level_row(standing: LevelStanding) -> dict[str, Any]:
    """A level as the leaderboard, the levels' page and the API list it."""
    return {
        "level": standing.level,
        "name": level_label(standing.level),
        "rating": standing.rating,
        "mu": round(standing.mu, 2),
        "sigma": round(standing.sigma, 2),
        "games": standing.games,
        "people": standing.people,
        "wins": standing.wins,
        "losses": standing.losses,
        "ties": standing.ties,
        "updated_at": standing.updated_at,
        "url": reverse("ratings:level", args=[standing.level]),
    }


def step_row(level: str, run: ArenaPair) -> dict[str, Any]:
    """A calibration run of `level` against a neighbour, from `level`'s side."""
    ahead = run.stronger == level
    low, high = run.interval()
    rate, low, high = (run.win_rate, low, high) if ahead else (1 - run.win_rate, 1 - high, 1 - low)
    return {
        "opponent": run.weaker if ahead else run.stronger,
        "opponent_name": level_label(run.weaker if ahead else run.stronger),
        "games": run.games,
        "win_rate": rate,
        "low": low,
        "high": high,
        "win_percent": 100 * rate,
        "low_percent": 100 * low,
        "high_percent": 100 * high,
        "command": run.command,
    }
