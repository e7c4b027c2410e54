"""The API (DRF): authentication, throttles, parsers and renderers, the error shape, the schema."""

import orjson

from azul_site.settings.accounts import TRUSTED_PROXY_COUNT
from azul_site.settings.base import env

REST_FRAMEWORK = {
    # The anonymous throttles' client address (core.http.client_ip): unset, DRF would key them on a
    # raw X-Forwarded-For, which a client can change with every request.
    "NUM_PROXIES": TRUSTED_PROXY_COUNT,
    # Token first: its WWW-Authenticate header turns a bad or missing token into 401, not 403.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_THROTTLE_CLASSES": [
        "rest_framework.throttling.AnonRateThrottle",
        "rest_framework.throttling.UserRateThrottle",
    ],
    # DRF's throttles keep one timestamp per request in the window, read and written back on
    # every request: a per-second rate keeps that list short (a user's 600 a minute cost a move
    # about a millisecond, measured), and stops a runaway script sooner.
    "DEFAULT_THROTTLE_RATES": {
        "anon": env.str("API_THROTTLE_ANON", default="60/minute"),
        "user": env.str("API_THROTTLE_USER", default="10/second"),
        # Creating, joining and rematching games, and inviting to a seat, per player, on the
        # API and the HTML forms alike (games/throttles.py).
        "game_create": env.str("THROTTLE_GAME_CREATE", default="30/hour"),
        "game_join": env.str("THROTTLE_GAME_JOIN", default="60/hour"),
        "game_rematch": env.str("THROTTLE_GAME_REMATCH", default="30/hour"),
        "game_invite": env.str("THROTTLE_GAME_INVITE", default="30/hour"),
        # Saving one's private notes on a game, on the API and the board page alike.
        "game_notes": env.str("THROTTLE_GAME_NOTES", default="120/hour"),
        # The count of games waiting for the player, which every open page asks for now and then
        # (static/games/waiting.js): a few tabs' worth.
        "games_waiting": env.str("THROTTLE_GAMES_WAITING", default="30/minute"),
        # Every point of a replay at once, which each replay page asks for as it loads
        # (games/throttles.py: the site's costliest read).
        "replay_points": env.str("THROTTLE_REPLAY_POINTS", default="60/hour"),
        # A player's download of all their data (azul_site/account_pages.py): a big read.
        "data_download": env.str("THROTTLE_DATA_DOWNLOAD", default="5/day"),
        # Reads of one calendar feed's address, which calendar apps poll (games/web/calendar.py),
        # and a player's new addresses and turnings off of it.
        "calendar_feed": env.str("THROTTLE_CALENDAR_FEED", default="60/hour"),
        "calendar_feed_change": env.str("THROTTLE_CALENDAR_FEED_CHANGE", default="20/hour"),
        # Adding a device for push notices (notifications/push/apis.py): a browser subscribes
        # once, and again when its subscription changes.
        "push_subscribe": env.str("THROTTLE_PUSH_SUBSCRIBE", default="30/hour"),
        # Creating events, entering and leaving them, and an organiser's cancelling and removing
        # of players, per player, on the API and the HTML forms alike (events/throttles.py).
        "event_create": env.str("THROTTLE_EVENT_CREATE", default="20/hour"),
        "event_entry": env.str("THROTTLE_EVENT_ENTRY", default="60/hour"),
        "event_organise": env.str("THROTTLE_EVENT_ORGANISE", default="60/hour"),
    },
    # Every operation's refusals by authentication, permission and throttle (core/api/schema.py).
    "DEFAULT_SCHEMA_CLASS": "core.api.schema.ApiSchema",
    # JSON only, refused with 413 past DATA_UPLOAD_MAX_MEMORY_SIZE; every error is
    # {"detail": ...} (see core/api/responses.py).
    "DEFAULT_PARSER_CLASSES": ["core.api.parsers.LimitedJSONParser"],
    # orjson: several times faster than the standard library's encoder, with the same output
    # (UTC times end in "Z", and keys such as list indexes in errors become strings, as DRF's own
    # encoder writes them).
    "DEFAULT_RENDERER_CLASSES": [
        "drf_orjson_renderer.renderers.ORJSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
    "ORJSON_RENDERER_OPTIONS": [orjson.OPT_UTC_Z, orjson.OPT_NON_STR_KEYS],
    "EXCEPTION_HANDLER": "core.api.responses.api_exception_handler",
}
# Requests to the site are small (a move is a few words); refuse big bodies early.
DATA_UPLOAD_MAX_MEMORY_SIZE = 64 * 1024
SPECTACULAR_SETTINGS = {
    "TITLE": "Azul API",
    "DESCRIPTION": "Correspondence play of Azul. Authenticate with `Authorization: Token <key>`.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI served from our own static files (drf-spectacular-sidecar), not a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Several resources have a `status` with their own values: each enum gets its own name.
    "ENUM_NAME_OVERRIDES": {
        "GameStatusEnum": ["open", "active", "finished", "aborted"],
        "EventStatusEnum": ["registration", "running", "finished", "cancelled"],
        "AnalysisStatusEnum": ["pending", "done", "failed"],
        # The kinds a player sends to push and to webhooks (notifications.models).
        "ChannelChoiceEnum": "notifications.models.CHANNEL_CHOICES",
    },
}
