"""A player's pace in words (`selectors.pace`): "Moves in 3 h on average · 1 turn ran out (90
days)", and what that means, for the player's page and the lobby."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from games.selectors.pace import PACE_DAYS, Pace, players_pace

PACE_HELP = gettext_lazy(
    "Over the last %(days)s days: the average time from the moment it became the player’s turn"
    " to their move, over the moves they made themselves (time on vacation counts), and how"
    " many of their turns ran out, the server moving for them at the deadline."
)


def pace_help() -> str:
    return str(PACE_HELP) % {"days": PACE_DAYS}


def duration_text(seconds: float) -> str:
    """A time per move, rounded as a player thinks of it: minutes, hours, or days."""
    minutes = round(seconds / 60)
    if minutes < 60:
        count = max(minutes, 1)
        return ngettext("%(count)d min", "%(count)d min", count) % {"count": count}
    hours = round(seconds / 3600)
    if hours < 48:
        return ngettext("%(count)d h", "%(count)d h", hours) % {"count": hours}
    days = round(seconds / 86400)
    return ngettext("%(count)d day", "%(count)d days", days) % {"count": days}


def pace_text(pace: Pace) -> str:
    """The player's pace in one line; saying so when they made no move in the window."""
    parts = []
    if pace.average_seconds is not None:
        parts.append(
            _("Moves in %(time)s on average") % {"time": duration_text(pace.average_seconds)}
        )
    if pace.moves or pace.timeouts:
        parts.append(
            ngettext("%(count)d turn ran out", "%(count)d turns ran out", pace.timeouts)
            % {"count": pace.timeouts}
        )
    if not parts:
        return _("No moves in the last %(days)s days") % {"days": PACE_DAYS}
    return _("%(pace)s (%(days)s days)") % {"pace": " · ".join(parts), "days": PACE_DAYS}


def with_paces(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Lobby rows (`presenters.lists.lobby_rows`) with the pace of each player seated in them
    (`paces`: their name and pace in words), read for all of them at once (at most 1 query)."""
    paces = players_pace({user_id for row in rows for user_id, _name in row["seated"]})
    for row in rows:
        row["paces"] = [
            {"name": name, "text": pace_text(paces[user_id])} for user_id, name in row["seated"]
        ]
    return rows
