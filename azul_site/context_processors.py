"""Template context shared by every page."""

from __future__ import annotations

from functools import cache

from django.http import HttpRequest
from django.urls import reverse

NAV_URL_NAMES = {
    "home": "home",
    "lobby": "games:lobby",
    "my_games": "games:my_games",
    "settings": "accounts:settings",
    "logout": "account_logout",
    "login": "account_login",
    "signup": "account_signup",
    "leaderboard": "ratings:leaderboard",
    "history": "games:history",
    "events": "events:list",
    "rules": "rules",
    "set_language": "set_language",
    "player_search": "accounts:api_players",
    "following": "accounts:api_following",
}


@cache
def _nav_urls() -> dict[str, str]:
    # The site-wide links take no arguments, so they are the same on every page: reverse them
    # once per process rather than on every page of every request.
    return {key: reverse(name) for key, name in NAV_URL_NAMES.items()}


def nav_urls(request: HttpRequest) -> dict[str, dict[str, str]]:
    """`nav.home`, `nav.lobby`, ...: the links of the site's header."""
    return {"nav": _nav_urls()}
