"""What stands for the outside world when the scripts start the real stack: an SMTP sink
(`Smtp`, served by aiosmtpd in the script's process) and one HTTP server that is both a push
service and a webhook receiver (`ReachSink`), each keeping every message that reaches it.

`ReachSink`:

- `POST /push/<name>`: a push service's endpoint for the device `<name>`, checked and decrypted
  as the tests' push service does (`tests.support.push_service`: the VAPID header, then the body
  with the device's keys, as a browser does); the payload is kept, or the request refused if
  either fails.
- `POST /hook/<name>`: a webhook; the body is kept, with its signature header checked against the
  webhook's secret when one is registered (`hook_secrets`).

Every arrival is kept as (time, channel, name, payload), the payload as JSON.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from harness import ROOT  # noqa: F401  (the project on sys.path: tests.support below)
from tests.support.push_service import Browser, vapid_problem


class Smtp:
    """The SMTP sink: every message with the time it arrived. `serve(port)` starts it on the
    loopback `port`, `stop()` stops it."""

    def __init__(self) -> None:
        self.messages: list[tuple[float, list[str], bytes]] = []
        self.lock = threading.Lock()
        self.controller: Any = None

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        with self.lock:
            self.messages.append(
                (time.time(), [r.lower() for r in envelope.rcpt_tos], envelope.original_content)
            )
        return "250 Message accepted for delivery"

    def arrived(self, address: str) -> list[float]:
        with self.lock:
            return [at for at, to, _ in self.messages if address.lower() in to]

    def serve(self, port: int) -> None:
        from aiosmtpd.controller import Controller

        self.controller = Controller(self, hostname="127.0.0.1", port=port)
        self.controller.start()

    def stop(self) -> None:
        if self.controller is not None:
            with contextlib.suppress(AssertionError, RuntimeError, AttributeError):
                self.controller.stop()  # unless it never started
            self.controller = None


MAX_BODY = 64 * 1024


class ReachSink:
    """The server; start() it, give devices' endpoints (`push_url`) and webhooks' URLs
    (`hook_url`) to the site, read `arrivals`."""

    def __init__(self, vapid_public_key: str = "") -> None:
        self.vapid_public_key = vapid_public_key
        self.devices: dict[str, Browser] = {}
        self.hook_secrets: dict[str, str] = {}
        self.arrivals: list[tuple[float, str, str, dict[str, Any]]] = []
        self.refusals: list[str] = []
        self.lock = threading.Lock()
        sink = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(min(length, MAX_BODY))
                channel, _, name = self.path.strip("/").partition("/")
                status, why = sink.take(channel, name, dict(self.headers.items()), body)
                if why:
                    with sink.lock:
                        sink.refusals.append(f"{self.path}: {why}")
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.origin = f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.serving = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        if getattr(self, "serving", False):  # shutdown() waits for a loop that never started
            self.server.shutdown()
            self.serving = False
        self.server.server_close()

    def device(self, name: str) -> Browser:
        return self.devices.setdefault(name, Browser())

    def push_url(self, name: str) -> str:
        return f"{self.origin}/push/{name}"

    def hook_url(self, name: str) -> str:
        return f"{self.origin}/hook/{name}"

    def take(
        self, channel: str, name: str, headers: dict[str, str], body: bytes
    ) -> tuple[int, str]:
        at = time.time()
        headers = {k.lower(): v for k, v in headers.items()}
        if channel == "push":
            device = self.devices.get(name)
            if device is None:
                return 410, "no such device"
            if self.vapid_public_key and (
                why := vapid_problem(
                    headers.get("authorization", ""),
                    audience=self.origin,
                    public_key=self.vapid_public_key,
                )
            ):
                return 401, why
            try:
                payload = json.loads(device.decrypt(body))
            except Exception as exc:  # noqa: BLE001
                return 400, f"cannot decrypt: {exc}"
            status = 201
        elif channel == "hook":
            secret = self.hook_secrets.get(name)
            if secret is not None:
                stamp = headers.get("x-azul-timestamp", "")
                expected = hmac.new(
                    secret.encode(), stamp.encode() + b"." + body, hashlib.sha256
                ).hexdigest()
                if not hmac.compare_digest(
                    headers.get("x-azul-signature", ""), f"sha256={expected}"
                ):
                    return 401, "bad signature"
            payload = json.loads(body)
            status = 204
        else:
            return 404, "no such path"
        with self.lock:
            self.arrivals.append((at, channel, name, payload))
        return status, ""

    def arrived(self, channel: str) -> list[tuple[float, str, dict[str, Any]]]:
        with self.lock:
            return [(at, name, p) for at, c, name, p in self.arrivals if c == channel]
