"""gunicorn's settings for the site: the Dockerfile, docker-compose.yml and `make bench-web` all
serve it with these.

One thread per worker process: requests here are CPU-bound Python, and the threads of one process
share one interpreter lock, so a second thread adds lock hand-offs rather than throughput
(`make bench-web` measured 3 workers x 2 threads spending about 1.5 times the CPU per move of
single-threaded workers). Workers default to gunicorn's rule of thumb, 2 x cores + 1;
WEB_CONCURRENCY and GUNICORN_THREADS override.
"""

import multiprocessing
import os

bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
workers = int(os.environ.get("WEB_CONCURRENCY", 2 * multiprocessing.cpu_count() + 1))
# gthread rather than sync: same one request at a time per thread, but keep-alive connections.
worker_class = "gthread"
threads = int(os.environ.get("GUNICORN_THREADS", "1"))
keepalive = 30
