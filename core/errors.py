"""The base of every error a service raises for a player to read.

An error carries the HTTP status a page or the API answers with, a stable `code` for scripts,
and a message in the language of the request that raised it; the API renders it as
`{"detail": message, "code": code, ...extra}` (`core.api.responses.api_exception_handler`).
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy


class ServiceError(Exception):
    status_code: int = 400
    code: str = "invalid"
    # Lazy, and made text when raised: in the language of the request that raised it.
    default_message: Any = gettext_lazy("That cannot be done.")

    def __init__(self, message: str | None = None, *, status_code: int | None = None) -> None:
        self.message = str(message or self.default_message)
        if status_code is not None:
            self.status_code = status_code
        super().__init__(self.message)

    @property
    def extra(self) -> dict[str, Any]:
        """Fields added to the error body beside `detail` and `code`."""
        return {}

    def as_dict(self) -> dict[str, Any]:
        return {"detail": self.message, "code": self.code, **self.extra}
