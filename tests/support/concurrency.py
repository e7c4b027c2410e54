"""Running work in several threads at once, each with its own database connection."""

import threading
from collections.abc import Callable
from typing import Any

from django.db import connections


def run_at_once(count: int, work: Callable[[], Any]) -> list:
    """Run `work()` in `count` threads that start together, each with its own database
    connection; the results, and any exception raised in a thread."""
    barrier = threading.Barrier(count)
    results: list = []
    errors: list = []

    def run() -> None:
        try:
            barrier.wait()
            results.append(work())
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors
    return results
