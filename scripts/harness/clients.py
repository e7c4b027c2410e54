"""HTTP clients of the site: a lean keep-alive one for load (`Client`), one with a player's API
token that parses JSON (`Http`), a one-off GET (`plain_get`), and an asyncio one for thousands of
connections from one thread (`aget`).
"""

from __future__ import annotations

import asyncio
import http.client
import socket
import time
from dataclasses import dataclass
from typing import Any

import orjson


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Client:
    """HTTP/1.1 on one connection at a time, kept alive while the server allows, sending back the
    cookies the server set (as a browser sends its CSRF cookie).

    Written on a socket: the standard library's client parses every response's headers with the
    email package, which costs the load generator, on the same two cores as the server, more than
    the rest of its work."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.sock: socket.socket | None = None
        self.buffer = b""
        self.cookies: dict[str, str] = {}

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
        self.sock, self.buffer = None, b""

    def request(
        self, method: str, path: str, headers: dict[str, str], body: bytes | None = None
    ) -> tuple[int, bytes, float]:
        lines = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{self.port}"]
        lines += [f"{name}: {value}" for name, value in headers.items() if name != "Cookie"]
        jar = [headers["Cookie"]] if "Cookie" in headers else []
        jar += [f"{name}={value}" for name, value in self.cookies.items()]
        if jar:
            lines.append(f"Cookie: {'; '.join(jar)}")
        if body is not None:
            lines.append(f"Content-Length: {len(body)}")
        message = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + (body or b"")
        for attempt in (1, 2):
            started = time.perf_counter()
            try:
                if self.sock is None:
                    self.sock = socket.create_connection(("127.0.0.1", self.port), timeout=30)
                    self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                self.sock.sendall(message)
                status, response_headers, data = self._response()
            except (ConnectionError, OSError):
                self.close()  # a kept-alive connection the server had closed: once more
                if attempt == 2:
                    raise
                continue
            elapsed = time.perf_counter() - started
            for name, value in response_headers:
                if name == "set-cookie":
                    cookie, _, cookie_value = value.split(";", 1)[0].partition("=")
                    self.cookies[cookie.strip()] = cookie_value
                elif name == "connection" and value.lower() == "close":
                    self.close()
            return status, data, elapsed
        raise RuntimeError("unreachable")

    def _receive(self) -> bytes:
        assert self.sock is not None
        chunk = self.sock.recv(65536)
        if not chunk:
            raise ConnectionError("the server closed the connection")
        return chunk

    def _response(self) -> tuple[int, list[tuple[str, str]], bytes]:
        data = self.buffer
        while b"\r\n\r\n" not in data:
            data += self._receive()
        head, _, data = data.partition(b"\r\n\r\n")
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        headers = [
            (name.strip().lower(), value.strip())
            for name, _, value in (line.partition(":") for line in header_lines)
        ]
        found = dict(headers)
        if "content-length" not in found:  # Django always sets it for these responses
            raise ValueError(f"no Content-Length in the response to {status_line!r}")
        length = int(found["content-length"])
        while len(data) < length:
            data += self._receive()
        self.buffer = data[length:]
        return int(status_line.split(" ", 2)[1]), headers, data[:length]


def healthy(port: int) -> bool:
    """Whether the site on `port` answers /healthz."""
    try:
        status, _, _ = Client(port).request("GET", "/healthz", {})
    except OSError:
        return False
    return status == 200


def wait_for(port: int, timeout: float = 30) -> None:
    end = time.time() + timeout
    while time.time() < end:
        if healthy(port):
            return
        time.sleep(0.2)
    raise SystemExit("gunicorn did not answer /healthz in time")


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: bytes

    @property
    def data(self) -> Any:
        try:
            return orjson.loads(self.body) if self.body else None
        except orjson.JSONDecodeError:
            return None

    @property
    def code(self) -> str:
        data = self.data
        return str(data.get("code", "")) if isinstance(data, dict) else ""


class Http:
    """One keep-alive connection to the site, with a player's token; one per thread."""

    def __init__(self, port: int, token: str) -> None:
        self.port, self.token = port, token
        self.conn: http.client.HTTPConnection | None = None

    def request(self, method: str, path: str, body: Any = None, *, attempts: int = 2) -> Reply:
        """The answer; a connection that failed is opened again and the request sent again, up
        to `attempts` times in all (a keep-alive connection the server closed meanwhile)."""
        headers = {"Authorization": f"Token {self.token}", "Accept": "application/json"}
        payload = None
        if body is not None or method == "POST":
            payload = orjson.dumps(body if body is not None else {})
            headers["Content-Type"] = "application/json"
        for attempt in range(1, attempts + 1):
            try:
                if self.conn is None:
                    self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=90)
                self.conn.request(method, path, body=payload, headers=headers)
                response = self.conn.getresponse()
                data = response.read()
                found = {k.lower(): v for k, v in response.getheaders()}
                if found.get("connection", "").lower() == "close":
                    self.conn.close()
                    self.conn = None
                return Reply(response.status, found, data)
            except (http.client.HTTPException, OSError):
                if self.conn is not None:
                    self.conn.close()
                self.conn = None
                if attempt == attempts:
                    raise
        raise RuntimeError("unreachable")


def plain_get(port: int, path: str, headers: dict[str, str], timeout: float = 30) -> Reply:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path, headers=headers)
        response = conn.getresponse()
        return Reply(response.status, dict(response.getheaders()), response.read())
    finally:
        conn.close()


async def aget(
    port: int, path: str, headers: dict[str, str], conn: list | None = None
) -> tuple[int, dict[str, str], bytes]:
    """GET over `conn` (a [reader, writer] kept alive, reopened when closed) or a new connection."""
    lines = [f"GET {path} HTTP/1.1", f"Host: 127.0.0.1:{port}"]
    lines += [f"{k}: {v}" for k, v in headers.items()]
    data = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
    for attempt in (1, 2):
        if conn is None or conn[0] is None:
            reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=2**20)
            if conn is not None:
                conn[:] = [reader, writer]
        else:
            reader, writer = conn
        try:
            writer.write(data)
            head = await reader.readuntil(b"\r\n\r\n")
            status_line, *header_lines = head.decode("latin-1").split("\r\n")
            found = {}
            for line in header_lines:
                if line:
                    name, _, value = line.partition(":")
                    found[name.strip().lower()] = value.strip()
            status = int(status_line.split()[1])
            length = 0 if status in (204, 304) else int(found.get("content-length", 0))
            body = await reader.readexactly(length) if length else b""
            if conn is None or found.get("connection", "").lower() == "close":
                writer.close()
                if conn is not None:
                    conn[:] = [None, None]
            return status, found, body
        except (ConnectionError, asyncio.IncompleteReadError):
            writer.close()
            if conn is not None:
                conn[:] = [None, None]
            if attempt == 2 or conn is None:
                raise
    raise RuntimeError("unreachable")
