"""Settings for the Azul site, read from the environment.

Every variable is listed and explained in `.env.example`. With no environment at all the site runs
for development: DEBUG on, SQLite in the project folder, Celery tasks run in-process, mail printed
to the console. With DEBUG off it refuses to start without SECRET_KEY and turns on the HTTPS
hardening that `manage.py check --deploy` asks for.
"""

from datetime import timedelta
from pathlib import Path
from typing import Any

import environ
import orjson
from django.core.exceptions import ImproperlyConfigured
from kombu import Exchange, Queue

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()
if (BASE_DIR / ".env").is_file():
    env.read_env(BASE_DIR / ".env")

DEBUG = env.bool("DEBUG", default=True)

if DEBUG:
    SECRET_KEY = env.str("SECRET_KEY", default="django-insecure-development-only-key-do-not-deploy")
else:
    SECRET_KEY = env.str("SECRET_KEY", default="")
    if not SECRET_KEY:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off.")

ALLOWED_HOSTS = env.list(
    "ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"] if DEBUG else []
)
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])
SITE_URL = env.str("SITE_URL", default="http://127.0.0.1:8000").rstrip("/")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_filters",
    "allauth",
    "allauth.account",
    "axes",
    "core",
    "accounts",
    "games",
    "notifications",
    "ratings",
    "analysis",
    "chat",
]

MIDDLEWARE = [
    # Request counts and latency by view (django-prometheus): first and last, so that they time
    # everything between.
    "django_prometheus.middleware.PrometheusBeforeMiddleware",
    # The request's id (X-Request-ID, or a new one) on every log line of the request and on the
    # response (core.ops.log_context).
    "core.ops.log_context.request_id_middleware",
    "django.middleware.security.SecurityMiddleware",
    # The Content-Security-Policy header on every response (CONTENT_SECURITY_POLICY below).
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Compresses pages and JSON where no proxy does (deploy/nginx.conf does it too; a response
    # already compressed is left alone). Below WhiteNoise, which serves its own precompressed
    # static files and whose images it would only squeeze again; above everything that reads or
    # writes a body. BREACH (guessing a secret from compressed sizes): the one secret a page
    # repeats is the CSRF token, and Django masks it afresh in every response (the documented
    # mitigation), so no two pages compress it alike.
    "django.middleware.gzip.GZipMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # After the session, before anything that reads the language (CommonMiddleware, views).
    "django.middleware.locale.LocaleMiddleware",
    # A NUL in the path, query or form (which PostgreSQL refuses in text) is a 400 before any
    # view queries with it; after the language, so the message is in the reader's.
    "core.http.nul_guard.nul_guard_middleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Signing in sets the language cookie to the player's profile's language.
    "accounts.middleware.sign_in_language_middleware",
    # The signed-in player's time zone for every time a page shows.
    "accounts.middleware.time_zone_middleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    # Sets the known-device cookie on a successful sign-in (accounts.lockout).
    "accounts.lockout.known_device_middleware",
    # Last, so that it turns a lockout flagged anywhere in the request into the 429 page.
    "axes.middleware.AxesMiddleware",
    "django_prometheus.middleware.PrometheusAfterMiddleware",
]

ROOT_URLCONF = "azul_site.urls"
WSGI_APPLICATION = "azul_site.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                # LANGUAGE_CODE and LANGUAGES, for <html lang> and the language switcher.
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "azul_site.context_processors.nav_urls",
                "notifications.context_processors.games_waiting",
            ],
        },
    },
]

