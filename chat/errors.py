"""What the chat's services refuse, with the status the API and the pages answer."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from core.api.responses import error_codes_document
from core.errors import ServiceError


class ChatError(ServiceError):
    code = "chat_invalid"


class ChatNotFound(ChatError):
    status_code = 404
    code = "not_found"
    default_message = _("No such game.")


class ChatForbidden(ChatError):
    status_code = 403
    code = "chat_forbidden"
    default_message = _("The chat of this game is for its players.")


class ChatClosed(ChatError):
    status_code = 403
    code = "chat_closed"
    default_message = _("This game's chat is closed.")


class ChatSuspended(ChatError):
    status_code = 403
    code = "chat_suspended"
    default_message = _("A moderator has suspended your chat.")


class ChatTooFast(ChatError):
    status_code = 429
    code = "chat_rate_limited"

    def __init__(self, message: str, *, retry_after: int) -> None:
        self.retry_after = retry_after
        super().__init__(message)


error_codes_document(
    {
        "chat_invalid": "400: the message or report is not acceptable; the message says why",
        "chat_forbidden": "403: the chat is for the game's players",
        "chat_closed": "403: the game's chat no longer takes messages",
        "chat_suspended": "403: a moderator suspended the player's chat",
        "chat_rate_limited": "429: too many messages or reports; `Retry-After` says when",
    }
)
