"""Game lists embedded in other apps' pages (home, player profile)."""

from __future__ import annotations

from typing import Any

from django import template

from games import selectors

register = template.Library()


@register.inclusion_tag("games/_home_summary.html", takes_context=True)
def my_games_summary(context: template.Context) -> dict[str, Any]:
    """The signed-in player's games awaiting their move, and how many others are running."""
    user = context["request"].user
    groups = selectors.games_for_user(user=user)
    return {
        "my_turn": groups["my_turn"],
        "waiting_count": len(groups["waiting"]),
        "invitation_count": len(selectors.invitations_for_user(user=user)),
        "viewer_tz": getattr(getattr(user, "profile", None), "time_zone", "UTC"),
    }


@register.inclusion_tag("games/_player_games.html", takes_context=True)
def player_games(context: template.Context, player: Any) -> dict[str, Any]:
    """A player's current games, for their public profile (their finished games are in the
    history beside them)."""
    groups = selectors.games_for_user(user=player, status=None, finished=False)
    user = context["request"].user
    return {
        # Seen by someone else: "your move" in these rows would be about the wrong person.
        "current": [{**g, "is_my_turn": False} for g in groups["my_turn"] + groups["waiting"]],
        "finished": [],
        "viewer_tz": getattr(getattr(user, "profile", None), "time_zone", "UTC"),
    }


@register.inclusion_tag("games/_declined_notices.html", takes_context=True)
def declined_invitations(context: template.Context) -> dict[str, Any]:
    """The notice on the creator's home page and "My games" that an invited player declined,
    with what they can do about it: invite someone else, open the seat, or cancel the game."""
    request = context["request"]
    return {
        "declined": selectors.declined_invitations(user=request.user),
        "next": request.get_full_path(),
        "csrf_token": context.get("csrf_token"),
    }
