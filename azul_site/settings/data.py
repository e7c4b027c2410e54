"""The database and the cache (Redis)."""

from azul_site.settings.base import BASE_DIR, env

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
