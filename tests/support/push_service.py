"""A push service on 127.0.0.1 for the Web Push tests, and the browser's side of a subscription.

`Browser` is what a browser makes when it subscribes: a P-256 key pair and a 16-byte auth secret
(RFC 8291). `PushService` is a real HTTP server: each POST to `/push/<device>` is checked as a
push service would (RFC 8292: the VAPID JWT signed with the site's public key, for this origin,
not expired) and decrypted as the browser would, with the device's private key and auth secret.
The decryption is written here from RFC 8291 and RFC 8188 with `cryptography` alone, apart from
the library the site encrypts with, so that the two check each other. It answers what the test
queued (`answer(410)`), 201 otherwise.
"""

from __future__ import annotations

import base64
import json
import os
import struct
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, utils
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _hkdf(*, salt: bytes, ikm: bytes, info: bytes, length: int) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=length, salt=salt, info=info).derive(ikm)


@dataclass
class Browser:
    """The browser's side of one push subscription."""

    private_key: ec.EllipticCurvePrivateKey = field(
        default_factory=lambda: ec.generate_private_key(ec.SECP256R1())
    )
    auth_secret: bytes = field(default_factory=lambda: os.urandom(16))

    @property
    def public_bytes(self) -> bytes:
        return self.private_key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )

    @property
    def p256dh(self) -> str:
        return b64url(self.public_bytes)

    @property
    def auth(self) -> str:
        return b64url(self.auth_secret)

    def decrypt(self, body: bytes) -> bytes:
        """RFC 8291 (section 3.4) over RFC 8188's aes128gcm, as a browser decrypts a push."""
        salt, record_size, id_length = body[:16], struct.unpack(">I", body[16:20])[0], body[20]
        server_public = body[21 : 21 + id_length]
        ciphertext = body[21 + id_length :]
        if len(ciphertext) > record_size:
            raise ValueError("more than one record: a push message is one")
        peer = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), server_public)
        shared = self.private_key.exchange(ec.ECDH(), peer)
        ikm = _hkdf(
            salt=self.auth_secret,
            ikm=shared,
            info=b"WebPush: info\x00" + self.public_bytes + server_public,
            length=32,
        )
        key = _hkdf(salt=salt, ikm=ikm, info=b"Content-Encoding: aes128gcm\x00", length=16)
        nonce = _hkdf(salt=salt, ikm=ikm, info=b"Content-Encoding: nonce\x00", length=12)
        padded = AESGCM(key).decrypt(nonce, ciphertext, None)
        # The last record ends with the delimiter 2, then padding zeros.
        stripped = padded.rstrip(b"\x00")
        if not stripped.endswith(b"\x02"):
            raise ValueError("no last-record delimiter")
        return stripped[:-1]


def vapid_problem(authorization: str, *, audience: str, public_key: str) -> str:
    """ "" if `authorization` is a VAPID header (RFC 8292: `vapid t=<JWT>, k=<key>`) signed with
    `public_key` for `audience`, not expired and at most a day ahead; else what is wrong."""
    if not authorization.startswith("vapid "):
        return f"not a vapid header: {authorization[:20]!r}"
    params = dict(
        part.strip().split("=", 1) for part in authorization.removeprefix("vapid ").split(",")
    )
    if params.get("k") != public_key:
        return "k is not the site's public key"
    try:
        header_b64, claims_b64, signature_b64 = params.get("t", "").split(".")
        header = json.loads(b64url_decode(header_b64))
        claims = json.loads(b64url_decode(claims_b64))
        signature = b64url_decode(signature_b64)
    except ValueError as exc:
        return f"not a JWT: {exc}"
    if header.get("alg") != "ES256" or len(signature) != 64:
        return f"not ES256: {header}"
    key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), b64url_decode(public_key))
    der = utils.encode_dss_signature(
        int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big")
    )
    try:
        key.verify(der, f"{header_b64}.{claims_b64}".encode(), ec.ECDSA(hashes.SHA256()))
    except Exception:  # noqa: BLE001 (cryptography's InvalidSignature)
        return "the signature does not verify"
    if claims.get("aud") != audience:
        return f"aud is {claims.get('aud')!r}, not {audience!r}"
    now = time.time()
    if not now < claims.get("exp", 0) <= now + 24 * 3600:
        return f"exp {claims.get('exp')} is not within the next day"
    if not str(claims.get("sub", "")).startswith(("mailto:", "https:")):
        return f"sub is {claims.get('sub')!r}"
    return ""


@dataclass
class Push:
    """A request that reached the service."""

    device: str
    headers: dict[str, str]  # lower-case names
    body: bytes
    payload: dict[str, Any] | None  # decrypted, None when it could not be
    problem: str  # why the request was refused, "" when it was valid
    at: float


@dataclass
class Answer:
    status: int = 201
    headers: dict[str, str] = field(default_factory=dict)


class PushService:
    """`with PushService(vapid_public_key) as service:`; `service.subscribe("phone")` gives the
    subscription JSON a browser would post; `service.pushes` what came."""

    def __init__(self, vapid_public_key: str) -> None:
        self.vapid_public_key = vapid_public_key
        self.browsers: dict[str, Browser] = {}
        self.pushes: list[Push] = []
        self._answers: deque[Answer] = deque()
        self._lock = threading.Condition()
        service = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 (the standard library's name)
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                answer = service._take(self.path, dict(self.headers.items()), body)
                self.send_response(answer.status)
                for name, value in answer.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> PushService:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()

    def answer(self, status: int, headers: dict[str, str] | None = None) -> None:
        """The status of the next request (in order); 201 once none is queued."""
        self._answers.append(Answer(status, headers or {}))

    def endpoint(self, device: str) -> str:
        return f"{self.origin}/push/{device}"

    def subscribe(self, device: str) -> dict[str, Any]:
        """What `PushSubscription.toJSON()` gives for a new subscription of `device`."""
        browser = self.browsers.setdefault(device, Browser())
        return {
            "endpoint": self.endpoint(device),
            "keys": {"p256dh": browser.p256dh, "auth": browser.auth},
        }

    def _take(self, path: str, headers: dict[str, str], body: bytes) -> Answer:
        headers = {k.lower(): v for k, v in headers.items()}
        device = path.removeprefix("/push/")
        browser = self.browsers.get(device)
        problem, payload = "", None
        if browser is None:
            problem = "no such device"
        else:
            problem = vapid_problem(
                headers.get("authorization", ""),
                audience=self.origin,
                public_key=self.vapid_public_key,
            )
            if headers.get("content-encoding") != "aes128gcm":
                problem = problem or "not aes128gcm"
            try:
                payload = json.loads(browser.decrypt(body))
            except Exception as exc:  # noqa: BLE001 (any failure is what the test reads)
                problem = problem or f"cannot decrypt: {exc}"
        with self._lock:
            self.pushes.append(Push(device, headers, body, payload, problem, time.time()))
            self._lock.notify_all()
            if problem:
                return Answer(400 if browser is not None else 404)
            return self._answers.popleft() if self._answers else Answer()

    def wait_for(self, count: int, timeout: float = 10.0) -> list[Push]:
        """The pushes once `count` have come (or what came within `timeout`)."""
        with self._lock:
            self._lock.wait_for(lambda: len(self.pushes) >= count, timeout=timeout)
            return list(self.pushes)