DATABASES = {
    "default": env.db("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
}
# Each server process keeps its connection between requests: opening one costs PostgreSQL more
# than a request's queries. The health check (a `SELECT 1` before a request's first query, and
# before a pooled connection is lent, azul_site/asgi.py) replaces a connection the database
# dropped (a failover, a restart) instead of failing a request of each process with it. It costs
# one round trip: 0.04-0.08 ms a request on a local PostgreSQL (Django's `is_usable()`, timed
# over 5,000 calls); `make bench-web`'s trivial view moved less than its run-to-run noise.
DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=60)
DATABASES["default"]["CONN_HEALTH_CHECKS"] = env.bool("CONN_HEALTH_CHECKS", default=True)
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # A database that does not answer fails the connection (a 503,
    # core/outages/unavailable.py) within seconds instead of holding the request and its worker
    # until the kernel gives up.
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault(
        "connect_timeout", env.int("DB_CONNECT_TIMEOUT", default=5)
    )
    # Parameters travel apart from the SQL (no quoting in Python), and psycopg prepares a
    # statement that a connection has run a few times (Django's default is never), so that
    # PostgreSQL plans the queries of every page and move once per connection, not per request:
    # planning the game-with-seats join costs several times running it.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        server_side_binding=True, prepare_threshold=env.int("DB_PREPARE_THRESHOLD", default=5)
    )
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# The cache is a helper, never the only copy of anything (README, "Caches"): with Redis down or
# hung, a cache call is a quick miss (short timeouts, errors ignored, and core.outages.cache skips
# Redis for a few seconds after it fails), and the site goes on from the database.
REDIS_URL = env.str("REDIS_URL", default="")
REDIS_TIMEOUT = env.float("REDIS_TIMEOUT", default=0.25)
if REDIS_URL:
    from core.outages.cache import redis_cache

    CACHES = {"default": redis_cache(REDIS_URL, REDIS_TIMEOUT)}
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# Celery. Without a broker, tasks run in-process when they are sent, so development and the
# test suite need no worker; `.delay()` still goes through the same code path.
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default=REDIS_URL)
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=not CELERY_BROKER_URL)
CELERY_TASK_EAGER_PROPAGATES = True
if not CELERY_BROKER_URL:
    # Never let an eager setup reach for Celery's default AMQP broker on localhost.
    CELERY_BROKER_URL = "memory://"
