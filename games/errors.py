"""Typed errors raised by the game services and selectors.

Each carries the HTTP status an API or page should answer with and a message a player can read;
the DRF exception handler (`games.apis.api_exception_handler`) turns them into
`{"detail": message, "code": code, ...extra}` bodies.
"""

from typing import Any


class GameError(Exception):
    status_code: int = 400
    code: str = "game_error"
    default_message: str = "That cannot be done in this game."

    def __init__(self, message: str | None = None, *, status_code: int | None = None) -> None:
        self.message = message or self.default_message
        if status_code is not None:
            self.status_code = status_code
        super().__init__(self.message)

    @property
    def extra(self) -> dict[str, Any]:
        """Fields added to the error body beside `detail` and `code`."""
        return {}

    def as_dict(self) -> dict[str, Any]:
        return {"detail": self.message, "code": self.code, **self.extra}


class GameNotFound(GameError):
    status_code = 404
    code = "game_not_found"
    default_message = "There is no such game."


class NotAPlayer(GameError):
    status_code = 403
    code = "not_a_player"
    default_message = "You are not playing in this game."


class NotYourTurn(GameError):
    status_code = 403
    code = "not_your_turn"
    default_message = "It is not your turn."


class StaleMove(GameError):
    status_code = 409
    code = "stale_move"

    def __init__(self, current_ply: int, message: str | None = None) -> None:
        self.current_ply = current_ply
        super().__init__(
            message
            or f"The game has moved on (it is now at ply {current_ply}): reload and try again."
        )

    @property
    def extra(self) -> dict[str, Any]:
        return {"current_ply": self.current_ply}


class IllegalMoveError(GameError):
    status_code = 400
    code = "illegal_move"
    default_message = "That move is not allowed."


class InvalidAction(GameError):
    """A request the rules of the site refuse: bad game settings, joining a full game, ..."""

    status_code = 400
    code = "invalid_action"
