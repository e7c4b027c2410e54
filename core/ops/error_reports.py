"""Errors reported to Sentry (settings: SENTRY_DSN and the SENTRY_ settings), initialised only
when a DSN is set.

What leaves the site: the error, its stack (code lines, not the values of local variables, where
passwords, seeds and tokens pass by), the request's method and path. No personal data
(`send_default_pii` off: no user, IP address, cookies, nor a task's arguments); request headers
and data whose names say they are secret are replaced (Sentry's own list, and the game's
secrets); the query string is dropped, and the keys that some paths carry (a password reset's,
an email confirmation's, an unsubscribe link's, a calendar feed's) are replaced. An email
address is replaced wherever it is in the event: in the error's message (a refused recipient),
a log line before it, a form's field.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sentry_sdk.types import Event

GAME_SECRETS = ["seed", "deal_seed", "bag", "rng", "key", "digest"]

FILTERED = "[Filtered]"

SECRET_IN_PATH = re.compile(
    r"(/accounts/password/reset/key/|/accounts/confirm-email/|/notifications/unsubscribe/"
    r"|/calendar/)"
    r"[^/]+"
)
"""Paths whose next segment is a key: whoever holds it may act as the player (or, a calendar
feed's, read their deadlines)."""


EMAIL_ADDRESS = re.compile(r"[\w.%+-]+@[\w-]+(?:\.[\w-]+)+")


def scrub_path(url: str) -> str:
    return SECRET_IN_PATH.sub(rf"\g<1>{FILTERED}", url.split("?", 1)[0])


def scrub_addresses(value: Any) -> Any:
    """`value` (an event as sent: dicts, lists, strings) with every email address replaced."""
    if isinstance(value, str):
        return EMAIL_ADDRESS.sub(FILTERED, value)
    if isinstance(value, dict):
        return {scrub_addresses(key): scrub_addresses(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [scrub_addresses(item) for item in value]
    return value


def before_send(event: Event, hint: dict[str, Any]) -> Event:
    event = scrub_addresses(event)
    request = event.get("request")
    if isinstance(request, dict):
        url = request.get("url")
        if isinstance(url, str):
            request["url"] = scrub_path(url)
        if request.get("query_string"):
            request["query_string"] = FILTERED
    transaction = event.get("transaction")
    if isinstance(transaction, str):
        event["transaction"] = scrub_path(transaction)
    return event


def sentry_init(*, dsn: str, environment: str, release: str, traces_sample_rate: float) -> None:
    import sentry_sdk
    from sentry_sdk.integrations.celery import CeleryIntegration
    from sentry_sdk.integrations.django import DjangoIntegration
    from sentry_sdk.scrubber import DEFAULT_DENYLIST, EventScrubber

    sentry_sdk.init(
        dsn=dsn,
        integrations=[DjangoIntegration(), CeleryIntegration()],
        environment=environment,
        release=release or None,
        send_default_pii=False,
        include_local_variables=False,
        event_scrubber=EventScrubber(denylist=[*DEFAULT_DENYLIST, *GAME_SECRETS], recursive=True),
        before_send=before_send,
        # Performance tracing costs every request; off unless asked for (0.0 to 1.0). Its
        # transactions carry URLs too.
        traces_sample_rate=traces_sample_rate,
        before_send_transaction=before_send,
    )