CELERY_TASK_IGNORE_RESULT = True
# A task is acknowledged once done, and goes back to the queue if its worker dies mid-task:
# the tasks are safe to run twice (they re-check the game under its lock).
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TIMEZONE = "UTC"
# A worker logs through LOGGING below (LOG_FORMAT, the id of the request that sent the task),
# not in Celery's own format.
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
# Sending a task is never worth holding a request up: a broker that does not answer within
# these seconds is skipped (core.tasks.send), and the sweeps do what the task would have.
BROKER_TIMEOUT = env.float("BROKER_TIMEOUT", default=0.5)
CELERY_BROKER_CONNECTION_TIMEOUT = BROKER_TIMEOUT
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "socket_timeout": BROKER_TIMEOUT,
    "socket_connect_timeout": BROKER_TIMEOUT,
    # A refused connection is not tried again after kombu's 2 s pause: the send gives up at
    # once (the worker reconnects with retries of its own).
    "max_retries": 0,
}
CELERY_TASK_PUBLISH_RETRY = False
# Queues by kind of work, each served by a worker of its own in production (docker-compose.yml,
# `make worker-moves`, `worker-slow`, `worker-mail`, `worker-sweeps`, `worker-analysis`), so that
# emails and the minute's sweeps never wait behind computer moves, nor a live game's computer
# move behind a post-game analysis (minutes each). The slow levels' moves go to lanes fair between
# players, one a level: `slow_moves` (strong) and `master_moves` (`games.follow_ups.SLOW_LANES`,
# `games.services.slow_lane`). A worker started without
# `-Q` (`make worker`) takes every queue below: enough for development.
CELERY_TASK_ROUTES = {
    "games.tasks.computer_move": {"queue": "moves"},
    "games.tasks.slow_computer_move": {"queue": "slow_moves"},
    "games.tasks.play_timeouts": {"queue": "sweeps"},
    "games.tasks.sweep": {"queue": "sweeps"},
    "games.tasks.computer_turns_check": {"queue": "sweeps"},
    "notifications.tasks.sweep": {"queue": "sweeps"},
    "analysis.tasks.sweep": {"queue": "sweeps"},
    "ratings.tasks.sweep": {"queue": "sweeps"},
    "core.tasks.sweep": {"queue": "sweeps"},
    "notifications.tasks.send_notification": {"queue": "mail"},
    "notifications.tasks.send_event": {"queue": "mail"},
    "notifications.tasks.send_delivery": {"queue": "mail"},
    "notifications.tasks.send_webhook_test": {"queue": "mail"},
    "analysis.tasks.analyse_game": {"queue": "analysis"},
}
WORKER_QUEUES = ("celery", "moves", "slow_moves", "master_moves", "mail", "sweeps", "analysis")
CELERY_TASK_QUEUES = [Queue(name, Exchange(name), routing_key=name) for name in WORKER_QUEUES]
# Search time per analysed game (shared among its positions) and per position, in seconds.
# In-process (no broker), the analysis runs in the request that asks for it: keep it short.
ANALYSIS_SECONDS_PER_GAME = env.float(
    "ANALYSIS_SECONDS_PER_GAME", default=10.0 if CELERY_TASK_ALWAYS_EAGER else 120.0
)
ANALYSIS_MIN_SECONDS_PER_MOVE = env.float("ANALYSIS_MIN_SECONDS_PER_MOVE", default=0.05)
ANALYSIS_MAX_SECONDS_PER_MOVE = env.float("ANALYSIS_MAX_SECONDS_PER_MOVE", default=4.0)
# Fair play: a game is analysed only if its people made at least this many moves themselves (not
# the server's at a timeout, nor the computer's for a seat it took over); and a player has at
# most this many analyses pending at once (asked for by them, not yet done).
ANALYSIS_MIN_PERSON_MOVES = env.int("ANALYSIS_MIN_PERSON_MOVES", default=10)
ANALYSIS_MAX_PENDING_PER_PLAYER = env.int("ANALYSIS_MAX_PENDING_PER_PLAYER", default=3)
# The periodic work, all of it. Every minute: deadlines (timeouts) and computer turns left
# waiting (games.tasks.sweep); reminders, mail still pending and the daily digests
# (notifications.tasks.sweep). Every ten minutes: analyses whose task was lost
# (analysis.tasks.sweep), and the rate limits' expired counts (core.tasks.sweep). Every ten
# seconds (games.sweeps.COMPUTER_CHECK_SECONDS): computer turns alone, whose task was lost, sent
# again well before the minute's sweep would (games.tasks.computer_turns_check). A sweep still
# queued when the next is due is dropped rather than piling up (`expires`). `make run`, which
# has no beat, runs every app's with `manage.py sweep --every 60` (its analyses run in the
# request that asks for them), and the computer turns' check between them.
CELERY_BEAT_SCHEDULE: dict[str, dict[str, Any]] = {
    "games-computer-turns-check": {
        "task": "games.tasks.computer_turns_check",
        "schedule": 10.0,
        "options": {"expires": 9},
    },
    "games-sweep": {
        "task": "games.tasks.sweep",
        "schedule": 60.0,
        "options": {"expires": 55},
    },
    "notifications-sweep": {
        "task": "notifications.tasks.sweep",
        "schedule": 60.0,
        "options": {"expires": 55},
    },
    "ratings-sweep": {
        "task": "ratings.tasks.sweep",
        "schedule": 600.0,
        "options": {"expires": 590},
    },
    "analysis-sweep": {
        "task": "analysis.tasks.sweep",
        "schedule": 600.0,
        "options": {"expires": 590},
    },
    "core-sweep": {
        "task": "core.tasks.sweep",
        "schedule": 600.0,
        "options": {"expires": 590},
    },
}

# Notifications. Emails about games go through an outbox (notifications.Notification), sent by
# a task after the write commits and by a sweep every minute that sends what is overdue and the
# daily digests (notifications/services.py).
SITE_NAME = env.str("SITE_NAME", default="Azul")
# A "your turn" email waits this long, and is dropped if the player opens the game or moves
# meanwhile: two people playing live get no email per move.
NOTIFY_GRACE_SECONDS = env.int("NOTIFY_GRACE_SECONDS", default=120)
# An invitation email waits this long, and is dropped if the game was cancelled or the invitation
# withdrawn meanwhile: inviting and cancelling at once sends nobody an email. Whatever the games,
# a player gets at most one invitation email a day from the same player (notifications/sending.py).
NOTIFY_INVITATION_GRACE_SECONDS = env.int("NOTIFY_INVITATION_GRACE_SECONDS", default=120)
# A failed send is tried again after 1, 2, 4, ... minutes, up to this many attempts in all.
NOTIFY_MAX_ATTEMPTS = env.int("NOTIFY_MAX_ATTEMPTS", default=6)
# The daily digest goes in this hour of the player's local time (Profile.time_zone).
NOTIFY_DIGEST_HOUR = env.int("NOTIFY_DIGEST_HOUR", default=8)
# How long an email's one-click unsubscribe link works.
NOTIFY_UNSUBSCRIBE_MAX_AGE_DAYS = env.int("NOTIFY_UNSUBSCRIBE_MAX_AGE_DAYS", default=90)

