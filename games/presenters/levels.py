"""The computer levels as players see them: a line each on how well it plays, in the page's
language, for the new-game form and a level's own page."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from azul.ai.bots import LEVELS
from games.models import Seat

# What a player can expect of each computer level, in one line (research/BOTS.md says how
# they play). The figures are 2-player games on the colored wall, one second a move, measured
# with `python -m research.arena`: random scored 0.6 a game on average against greedy (40
# games, all lost), medium won 39 of 40 against greedy (1 tie), strong 20 of 20 against greedy
# and 13 of 20 against medium.
BOT_LEVEL_DESCRIPTIONS = {
    "random": _("plays any legal move and scores next to nothing: for learning the controls"),
    "greedy": _("takes the most points now and never looks ahead"),
    "medium": _("looks a little ahead (a short search); beats greedy most games"),
    "strong": _("searches about a second a move; beats greedy nearly every game"),
    "master": _("searches four seconds a move: the strongest, and the slowest to answer"),
}


def bot_level_description(level: str) -> str:
    """One line on how well `level` plays: ours, else the first sentence of the engine's own
    description (in English), for a level added to `Seat.BotLevel` after this list was
    written."""
    if level in BOT_LEVEL_DESCRIPTIONS:
        return str(BOT_LEVEL_DESCRIPTIONS[level])
    engine_level = LEVELS.get(level)
    if engine_level is not None and engine_level.description:
        sentence = engine_level.description.split(". ")[0].rstrip(".")
        return sentence[:1].lower() + sentence[1:]
    return str(_("a computer player"))


def bot_levels() -> list[dict[str, str]]:
    """The computer levels, weakest first, as the form offers them (read from `Seat.BotLevel`,
    so that a new level is offered without changing this form)."""
    return [
        {
            "value": level.value,
            "label": str(level.label),
            "description": bot_level_description(level.value),
            "choice": f"computer:{level.value}",
        }
        for level in Seat.BotLevel
    ]
