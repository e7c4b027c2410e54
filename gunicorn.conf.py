"""gunicorn's settings for the site: the Dockerfile, docker-compose.yml and `make bench-web` all
serve it with these.

Synchronous workers, one request at a time each, as gunicorn recommends for a CPU-bound
application behind a buffering reverse proxy (the TLS terminator in front of the site), which
shields them from slow clients. Requests here are CPU-bound Python that waits only on the local
database and Redis. A free worker takes the next connection from the shared listen queue, so
requests are served in order of arrival; with keep-alive connections (the `gthread` worker) a
client stays on one worker, and waits behind that worker's other clients while another worker is
idle. `make bench-web` measured the synchronous workers at a lower move p95 (38-42 ms against
43-54 ms) and less CPU per move than `gthread` workers with one thread each; threads in one process
share its interpreter lock, so more threads add lock hand-offs rather than throughput.

Workers default to gunicorn's rule of thumb, 2 x cores + 1; WEB_CONCURRENCY overrides, and
GUNICORN_THREADS above 1 switches to threaded (`gthread`) workers with keep-alive. Each worker
freezes its heap (`gc.freeze`) once warmed up, as explained below.

The live process (README, "Serving") uses this file too, with uvicorn workers for the ASGI
application, which serve the requests that wait for a game to change without holding a worker:

    GUNICORN_WORKER_CLASS=azul_site.live_worker.LiveWorker WEB_CONCURRENCY=1 \
        gunicorn azul_site.asgi:application --config gunicorn.conf.py --bind 0.0.0.0:8001

(`LiveWorker` is uvicorn's worker that, on SIGTERM, answers the waits it holds at once.)

A synchronous worker never keeps a request waiting (`games.live.can_wait`): one that reached it
is answered at once.
"""

import gc
import multiprocessing
import os

bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
workers = int(os.environ.get("WEB_CONCURRENCY", 2 * multiprocessing.cpu_count() + 1))
threads = int(os.environ.get("GUNICORN_THREADS", "1"))
worker_class = os.environ.get("GUNICORN_WORKER_CLASS") or ("sync" if threads == 1 else "gthread")
# For gthread and uvicorn workers; synchronous workers close each connection after its response.
keepalive = 30

# A deploy (SIGTERM, README "Deploying"): the workers stop taking connections, finish the
# requests in hand and exit; one still busy after `graceful_timeout` is killed. A request may
# run for `timeout` (beyond it its worker is killed anyway), so a stop waits as long; the live
# process's waits answer at once on SIGTERM (azul_site/live_worker.py) and hold nothing up.
# docker-compose.yml's `stop_grace_period` is longer, so that gunicorn's own stop comes first.
timeout = 30
graceful_timeout = timeout


# A worker's first requests finish loading the site (lazy imports, templates, URL patterns, DRF's
# settings); the objects those leave live as long as the worker. Once warmed up, the worker moves
# them out of the garbage collector's sight (after a last collection, so that no garbage is kept
# for good): its full collections, which otherwise walk all of them every few hundred moves,
# then walk only what requests have left since.
FREEZE_AFTER_REQUESTS = int(os.environ.get("GUNICORN_GC_FREEZE_AFTER", "200"))


def post_request(worker, req, environ, resp):
    if worker.nr == FREEZE_AFTER_REQUESTS:
        gc.collect()
        gc.freeze()


# Metrics (core.ops.metrics): with PROMETHEUS_MULTIPROC_DIR set, each worker writes its values to
# files there and /metrics adds them up. The folder is emptied when the server starts, and a
# worker that exits no longer counts in the live gauges (its counters still do).
# (Not through core.ops.metrics: the master would then hold metrics of its own, for nothing.)
METRICS_DIR = os.environ.get("PROMETHEUS_MULTIPROC_DIR", "")


def on_starting(server):
    if METRICS_DIR:
        import shutil

        shutil.rmtree(METRICS_DIR, ignore_errors=True)
        os.makedirs(METRICS_DIR, exist_ok=True)


def child_exit(server, worker):
    if METRICS_DIR:
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)


# /readyz says "shutting down" from the moment a worker is asked to stop (core.ops.readiness):
# the requests in hand finish, and the load balancer sends no more. gunicorn's own SIGTERM
# handler still runs, after the flag is set. (uvicorn replaces this handler with its own once it
# serves: the live process's worker sets the flag in that one, azul_site/live_worker.py.)
#
# A synchronous worker also lets go of the listening socket at once: the master has closed its
# own, but a worker finishing a request still holds its copy, and until it exits the system
# would queue new connections there that no one takes, and then cut them off. Refused instead,
# they go to another server (the proxy's next upstream) at once.
def post_worker_init(worker):
    import signal

    from gunicorn.workers.sync import SyncWorker

    from core.ops import readiness

    stop = signal.getsignal(signal.SIGTERM)

    def stopping(signum, frame):
        readiness.shutting_down.set()
        if callable(stop):
            stop(signum, frame)
        if isinstance(worker, SyncWorker):
            for listener in worker.sockets:
                listener.close()

    signal.signal(signal.SIGTERM, stopping)