# Outbound HTTP: every call to a URL a player or a browser gave (webhooks, push) goes through
# notifications/outbound.py. HTTPS only unless OUTBOUND_ALLOW_HTTP; addresses that are not public
# (loopback, private, link-local, ...) are refused unless in OUTBOUND_ALLOWED_NETWORKS (CIDRs:
# only for tests and a private test rig); the whole exchange gets OUTBOUND_TIMEOUT_SECONDS and at
# most OUTBOUND_MAX_RESPONSE_BYTES of the answer are read.
OUTBOUND_ALLOWED_NETWORKS = env.list("OUTBOUND_ALLOWED_NETWORKS", default=[])
OUTBOUND_ALLOW_HTTP = env.bool("OUTBOUND_ALLOW_HTTP", default=False)
OUTBOUND_TIMEOUT_SECONDS = env.float("OUTBOUND_TIMEOUT_SECONDS", default=5.0)
OUTBOUND_MAX_RESPONSE_BYTES = env.int("OUTBOUND_MAX_RESPONSE_BYTES", default=64 * 1024)
# Webhooks (notifications/webhooks.py): how many one player may have, how many tests they may
# send an hour, and after how many deliveries in a row failed for good a webhook is turned off
# (its owner is told by email). A Retry-After longer than WEBHOOK_RETRY_AFTER_MAX_SECONDS is cut.
WEBHOOKS_MAX_PER_PLAYER = env.int("WEBHOOKS_MAX_PER_PLAYER", default=5)
WEBHOOK_TESTS_PER_HOUR = env.int("WEBHOOK_TESTS_PER_HOUR", default=10)
WEBHOOK_FAILURES_TO_DISABLE = env.int("WEBHOOK_FAILURES_TO_DISABLE", default=5)
WEBHOOK_RETRY_AFTER_MAX_SECONDS = env.int("WEBHOOK_RETRY_AFTER_MAX_SECONDS", default=3600)
# Web Push (notifications/push.py): the site's VAPID key pair (`manage.py vapid_keys` makes one;
# URL-safe base64, the private key's 32 bytes and the public key's 65) and the contact the push
# services may write to ("mailto:..."). Push notices are offered only when all three are set.
WEBPUSH_VAPID_PUBLIC_KEY = env.str("WEBPUSH_VAPID_PUBLIC_KEY", default="")
WEBPUSH_VAPID_PRIVATE_KEY = env.str("WEBPUSH_VAPID_PRIVATE_KEY", default="")
WEBPUSH_VAPID_SUBJECT = env.str("WEBPUSH_VAPID_SUBJECT", default="")
# The most devices one player may have push notices sent to.
PUSH_MAX_DEVICES = env.int("PUSH_MAX_DEVICES", default=10)

# Fair play (games/services/setup.py): what one player may have at once. Games with a computer
# seat that they play (waiting for players or in progress); games they created that wait in the
# lobby for someone to join; games against the `master` computer. Past one: 409 and how to free
# a place.
GAMES_MAX_COMPUTER_GAMES = env.int("GAMES_MAX_COMPUTER_GAMES", default=10)
GAMES_MAX_LOBBY_GAMES = env.int("GAMES_MAX_LOBBY_GAMES", default=5)
GAMES_MAX_MASTER_GAMES = env.int("GAMES_MAX_MASTER_GAMES", default=2)
# Games one player may import as studies (games/record/study_import.py) in 24 hours; past it, 429.
GAMES_MAX_IMPORTS_PER_DAY = env.int("GAMES_MAX_IMPORTS_PER_DAY", default=20)
# A player who declined an invitation cannot be invited by the same player again for this many
# days (a new game, a seat, a rematch: games/services/invite_rules.py).
INVITATION_DECLINE_COOLDOWN_DAYS = env.int("INVITATION_DECLINE_COOLDOWN_DAYS", default=7)
# The most players one player may block (accounts.services.block_create).
ACCOUNTS_MAX_BLOCKS = env.int("ACCOUNTS_MAX_BLOCKS", default=500)
# The most players one player may follow (accounts.services.follow_create).
ACCOUNTS_MAX_FOLLOWS = env.int("ACCOUNTS_MAX_FOLLOWS", default=500)
# Requests to wait for a game to change (games/live) one player may hold at once in a process.
LIVE_MAX_WAITS_PER_PLAYER = env.int("LIVE_MAX_WAITS_PER_PLAYER", default=20)

