"""A real HTTP server on 127.0.0.1 for what the site calls out to (webhooks): it records each
request and answers what the test queued (a status, headers, a body, a delay, a slow dribble).

    with HttpSink() as sink:
        sink.answer(503, headers={"Retry-After": "1"})   # the first request's answer
        ...                                                 # then 204s
        sink.requests[0].json()
"""

from __future__ import annotations

import json
import ssl
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Received:
    method: str
    path: str
    headers: dict[str, str]  # lower-case names
    body: bytes
    # The address the request came in on (the server's own), as the client dialled it.
    local_address: str

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Reply:
    status: int = 204
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    # Seconds before the status line is sent.
    delay: float = 0.0
    # Seconds between each byte of the body (a server that answers one byte at a time).
    dribble: float = 0.0


class HttpSink:
    def __init__(self, host: str = "127.0.0.1", tls: ssl.SSLContext | None = None) -> None:
        self.requests: list[Received] = []
        # The host names TLS clients sent (SNI).
        self.server_names: list[str | None] = []
        self._replies: deque[Reply] = deque()
        self.default = Reply()
        self._lock = threading.Lock()
        self.received = threading.Condition(self._lock)
        sink = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 (the standard library's name)
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                with sink.received:
                    sink.requests.append(
                        Received(
                            method="POST",
                            path=self.path,
                            headers={k.lower(): v for k, v in self.headers.items()},
                            body=body,
                            local_address=self.connection.getsockname()[0],
                        )
                    )
                    reply = sink._replies.popleft() if sink._replies else sink.default
                    sink.received.notify_all()
                if reply.delay:
                    time.sleep(reply.delay)
                try:
                    self.send_response(reply.status)
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(reply.body)))
                    self.send_header("Connection", "close")
                    self.end_headers()
                    if reply.dribble:
                        for i in range(len(reply.body)):
                            self.wfile.write(reply.body[i : i + 1])
                            self.wfile.flush()
                            time.sleep(reply.dribble)
                    else:
                        self.wfile.write(reply.body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up: what the test is about
                self.close_connection = True

            do_GET = do_POST  # noqa: N815

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass

        self.server = ThreadingHTTPServer((host, 0), Handler)
        self.server.daemon_threads = True
        if tls is not None:

            def note_server_name(sock: Any, name: str | None, context: Any) -> None:
                self.server_names.append(name)

            tls.sni_callback = note_server_name
            self.server.socket = tls.wrap_socket(self.server.socket, server_side=True)
        self.port = self.server.server_address[1]
        self.url = f"{'https' if tls else 'http'}://{host}:{self.port}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def answer(self, status: int = 204, **kwargs: Any) -> None:
        """Queue the answer to the next request not yet answered."""
        with self._lock:
            self._replies.append(Reply(status=status, **kwargs))

    def wait_for(self, count: int, timeout: float = 10.0) -> list[Received]:
        with self.received:
            self.received.wait_for(lambda: len(self.requests) >= count, timeout=timeout)
            return list(self.requests)

    def __enter__(self) -> HttpSink:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
