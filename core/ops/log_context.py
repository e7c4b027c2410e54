"""What every log line of a request carries, and the JSON lines (settings.LOG_FORMAT=json).

A request's id (its `X-Request-ID` header, which the proxy sets, else a new one) and path are
kept for the request's thread, added to each of its log records (`RequestFilter`) and sent back
in the response's `X-Request-ID`, so that a player's report, the proxy's log and the site's
lines about one request can be matched. The id goes with the tasks the request sends (a header
of each task's message), and the worker's log records of each task carry it too. Log calls
about a game pass `extra={"game_id": ...}`.

Nothing secret goes in a log line: log calls name games, plies and kinds of things, never a
move's deal (the tiles drawn), a seed, a token or a password.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable
from contextvars import ContextVar, Token
from datetime import UTC, datetime

from celery import Task
from django.http import HttpRequest, HttpResponse
from pythonjsonlogger.core import RESERVED_ATTRS
from pythonjsonlogger.json import JsonFormatter as _JsonFormatter

request_id: ContextVar[str | None] = ContextVar("request_id", default=None)
request_path: ContextVar[str | None] = ContextVar("request_path", default=None)

# Taken from the client (or the proxy) only when it looks like an id: no log injection.
REQUEST_ID_FORMAT = re.compile(r"[A-Za-z0-9._-]{1,64}")
# The header of a task's message that carries the id of the request that sent it.
TASK_HEADER = "azul_request_id"


def request_id_middleware(
    get_response: Callable[[HttpRequest], HttpResponse],
) -> Callable[[HttpRequest], HttpResponse]:
    def middleware(request: HttpRequest) -> HttpResponse:
        given = request.META.get("HTTP_X_REQUEST_ID", "")
        rid = given if REQUEST_ID_FORMAT.fullmatch(given) else os.urandom(16).hex()
        # Also on the request: Django logs a response's error status once every middleware
        # has returned, with the request in the record.
        request.META["azul.request_id"] = rid
        id_token, path_token = request_id.set(rid), request_path.set(request.path)
        try:
            response = get_response(request)
        finally:
            request_id.reset(id_token)
            request_path.reset(path_token)
        response["X-Request-ID"] = rid
        return response

    return middleware


class RequestFilter(logging.Filter):
    """Adds the request's id and path to a record logged while it is served, or about it."""

    def filter(self, record: logging.LogRecord) -> bool:
        if hasattr(record, "request_id"):
            return True
        request = getattr(record, "request", None)
        if isinstance(request, HttpRequest) and "azul.request_id" in request.META:
            record.request_id, record.path = request.META["azul.request_id"], request.path
        elif (rid := request_id.get()) is not None:
            record.request_id = rid
            # A task's records carry its request's id, not a path it did not serve.
            if (path := request_path.get()) is not None:
                record.path = path
        return True


def task_headers_add_request_id(headers: dict[str, object] | None = None, **_: object) -> None:
    """Celery's `before_task_publish`: a task sent while a request (or a task that one sent) is
    served carries that request's id in its message."""
    rid = request_id.get()
    if rid is not None and headers is not None:
        headers.setdefault(TASK_HEADER, rid)


_task_tokens: dict[str, Token[str | None]] = {}


def task_request_id_restore(task_id: str = "", task: Task | None = None, **_: object) -> None:
    """Celery's `task_prerun`: the id that came with the task, for its log records (and the
    tasks it sends). A task run in-process (eager) has no such header: it keeps the id of the
    request it runs in."""
    rid = getattr(task.request, TASK_HEADER, None) if task is not None else None
    if isinstance(rid, str) and REQUEST_ID_FORMAT.fullmatch(rid):
        _task_tokens[task_id] = request_id.set(rid)


def task_request_id_forget(task_id: str = "", **_: object) -> None:
    """Celery's `task_postrun`: the worker's next task does not inherit this one's id."""
    token = _task_tokens.pop(task_id, None)
    if token is not None:
        request_id.reset(token)


class JsonFormatter(_JsonFormatter):
    """One JSON object per line: time (UTC, ISO 8601), level, logger, message, then what the
    call passed in `extra` (game_id...) and the request's id and path. Django's request logs
    carry the request object itself, which is left out (its id and path are there)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        kwargs.setdefault("reserved_attrs", [*RESERVED_ATTRS, "taskName", "request", "server_time"])
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:  # noqa: N802
        return datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds")