# Ratings: a player appears on the leaderboard after this many rated games.
RATINGS_MIN_GAMES = env.int("RATINGS_MIN_GAMES", default=5)
# Fair ratings (README, "Fair play"): a game resigned or abandoned before every player has made
# this many moves of their own is not rated; only this many games between the same two players
# are rated in a day (24 h) and in a week (7 days); the leaderboard lists players who have played
# rated games against at least this many different opponents.
RATINGS_MIN_OWN_MOVES = env.int("RATINGS_MIN_OWN_MOVES", default=3)
RATINGS_PAIR_GAMES_PER_DAY = env.int("RATINGS_PAIR_GAMES_PER_DAY", default=3)
RATINGS_PAIR_GAMES_PER_WEEK = env.int("RATINGS_PAIR_GAMES_PER_WEEK", default=10)
RATINGS_MIN_OPPONENTS = env.int("RATINGS_MIN_OPPONENTS", default=5)
# The computer levels' ratings (ratings/levels.py), fitted again every this many seconds from the
# calibration arena and their games against people with an established rating; each person's
# games against one level count as at most RATINGS_LEVEL_GAMES_PER_PERSON games, so that no
# account (nor a few) can move a level far by playing it over and over.
RATINGS_LEVELS_EVERY_SECONDS = env.int("RATINGS_LEVELS_EVERY_SECONDS", default=3600)
RATINGS_LEVEL_GAMES_PER_PERSON = env.int("RATINGS_LEVEL_GAMES_PER_PERSON", default=10)

# Mail. EMAIL_URL wins (smtp+tls://user:pass@host:587, consolemail://, filemail:///path, ...);
# else EMAIL_HOST selects SMTP; else mail is printed to the console for the developer to read.
if env.str("EMAIL_URL", default=""):
    globals().update(env.email_url("EMAIL_URL"))
elif env.str("EMAIL_HOST", default=""):
    EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    EMAIL_HOST = env.str("EMAIL_HOST")
    EMAIL_PORT = env.int("EMAIL_PORT", default=587)
    EMAIL_HOST_USER = env.str("EMAIL_HOST_USER", default="")
    EMAIL_HOST_PASSWORD = env.str("EMAIL_HOST_PASSWORD", default="")
    EMAIL_USE_TLS = env.bool("EMAIL_USE_TLS", default=True)
else:
    EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"
EMAIL_TIMEOUT = 10
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default=f"{SITE_NAME} <noreply@localhost>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL
# Where players write to for help: the "contact us" links (a password that cannot be reset).
CONTACT_EMAIL = env.str("CONTACT_EMAIL", default="contact@localhost")
# Where security problems are reported (/.well-known/security.txt, SECURITY.md).
SECURITY_CONTACT = env.str("SECURITY_CONTACT", default=CONTACT_EMAIL)

