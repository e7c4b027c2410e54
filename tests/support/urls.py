"""The addresses the tests request."""

from typing import Any

from django.urls import reverse

SITE_URL = "https://azul.example"
"""The site's address in the emails of the notification and lifecycle tests."""


def _query(query: dict[str, Any]) -> str:
    tail = "&".join(f"{key}={value}" for key, value in query.items())
    return f"?{tail}" if tail else ""


def api_url(*parts: Any, **query: Any) -> str:
    """`/api/<parts>/`, with `query` as its query string."""
    return "/api/" + "".join(f"{p}/" for p in parts) + _query(query)


def games_url(*parts: Any, **query: Any) -> str:
    """`/api/games/<parts>/`: the games API."""
    return api_url("games", *parts, **query)


def live_url(game_id: Any, **query: Any) -> str:
    """The board's long poll."""
    return f"/games/{game_id}/live/" + _query(query)


def board_url(game) -> str:
    return reverse("games:detail", args=[game.id])


def emailed_game_url(game) -> str:
    """The board's address as an email gives it."""
    return f"{SITE_URL}/games/{game.id}/"
