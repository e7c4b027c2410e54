"""What a round and a game scored, in words: the board's move list and summary panel, and a
finished game's headline for its viewer."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from core.pages.text import and_list, ordinal


def _signed(points: int) -> str:
    return f"+{points}" if points >= 0 else f"-{-points}"


def _tiling_detail(player: dict[str, Any]) -> str:
    """ "+5 (row 2 +3, row 4 +2), floor -2 → 7": what one player's wall tiling scored, from a
    round of the replay summary (the score shown is before any end-of-game bonus)."""
    lines = ", ".join(
        _("row %(row)s %(points)s") % {"row": line["line"], "points": _signed(line["points"])}
        for line in player["lines"]
    )
    text = _signed(player["line_points"]) + (f" ({lines})" if lines else "")
    if player["floor"]:
        text += ", " + _("floor %(points)s") % {"points": _signed(player["floor"])}
    tiled = player["score"] - (player["bonus"] or 0)
    return f"{text} → {tiled}"


def _bonus_detail(standing: dict[str, Any]) -> str:
    """ "+19 (rows +2, columns +7, colors +10) → 71": one player's end-of-game bonuses, from a
    finished game's standings (`presenters.game.result_view`)."""
    parts = [
        label % {"points": _signed(standing[key])}
        for key, label in (
            ("row_bonus", _("rows %(points)s")),
            ("column_bonus", _("columns %(points)s")),
            ("color_bonus", _("colors %(points)s")),
        )
        if standing[key]
    ]
    total = standing["row_bonus"] + standing["column_bonus"] + standing["color_bonus"]
    return _signed(total) + (f" ({', '.join(parts)})" if parts else "") + f" → {standing['score']}"


def round_scored(
    scoring: dict[str, Any],
    names: dict[int, str],
    standings: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """One round's scoring in words: `scoring` is a round of the replay summary
    (`games.record.summary.replay_summary`), and `standings` a finished game's (with the bonuses
    by kind) when it is the last round.

    Each player is {"name", "detail"}; `bonuses` is the same for the end-of-game bonuses, or
    None before the end."""
    players = [
        {"name": names.get(p["position"], ""), "detail": _tiling_detail(p)}
        for p in scoring["players"]
    ]
    bonuses = None
    if scoring["final"] and standings is not None:
        bonuses = [
            {"name": names.get(s["position"], ""), "detail": _bonus_detail(s)}
            for s in sorted(standings, key=lambda s: s["position"])
        ]
    return {
        "round": scoring["round"],
        "final": scoring["final"],
        "players": players,
        "bonuses": bonuses,
    }


def game_over_banner(
    standings: list[dict[str, Any]], names: dict[int, str], viewer_seat: int | None
) -> dict[str, str]:
    """The headline of a finished game for its viewer: "You won with 71 points", "You came 2nd
    of 3 with 54 points", or for a watcher "Alice won with 71 points"; `winners` names the
    winners for a player who is not one of them."""
    count = len(standings)
    winners = [s for s in standings if s["place"] == 1]
    winner_names = [names.get(s["position"], "") for s in winners]
    top = winners[0]["score"] if winners else 0
    if len(winners) == 1:
        won = ngettext(
            "%(name)s won with %(score)s point.", "%(name)s won with %(score)s points.", top
        ) % {"name": winner_names[0], "score": top}
    else:
        won = ngettext(
            "%(names)s shared the win with %(score)s point.",
            "%(names)s shared the win with %(score)s points.",
            top,
        ) % {"names": and_list(winner_names), "score": top}
    mine = next((s for s in standings if s["position"] == viewer_seat), None)
    if mine is None:
        return {"headline": won, "outcome": "watcher", "winners": ""}
    score = mine["score"]
    if mine["place"] == 1:
        others = [n for s, n in zip(winners, winner_names, strict=True) if s is not mine]
        if others:
            headline = ngettext(
                "You shared the win with %(names)s, with %(score)s point.",
                "You shared the win with %(names)s, with %(score)s points.",
                score,
            ) % {"names": and_list(others), "score": score}
        else:
            headline = ngettext(
                "You won with %(score)s point.", "You won with %(score)s points.", score
            ) % {"score": score}
        return {"headline": headline, "outcome": "won", "winners": ""}
    shared = sum(1 for s in standings if s["place"] == mine["place"]) > 1
    headline = (
        ngettext(
            "You came %(place)s (shared) of %(count)s with %(score)s point.",
            "You came %(place)s (shared) of %(count)s with %(score)s points.",
            score,
        )
        if shared
        else ngettext(
            "You came %(place)s of %(count)s with %(score)s point.",
            "You came %(place)s of %(count)s with %(score)s points.",
            score,
        )
    ) % {"place": ordinal(mine["place"]), "count": count, "score": score}
    return {"headline": headline, "outcome": "lost", "winners": won}