# Accounts.
AUTH_USER_MODEL = "accounts.User"
AUTHENTICATION_BACKENDS = [
    # First: axes refuses a locked-out username+IP before any password is hashed.
    "axes.backends.AxesStandaloneBackend",
    # Then the per-address and per-account limits (accounts.lockout), for the site's login and
    # the admin's alike; after axes, so that what axes refuses is not counted here.
    "accounts.lockout.LoginLimitBackend",
    # allauth's: login by username or email.
    "allauth.account.auth_backends.AuthenticationBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "account_login"
LOGIN_REDIRECT_URL = "home"

ACCOUNT_LOGIN_METHODS = {"username", "email"}
ACCOUNT_SIGNUP_FIELDS = ["username*", "email*", "password1*", "password2*"]
ACCOUNT_EMAIL_VERIFICATION = "mandatory"
ACCOUNT_UNIQUE_EMAIL = True
ACCOUNT_CHANGE_EMAIL = True
# Following the emailed link signs the player in, in the browser (session) they signed up in and
# within ACCOUNT_LOGIN_TIMEOUT (allauth's 15 minutes) of signing up; anywhere else, or later, it
# confirms the address and the player logs in with their password (accounts.adapter says so).
ACCOUNT_LOGIN_ON_EMAIL_CONFIRMATION = True
ACCOUNT_CONFIRM_EMAIL_ON_GET = False
# The reset form mails only addresses of accounts: no "unknown account" email to whatever
# address is typed in (which would let anyone mail anyone from the site). It says the same
# either way, so it does not tell who has an account.
ACCOUNT_EMAIL_UNKNOWN_ACCOUNTS = False
ACCOUNT_LOGOUT_REDIRECT_URL = "home"
# Emails name the site by SITE_NAME, subject prefix included ("[Azul] "): accounts.adapter.
ACCOUNT_ADAPTER = "accounts.adapter.AccountAdapter"
# Sign-up also takes the browser's time zone; login caps its field's length.
ACCOUNT_FORMS = {"signup": "accounts.forms.SignupForm", "login": "accounts.forms.LoginForm"}
ACCOUNT_DEFAULT_HTTP_PROTOCOL = "http" if DEBUG else "https"
# allauth's defaults otherwise: per address, 5 password-reset emails a minute and 1 confirmation
# email per 3 minutes; 20 sign-ups a minute per IP; 10 email changes a minute per player. They
# hold with Redis down, counted in the database by every process alike
# (core.outages.cache.RedisCache).
ACCOUNT_RATE_LIMITS = {
    # Failed logins are limited in accounts.lockout (an authentication backend, so the admin's
    # login has the same limits), not by allauth's form: its per-login limit refused the right
    # password too, from anywhere, so ten guesses from one address locked the owner out.
    "login_failed": "",
    # Per client address, whatever the account (accounts.lockout): looser than axes' per
    # (account, address) lockout, so that axes answers first.
    "login_failed_address": "20/m/ip",
    # Per account, all addresses together, except from the account's known devices (browsers
    # it signed in from): slower than axes', reached by a guesser spread over many addresses.
    "login_failed_account": f"{env.int('LOGIN_ACCOUNT_FAILURE_LIMIT', default=30)}/h/key",
}

AXES_FAILURE_LIMIT = env.int("AXES_FAILURE_LIMIT", default=5)
AXES_COOLOFF_TIME = timedelta(minutes=env.int("AXES_COOLOFF_MINUTES", default=15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_USERNAME_CALLABLE = "accounts.lockout.lockout_username"
AXES_LOCKOUT_CALLABLE = "accounts.lockout.lockout_response"
# The lockout page's status: axes' own default, named here for the page (`accounts.lockout`).
AXES_HTTP_RESPONSE_CODE = 429
AXES_RESET_ON_SUCCESS = True
# Each attempt during a lockout restarts the cool-off, so "try again in N minutes" stays true.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = True
# The client's address (core.http.client_ip): REMOTE_ADDR, unless this many proxies stand in front
# of the site (docker-compose.yml's nginx: 1), whose own entries of X-Forwarded-For are then
# read. Anything else in that header is the client's to write, and never trusted: with 0, a
# different X-Forwarded-For per request changes nothing. One setting for every reader: axes,
# allauth's per-address limits and DRF's throttles (REST_FRAMEWORK's NUM_PROXIES below).
TRUSTED_PROXY_COUNT = env.int("TRUSTED_PROXY_COUNT", default=0)
AXES_CLIENT_IP_CALLABLE = "core.http.client_ip.client_address"
ALLAUTH_TRUSTED_PROXY_COUNT = TRUSTED_PROXY_COUNT

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
        # Adding a device for push notices (notifications/push_apis.py): a browser subscribes
        # once, and again when its subscription changes.
        "push_subscribe": env.str("THROTTLE_PUSH_SUBSCRIBE", default="30/hour"),
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
        "AnalysisStatusEnum": ["pending", "done", "failed"],
        # The kinds a player sends to push and to webhooks (notifications.models).
        "ChannelChoiceEnum": "notifications.models.CHANNEL_CHOICES",
    },
}

# Languages. A visitor's language is the one they chose with the switcher in the header (a
# cookie, set by `i18n/setlang/`), else the first of LANGUAGES that their browser asks for
# (Accept-Language), else LANGUAGE_CODE. Emails go in the recipient's Profile.language.
# Translations live in locale/ (`make messages` updates and compiles them; the compiled .mo
# files are committed, so a machine without gettext serves them).
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("ko", "한국어")]
LOCALE_PATHS = [BASE_DIR / "locale"]
LANGUAGE_COOKIE_AGE = 365 * 24 * 60 * 60
LANGUAGE_COOKIE_SAMESITE = "Lax"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
# A relative STATIC_ROOT is in the project folder, wherever the command runs from.
STATIC_ROOT = BASE_DIR / env.str("STATIC_ROOT", default="staticfiles")
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        # The manifest needs `collectstatic`; development and tests serve files as they are.
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "core.pages.storage.StaticStorage"
    },
}
WHITENOISE_USE_FINDERS = DEBUG
WHITENOISE_AUTOREFRESH = DEBUG
MEDIA_ROOT = BASE_DIR / "media"

