"""The ASGI application, which the live process serves (README, "Serving"): the requests that
wait for a game to change (`games/live/`: the board page's live updates and the API's
`wait_for_turn`), routed to it by the reverse proxy (deploy/nginx.conf), under gunicorn with
uvicorn workers:

    GUNICORN_WORKER_CLASS=azul_site.live_worker.LiveWorker WEB_CONCURRENCY=1 \\
        gunicorn azul_site.asgi:application --config gunicorn.conf.py --bind 0.0.0.0:8001

(uvicorn's worker, which on SIGTERM answers the waits it holds at once: azul_site/live_worker.py.)

Everything else is served by gunicorn's synchronous workers (azul_site/wsgi.py), which cost a
request less (`make bench-live` compares the two).

Database connections come from a pool of DB_POOL_SIZE (8) per process, on PostgreSQL. Django's
ASGI handler runs each request's synchronous code in a thread of its own, so a connection kept
by a thread (CONN_MAX_AGE) would never be used again, and one opened per request would let a
move that wakes hundreds of waiting boards open hundreds of connections at once (PostgreSQL
refuses past 100 by default): with the pool, each request borrows one while it uses the
database, gives it back before it waits (`games.live`) and when it ends, and requests beyond
the pool's size wait their turn.
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "azul_site.settings")

django_application = get_asgi_application()

# After Django is set up: the gate reads the watcher's cap, which imports the games' models.
from games.live.gate import RequestsPerClient  # noqa: E402

# One client's burst is refused at the door, before Django reads anything (`games.live.gate`).
application = RequestsPerClient(django_application)


def _pooled_connections() -> None:
    from django.conf import settings

    database = settings.DATABASES["default"]
    size = int(os.environ.get("DB_POOL_SIZE", "8"))
    if database["ENGINE"] != "django.db.backends.postgresql" or size <= 0:
        return
    database["CONN_MAX_AGE"] = 0  # what Django's pool requires: a connection goes back each time
    database.setdefault("OPTIONS", {}).setdefault(
        "pool", {"min_size": 1, "max_size": size, "timeout": 30}
    )


_pooled_connections()
