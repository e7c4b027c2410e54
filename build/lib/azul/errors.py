"""The engine's errors: why a move, a deal, a log entry or a notation is refused."""

from __future__ import annotations

from typing import Any


class EngineError(ValueError):
    """A reason a player can read, kept as an English template and its values so that a caller
    can show it in another language (the engine knows nothing of languages): ``str(exc)`` is
    ``exc.template % exc.params``, and a web layer shows ``gettext(exc.template) % params``.

    The values are numbers and notation (shown as they are, quoted with ``repr`` where the text
    said ``!r``), except under these keys, whose values are words a translation translates too:
    ``color`` (a tile colour's name), ``phase`` and ``wanted_phase`` (a phase's name), ``what``
    and ``example`` (fixed phrases of the notation's errors) and ``reason`` (another error).
    ``games/presenters/engine_words.py`` lists every template and phrase for the translators.
    """

    def __init__(self, template: str, /, **params: Any) -> None:
        self.template = template
        self.params = params
        super().__init__(template % params if params else template)


class IllegalMove(EngineError):
    """A move, deal or log entry that the rules do not allow in this state."""


class InvalidNotation(EngineError):
    """Text that is not a move in the canonical notation."""