# Production hardening; each switch can be turned off from the environment, e.g. behind a
# proxy that already redirects to HTTPS.
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=not DEBUG)
# The load balancer's and the scraper's plain-HTTP requests to the process itself.
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$", r"^metrics$"]
if env.bool("SECURE_PROXY_SSL_HEADER", default=False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# Sessions are read on every page: served from the cache, kept in the database (which serves
# them while Redis is down).
SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
SESSION_COOKIE_SECURE = env.bool("SECURE_COOKIES", default=not DEBUG)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
# The language choice is no secret, but sent over plain HTTP it would say who is browsing.
LANGUAGE_COOKIE_SECURE = SESSION_COOKIE_SECURE
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=0 if DEBUG else 31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=not DEBUG)
SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=not DEBUG)
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# What a page may load and run: only this site's own files. No inline script and no eval, so an
# injected <script> or onclick= does not run; pages pass data to their scripts in data-
# attributes or json_script. img-src allows data: for the small SVG icons inlined in the CSS.
# The API's docs page (Swagger UI, azul_site/urls.py) loosens style-src for itself alone.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        # The installable app's service worker and manifest (azul_site/pwa.py): said outright,
        # though default-src allows them, so that a change there cannot drop them unnoticed.
        "worker-src": ["'self'"],
        "manifest-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "frame-ancestors": ["'none'"],
        "form-action": ["'self'"],
    }
}

# What operators see (README, "What operators see"). /metrics answers only these addresses
# (or networks), by the connection's own address, or a request with
# `Authorization: Bearer <METRICS_TOKEN>`.
METRICS_ALLOWED_IPS = env.list("METRICS_ALLOWED_IPS", default=["127.0.0.1", "::1"])
METRICS_TOKEN = env.str("METRICS_TOKEN", default="")
# A Celery worker serves its metrics on this port (0: not at all), at this address
# (core.ops.metrics).
METRICS_PORT = env.int("METRICS_PORT", default=0)
METRICS_ADDRESS = env.str("METRICS_ADDRESS", default="127.0.0.1")
# /readyz: seconds the database has to answer before the process says it is not ready.
READYZ_DATABASE_TIMEOUT = env.float("READYZ_DATABASE_TIMEOUT", default=1.0)

# Logs: `plain` lines for a person, or `json`, one JSON object per line for a log collector
# (time, level, logger, message, and the game id, request id and path where there are some).
LOG_FORMAT = env.str("LOG_FORMAT", default="plain")
if LOG_FORMAT not in ("plain", "json"):
    raise ImproperlyConfigured("LOG_FORMAT must be plain or json.")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"request": {"()": "core.ops.log_context.RequestFilter"}},
    "formatters": {
        "plain": {"format": "{asctime} {levelname} {name}: {message}", "style": "{"},
        "json": {
            "()": "core.ops.log_context.JsonFormatter",
            "fmt": "{asctime}{levelname}{name}{message}",
            "style": "{",
            "rename_fields": {"asctime": "time", "levelname": "level", "name": "logger"},
        },
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": LOG_FORMAT,
            "filters": ["request"],
        },
    },
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    "loggers": {
        "django.db.backends": {"level": "INFO"},
        "axes": {"level": env.str("AXES_LOG_LEVEL", default="WARNING")},
    },
}

# Errors go to Sentry when SENTRY_DSN is set; without it, sentry-sdk is not even imported.
SENTRY_DSN = env.str("SENTRY_DSN", default="")
if SENTRY_DSN:
    from core.ops.error_reports import sentry_init

    sentry_init(
        dsn=SENTRY_DSN,
        environment=env.str("SENTRY_ENVIRONMENT", default="development" if DEBUG else "production"),
        release=env.str("SENTRY_RELEASE", default=""),
        traces_sample_rate=env.float("SENTRY_TRACES_SAMPLE_RATE", default=0.0),
    )
