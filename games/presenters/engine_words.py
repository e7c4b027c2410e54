"""The engine's words in the player's language: its reasons for refusing a move or a log entry,
and the tile colours and phases they name.

The engine (`azul`, no Django) raises `EngineError`s (`IllegalMove`, `InvalidNotation`)
that keep an English template and its values: `exc.template`, `exc.params`. This module lists every
template and every word those values can hold, marked (`gettext_noop`, `pgettext_lazy`) so that
`makemessages` finds them, and `engine_error_text` shows an error in the active language.
`tests/i18n/test_engine_messages.py` checks that every template the engine can raise is listed.
"""

from __future__ import annotations

from django.utils.translation import gettext, gettext_noop, pgettext, pgettext_lazy

from games.errors import EngineRefusal, GameError

TEMPLATES = (
    # the notation
    gettext_noop("unknown color %(name)s (colors are %(colors)s)"),
    gettext_noop("%(what)s must be a number from %(low)s to %(high)s, not %(text)s%(example)s"),
    gettext_noop("%(what)s must be from %(low)s to %(high)s, not %(value)s%(example)s"),
    gettext_noop("a move is text like 'F3 blue 2', not %(type)s"),
    gettext_noop("empty move: write it like 'F3 blue 2', 'C red floor' or 'wall 2 4'"),
    gettext_noop("move text is too long: write it like 'F3 blue 2'"),
    gettext_noop("a wall tiling has a line and a column%(example)s"),
    gettext_noop("a move has a source, a color and a destination%(example)s"),
    gettext_noop("unknown source %(source)s: use F1-F9 or C%(example)s"),
    # the rules: deals
    gettext_noop("a deal lists the tiles of each of the %(factories)s factories"),
    gettext_noop("factory %(factory)s: a deal lists each factory's tiles as color names"),
    gettext_noop("factory %(factory)s: %(reason)s"),
    gettext_noop(
        "factory %(factory)s must get %(count)s tiles, not %(got)s"
        " (%(bag)s in the bag, %(lid)s in the lid)"
    ),
    gettext_noop("the deal draws %(drawn)s %(color)s tiles but the bag holds %(held)s"),
    gettext_noop(
        "the bag runs empty during this deal, so all %(held)s %(color)s tiles in it"
        " are drawn before the lid is poured in; the deal draws %(drawn)s"
    ),
    gettext_noop("the deal draws %(drawn)s %(color)s tiles but the bag and lid hold %(held)s"),
    # the rules: whose move, and which
    gettext_noop("the game is over"),
    gettext_noop("the factories are already filled for this round"),
    gettext_noop("this is the %(phase)s phase, not the %(wanted_phase)s phase"),
    gettext_noop("there is no player %(player)s in a %(players)s-player game"),
    gettext_noop("the factories have not been filled for this round yet"),
    gettext_noop("it is the factory offer: take tiles with a move like 'F3 blue 2'"),
    gettext_noop("not a move: %(move)s"),
    gettext_noop("it is player %(current)s's turn, not player %(player)s's"),
    gettext_noop(
        "the wall-tiling phase is under way: choose a wall space with 'wall <line> <column>'"
    ),
    gettext_noop("players %(players)s are each choosing wall spaces: say which one moves"),
    gettext_noop("player %(player)s has no wall space to choose now"),
    # the rules: the factory offer
    gettext_noop("unknown color %(value)s"),
    gettext_noop("unknown destination %(value)s: pattern lines 1-5 or the floor"),
    gettext_noop(
        "there is no factory %(source)s: a %(players)s-player game has factories 1-%(factories)s"
    ),
    gettext_noop("the center has no %(color)s tiles"),
    gettext_noop("factory %(factory)s is empty"),
    gettext_noop("factory %(factory)s has no %(color)s tiles"),
    gettext_noop("pattern line %(line)s is already full"),
    gettext_noop("pattern line %(line)s already holds %(color)s"),
    gettext_noop("the wall's row %(line)s already has %(color)s"),
    # the rules: the gray wall's tiling
    gettext_noop("there is no pattern line %(value)s: lines are 1-5"),
    gettext_noop("there is no wall column %(value)s: columns are 1-5"),
    gettext_noop("pattern line %(line)s is the one to tile now, not %(chosen)s"),
    gettext_noop("the wall's row %(line)s already has a tile in column %(column)s"),
    gettext_noop("the wall's column %(column)s already has %(color)s"),
    # the rules: logs
    gettext_noop("a log entry is a mapping, not %(type)s"),
    gettext_noop("unknown log entry kind %(kind)s: expected 'deal' or 'move'"),
    gettext_noop("log entry %(number)s: %(reason)s"),
    gettext_noop("that player has no move to make now"),
)
"""Every template an `EngineError` can carry."""

PHRASES = (
    # `what` and `example` in the notation's errors
    gettext_noop("the pattern line"),
    gettext_noop("the wall column"),
    gettext_noop("the factory"),
    gettext_noop(" (write a wall tiling like 'wall 2 4')"),
    gettext_noop(" (write a move like 'F3 blue 2' or 'C red floor')"),
)
"""The fixed phrases that the values under `what` and `example` are."""

COLOR_NAMES = (
    pgettext_lazy("tile colour", "blue"),
    pgettext_lazy("tile colour", "yellow"),
    pgettext_lazy("tile colour", "red"),
    pgettext_lazy("tile colour", "black"),
    pgettext_lazy("tile colour", "white"),
)
"""The tile colours (`azul.COLORS`) as a sentence names them (`color`)."""

PHASE_NAMES = (
    pgettext_lazy("game phase", "deal"),
    pgettext_lazy("game phase", "take"),
    pgettext_lazy("game phase", "tile"),
    pgettext_lazy("game phase", "over"),
)
"""The phases (`azul` `State.phase`) as a sentence names them (`phase`, `wanted_phase`)."""

PHRASE_KEYS = frozenset({"what", "example"})
COLOR_KEYS = frozenset({"color"})
PHASE_KEYS = frozenset({"phase", "wanted_phase"})
REASON_KEYS = frozenset({"reason"})


def color_name(color: str) -> str:
    """A tile colour's name ("blue", as `azul.COLORS` has it) in the active language."""
    return pgettext("tile colour", color)


def phase_name(phase: str) -> str:
    """A phase's name ("take", as `State.phase` has it) in the active language."""
    return pgettext("game phase", phase)


def _value(key: str, value: object) -> object:
    if key in REASON_KEYS:
        return engine_error_text(value) if isinstance(value, BaseException) else value
    if key in COLOR_KEYS:
        return color_name(str(value))
    if key in PHASE_KEYS:
        return phase_name(str(value))
    if key in PHRASE_KEYS:
        return gettext(str(value))
    return value


def engine_error_text(exc: BaseException) -> str:
    """`exc`'s reason in the active language (English when it has no translation); any other
    exception as its text."""
    template = getattr(exc, "template", None)
    params = getattr(exc, "params", None)
    if not isinstance(template, str) or not isinstance(params, dict):
        return str(exc)
    text = gettext(template)
    if not params:
        return text
    return text % {key: _value(key, value) for key, value in params.items()}


def refusal_text(exc: GameError) -> str:
    """What a refusal says to the player, in the active language: the engine's refusal of a move
    (`errors.EngineRefusal`, raised by the move services with the engine's error) put in words
    here, at the page and the API; any other refusal as it was raised."""
    if isinstance(exc, EngineRefusal) and exc.engine_error is not None:
        reason = engine_error_text(exc.engine_error)
        return gettext(exc.sentence) % {"move": repr(exc.move), "reason": reason}
    return exc.message
