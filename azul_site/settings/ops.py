"""What operators see: metrics, readiness, logs and errors reported to Sentry."""

from django.core.exceptions import ImproperlyConfigured

from azul_site.settings.base import DEBUG, env

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
