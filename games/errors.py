"""Typed errors raised by the game services and selectors.

Each carries the HTTP status an API or page should answer with and a message a player can read;
the DRF exception handler (`core.api.responses.api_exception_handler`) turns them into
`{"detail": message, "code": code, ...extra}` bodies; every 409 carries the game's `current_ply`.
"""

from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, gettext_noop

from core.errors import ServiceError


class GameError(ServiceError):
    code: str = "game_error"
    default_message: Any = gettext_lazy("That cannot be done in this game.")


class GameNotFound(GameError):
    status_code = 404
    code = "game_not_found"
    default_message = gettext_lazy("There is no such game.")


class NotAPlayer(GameError):
    status_code = 403
    code = "not_a_player"
    default_message = gettext_lazy("You are not playing in this game.")


class NotYourTurn(GameError):
    status_code = 403
    code = "not_your_turn"
    default_message = gettext_lazy("It is not your turn.")


class GameConflict(GameError):
    """The game is not where the request needs it to be: over, not started yet, full, moved on.
    Answered with 409 and the game's `current_ply` (when the raiser knows it; the API's
    exception handler reads it otherwise), so a script can fetch the game and decide again."""

    status_code = 409
    code = "game_conflict"

    def __init__(
        self,
        message: str | None = None,
        *,
        current_ply: int | None = None,
        code: str | None = None,
    ) -> None:
        self.current_ply = current_ply
        if code is not None:
            self.code = code
        super().__init__(message)

    @property
    def extra(self) -> dict[str, Any]:
        return {} if self.current_ply is None else {"current_ply": self.current_ply}


class StaleMove(GameConflict):
    code = "stale_move"

    def __init__(self, current_ply: int, message: str | None = None) -> None:
        super().__init__(
            message
            or _(
                "The game moved on while you were choosing (another move was played): look at"
                " the game as it is now and choose again."
            ),
            current_ply=current_ply,
        )


class AlreadyMoved(StaleMove):
    """A stale move whose player has themselves moved since the ply they saw: most likely from
    another tab or window of theirs, so "someone moved first" would mislead them."""

    code = "already_moved"

    def __init__(self, current_ply: int) -> None:
        super().__init__(
            current_ply,
            _(
                "You already moved in another tab or window: this page is out of date. Reload"
                " to see the game as it is."
            ),
        )


class EngineRefusal(GameError):
    """A move the engine refused: it carries the move as sent (`move`) and the engine's error
    (`engine_error`, an `azul.EngineError` that keeps its English template and values). Its
    `message` is in English, for logs and scripts; the page and the API put it in the player's
    language (`presenters.engine_words.refusal_text`), from `sentence`."""

    status_code = 400
    sentence: str = gettext_noop("%(move)s: %(reason)s")

    def __init__(
        self,
        message: str | None = None,
        *,
        move: str | None = None,
        engine_error: Exception | None = None,
    ) -> None:
        self.move = move
        self.engine_error = engine_error
        if message is None and engine_error is not None:
            message = self.sentence % {"move": repr(move), "reason": str(engine_error)}
        super().__init__(message)


class IllegalMoveError(EngineRefusal):
    """A well-formed move that the rules do not allow in this position."""

    code = "illegal_move"
    default_message = gettext_lazy("That move is not allowed.")
    sentence = gettext_noop("Illegal move %(move)s: %(reason)s")


class InvalidNotation(EngineRefusal):
    """Text that is not a move in the canonical notation at all."""

    code = "invalid_notation"
    sentence = gettext_noop("Not a move %(move)s: %(reason)s")
    default_message = gettext_lazy(
        "That is not a move: write it like 'F3 blue 2', 'C red floor' or 'wall 2 4'."
    )


class InvalidAction(GameError):
    """A request the rules of the site refuse: bad game settings, joining a full game, ..."""

    status_code = 400
    code = "invalid_action"


class InvalidContribution(InvalidAction):
    """A player's contribution to the game's deals that is not 1 to 64 printable ASCII
    characters (`services.setup.contribution_or_new`)."""

    code = "invalid_contribution"


class DeclinedRecently(GameConflict):
    """The player declined an invitation of the inviter's lately: not invited again before
    `until` (`services.setup.require_may_invite`)."""

    code = "declined_recently"

    def __init__(self, message: str, *, until: Any) -> None:
        self.until = until
        super().__init__(message)

    @property
    def extra(self) -> dict[str, Any]:
        return {**super().extra, "until": self.until.isoformat()}
