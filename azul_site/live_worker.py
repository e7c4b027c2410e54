"""The live process's gunicorn worker: uvicorn's (`uvicorn_worker.UvicornWorker`), which on
SIGTERM also answers the waits it holds at once and says it is shutting down (`/readyz`).

uvicorn's own shutdown stops taking connections and then waits for the requests in hand to
finish: a wait held for up to `MAX_WAIT_SECONDS` would hold a deploy that long, and then be cut
off. Answered at once instead (with the game as it is: the page and API clients ask again, and
the proxy sends them to a live process that is up), the process exits within a second.

    GUNICORN_WORKER_CLASS=azul_site.live_worker.LiveWorker WEB_CONCURRENCY=1 \\
        gunicorn azul_site.asgi:application --config gunicorn.conf.py --bind 0.0.0.0:8001
"""

from __future__ import annotations

import sys
import threading
from types import FrameType

from gunicorn.arbiter import Arbiter
from uvicorn.server import Server
from uvicorn_worker import UvicornWorker


def stop_waiting() -> None:
    """Say the process is shutting down and answer every wait it holds, now and from now on."""
    from core.ops import readiness
    from games.live.watcher import watch

    readiness.shutting_down.set()
    watch.close()


class LiveServer(Server):
    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        # A signal handler runs between two steps of the main thread, which might hold the
        # watcher's lock: the waits are woken from a thread of their own.
        threading.Thread(target=stop_waiting, name="live-stop", daemon=True).start()
        super().handle_exit(sig, frame)


class LiveWorker(UvicornWorker):
    # As UvicornWorker._serve (uvicorn-worker 0.4), with LiveServer for uvicorn's Server.
    async def _serve(self) -> None:
        self.config.app = self.wsgi
        server = LiveServer(config=self.config)
        self._install_sigquit_handler()
        await server.serve(sockets=self.sockets)
        if not server.started:
            sys.exit(Arbiter.WORKER_BOOT_ERROR)
