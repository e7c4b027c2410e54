"""Celery: the broker, the queues and where each task goes, and the periodic work (beat)."""

from typing import Any

from kombu import Exchange, Queue

from azul_site.settings.base import env
from azul_site.settings.data import REDIS_URL

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
# A worker waits longer on the broker than a request does (azul_site/celery.py sets it as the
# worker starts): kombu's Redis transport leaves a task whose acknowledgement timed out counted
# against the worker's prefetch for good, so with BROKER_TIMEOUT a Redis that stalls for a few
# seconds (a fork for a snapshot, a paused host: the soak's "redis hung") could leave a worker
# alive that never takes another task. Seconds; longer than any stall the broker should have.
WORKER_BROKER_TIMEOUT = env.float("WORKER_BROKER_TIMEOUT", default=30.0)
# Queues by kind of work, each served by a worker of its own in production (docker-compose.yml,
# `make worker-moves`, `worker-slow`, `worker-mail`, `worker-sweeps`, `worker-analysis`), so that
# emails and the minute's sweeps never wait behind computer moves, nor a live game's computer
# move behind a post-game analysis (minutes each). The slow levels' moves go to lanes fair between
# players, one a level: `slow_moves` (strong) and `master_moves` (`games.follow_ups.SLOW_LANES`,
# `games.services.moves`). A worker started without
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
    "events.tasks.sweep": {"queue": "sweeps"},
    "events.tasks.event_start": {"queue": "sweeps"},
    "events.tasks.event_advance": {"queue": "sweeps"},
    "notifications.tasks.send_notification": {"queue": "mail"},
    "notifications.tasks.send_event": {"queue": "mail"},
    "notifications.tasks.send_delivery": {"queue": "mail"},
    "notifications.tasks.send_webhook_test": {"queue": "mail"},
    "analysis.tasks.analyse_game": {"queue": "analysis"},
}
WORKER_QUEUES = ("celery", "moves", "slow_moves", "master_moves", "mail", "sweeps", "analysis")
CELERY_TASK_QUEUES = [Queue(name, Exchange(name), routing_key=name) for name in WORKER_QUEUES]
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
    "events-sweep": {
        "task": "events.tasks.sweep",
        "schedule": 60.0,
        "options": {"expires": 55},
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
