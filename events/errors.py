"""Typed errors of the events services: each with the HTTP status a page or the API answers
with, a stable code and a message a player can read (`core.errors.ServiceError`)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy

from core.errors import ServiceError


class EventError(ServiceError):
    code = "event_error"
    default_message: Any = gettext_lazy("That cannot be done in this event.")


class EventNotFound(EventError):
    status_code = 404
    code = "event_not_found"
    default_message = gettext_lazy("There is no such event.")


class NotOrganiser(EventError):
    status_code = 403
    code = "not_organiser"
    default_message = gettext_lazy("Only the event's organiser can do that.")


class RegistrationClosed(EventError):
    status_code = 409
    code = "registration_closed"
    default_message = gettext_lazy("Registration for this event is closed.")


class EventFull(EventError):
    status_code = 409
    code = "event_full"
    default_message = gettext_lazy("This event is full.")


class AlreadyEntered(EventError):
    status_code = 409
    code = "already_entered"
    default_message = gettext_lazy("You are registered for this event already.")


class NotEntered(EventError):
    status_code = 409
    code = "not_entered"
    default_message = gettext_lazy("You are not registered for this event.")


class NotEligible(EventError):
    """The player may not enter: rating out of range, too few games, a wrong code, a second
    account of someone at the event."""

    status_code = 403
    code = "not_eligible"


class InvalidEvent(EventError):
    """An event's settings that cannot be: a format, table size, start or limit."""

    status_code = 400
    code = "invalid_event"

    def __init__(self, message: str | None = None, *, field: str = "") -> None:
        self.field = field
        super().__init__(message)

    @property
    def extra(self) -> dict[str, Any]:
        return {"field": self.field} if self.field else {}


class EventLimit(EventError):
    status_code = 429
    code = "event_limit"
    default_message = gettext_lazy("You have reached the limit on events for now.")


class EventConflict(EventError):
    status_code = 409
    code = "event_conflict"
