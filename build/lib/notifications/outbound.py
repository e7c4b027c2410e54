"""The one way the site calls a URL that a player (a webhook) or a browser (a push subscription)
gave it: a POST, guarded as a hostile input.

- `url_check` refuses, with no network, what is not an `https://` URL to a host name or a public
  address: other schemes (`http://` only with OUTBOUND_ALLOW_HTTP), a user name or password in
  the URL, spaces and control characters, numeric host forms such as `2130706433` or `127.1`,
  `localhost`, and address literals that are not public.
- `post` resolves the host once, refuses the call if any address it resolves to is loopback,
  private, shared (100.64/10), link-local (169.254/16: cloud metadata; fe80::/10), multicast,
  reserved or unspecified, IPv4 inside IPv6 (::ffff:a.b.c.d, 6to4, NAT64) checked as IPv4, unless
  the address is in OUTBOUND_ALLOWED_NETWORKS (empty but for tests). It then connects to that
  checked address itself: there is no second lookup for a DNS answer to change (rebinding), and
  TLS sends the host name (SNI) and checks the certificate against it. It never follows a redirect
  (a 3xx is an answer like any other), reads at most OUTBOUND_MAX_RESPONSE_BYTES of the body (the
  rest is cut), and gives the whole call, from the name's lookup to the answer's last byte,
  OUTBOUND_TIMEOUT_SECONDS: neither a name server that does not answer nor a server that answers
  one byte at a time can hold a worker.

Proxies in the environment are not used (the standard library's `http.client` knows none): a
proxy would make the address check meaningless.
"""

from __future__ import annotations

import contextlib
import http.client
import ipaddress
import re
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

URL_MAX_LENGTH = 2048
_LABEL = re.compile(r"^(?!-)[a-z0-9-]{1,63}(?<!-)$")
_DEFAULT_PORTS = {"https": 443, "http": 80}

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

# The address classes refused, in the order they are named in a refusal.
_KINDS = {
    "unspecified": gettext_lazy("unspecified"),
    "loopback": gettext_lazy("loopback"),
    "link-local": gettext_lazy("link-local"),
    "multicast": gettext_lazy("multicast"),
    "reserved": gettext_lazy("reserved"),
    "private": gettext_lazy("private"),
    "not global": gettext_lazy("not public"),
}
# IPv6 prefixes that carry an IPv4 address, checked as that address.
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")


class Refused(Exception):
    """The URL, or an address its host resolves to, is not allowed; str(exc) says why."""


class OutboundError(Exception):
    """The call did not get an answer: connection, TLS, time-out or read failure (passing)."""


@dataclass(frozen=True)
class Answer:
    status: int
    # Lower-case names; a repeated header keeps its last value.
    headers: dict[str, str]
    # At most OUTBOUND_MAX_RESPONSE_BYTES: the rest of a longer body is not read.
    body: bytes


# -- addresses -----------------------------------------------------------------------------------


def _embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def address_kind(address: IPAddress) -> str | None:
    """The class that makes `address` refused ("loopback", "private", ...), None for a public
    address. IPv4 carried in IPv6 is judged as IPv4."""
    if isinstance(address, ipaddress.IPv6Address) and (v4 := _embedded_ipv4(address)) is not None:
        return address_kind(v4)
    if address.is_unspecified:
        return "unspecified"
    if address.is_loopback:
        return "loopback"
    if address.is_link_local:
        return "link-local"
    if address.is_multicast:
        return "multicast"
    # Before "private": Python 3.11 counts 240.0.0.0/4 as private too.
    if address.is_reserved:
        return "reserved"
    if address.is_private:
        return "private"
    if not address.is_global:
        return "not global"
    return None


def _allowed_networks() -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    return [ipaddress.ip_network(cidr, strict=False) for cidr in settings.OUTBOUND_ALLOWED_NETWORKS]


def address_refusal(address: IPAddress) -> str | None:
    """Why a call to `address` is refused, or None: a public address, or one in
    OUTBOUND_ALLOWED_NETWORKS."""
    if any(address in network for network in _allowed_networks()):
        return None
    kind = address_kind(address)
    if kind is None:
        return None
    return _("%(address)s is not a public Internet address (%(kind)s).") % {
        "address": address,
        "kind": _KINDS[kind],
    }


# -- the URL -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Target:
    scheme: str
    host: str  # a host name (IDNA, lower case) or an address literal, without brackets
    port: int
    path: str  # path and query, as sent
    literal: IPAddress | None


def _target(url: str) -> _Target:
    if not isinstance(url, str) or not url:
        raise Refused(_("Enter an address."))
    if len(url) > URL_MAX_LENGTH:
        raise Refused(_("The address is too long."))
    if any(ord(char) <= 0x20 or ord(char) == 0x7F for char in url):
        raise Refused(_("The address has spaces or control characters."))
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise Refused(_("The address is not a valid URL.")) from None
    scheme = parts.scheme.lower()
    if scheme != "https" and not (scheme == "http" and settings.OUTBOUND_ALLOW_HTTP):
        raise Refused(_("Only https:// addresses are allowed."))
    if "@" in parts.netloc:
        raise Refused(_("An address with a user name or password is not allowed."))
    if port == 0:
        raise Refused(_("The address is not a valid URL."))
    host = (parts.hostname or "").rstrip(".")
    if not host:
        raise Refused(_("The address has no host name."))
    literal: IPAddress | None = None
    if parts.netloc.startswith("["):
        try:
            literal = ipaddress.IPv6Address(host)
        except ValueError:
            raise Refused(_("The address is not a valid URL.")) from None
    else:
        try:
            literal = ipaddress.IPv4Address(host)
        except ValueError:
            host = _host_name(host)
    if literal is not None and (why := address_refusal(literal)):
        raise Refused(why)
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    return _Target(
        scheme=scheme,
        host=str(literal) if literal is not None else host,
        port=port or _DEFAULT_PORTS[scheme],
        path=path,
        literal=literal,
    )


def _host_name(host: str) -> str:
    try:
        name = host.encode("idna").decode("ascii").lower()
    except UnicodeError:
        raise Refused(_("The host name is not valid.")) from None
    labels = name.split(".")
    if len(name) > 253 or not all(_LABEL.match(label) for label in labels):
        raise Refused(_("The host name is not valid."))
    # A name whose last label is a number is an address in disguise (127.1, 2130706433, 0x7f.1):
    # top-level domains start with a letter.
    if not labels[-1][0].isalpha():
        raise Refused(_("The host name is not valid."))
    if name == "localhost" or name.endswith(".localhost"):
        raise Refused(
            _("%(address)s is not a public Internet address (%(kind)s).")
            % {
                "address": name,
                "kind": _KINDS["loopback"],
            }
        )
    return name


def url_check(url: str) -> None:
    """Refuse (Refused, saying why) a URL that `post` would refuse by its form alone: the
    forms' and the API's check. No network: a host name's addresses are checked by `post`."""
    _target(url)


# -- the call ------------------------------------------------------------------------------------


def _lookup(host: str, port: int, seconds: float) -> list[Any]:
    """socket.getaddrinfo, given at most `seconds`: the system's resolver has no time limit of
    its own that the site sets, and a name whose servers do not answer would hold the worker."""
    found: dict[str, Any] = {}

    def run() -> None:
        try:
            found["infos"] = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except BaseException as exc:  # handed to the caller's thread
            found["error"] = exc

    lookup = threading.Thread(target=run, name="outbound-lookup", daemon=True)
    lookup.start()
    lookup.join(seconds)
    if lookup.is_alive():  # left to finish on its own; its answer is not used
        raise TimeoutError
    if "error" in found:
        raise found["error"]
    infos: list[Any] = found["infos"]
    return infos


def _resolve(target: _Target, seconds: float) -> list[IPAddress]:
    """The host's addresses, every one of them allowed, or Refused."""
    if target.literal is not None:
        return [target.literal]
    try:
        infos = _lookup(target.host, target.port, seconds)
    except TimeoutError:
        raise OutboundError(
            _("No answer within %(seconds)s seconds.") % {"seconds": f"{seconds:g}"}
        ) from None
    except (socket.gaierror, UnicodeError) as exc:
        raise OutboundError(
            _("The host name %(host)s could not be resolved.") % {"host": target.host}
        ) from exc
    addresses: list[IPAddress] = []
    for info in infos:
        address = ipaddress.ip_address(str(info[4][0]).split("%")[0])
        if address not in addresses:
            addresses.append(address)
    if not addresses:
        raise OutboundError(
            _("The host name %(host)s could not be resolved.") % {"host": target.host}
        )
    # All or nothing: a name with one public and one private address is refused, whichever
    # would have been dialled.
    for address in addresses:
        if why := address_refusal(address):
            raise Refused(why)
    return addresses


class _Deadline:
    """Shuts the socket when the exchange's time is up, whatever it waits for then."""

    def __init__(self, seconds: float) -> None:
        self.ends = time.monotonic() + seconds
        self.expired = False
        self._sock: socket.socket | None = None
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True
        self._timer.start()

    def remaining(self) -> float:
        left = self.ends - time.monotonic()
        if left <= 0:
            self.expired = True
            raise TimeoutError
        return left

    def watch(self, sock: socket.socket) -> None:
        self._sock = sock

    def _expire(self) -> None:
        self.expired = True
        if self._sock is not None:
            with contextlib.suppress(OSError):  # already closed
                self._sock.shutdown(socket.SHUT_RDWR)

    def cancel(self) -> None:
        self._timer.cancel()


class _PinnedConnection(http.client.HTTPSConnection):
    """An HTTP(S) connection to one checked address, sending the host name in the Host header
    and TLS's SNI and checking the certificate against it."""

    def __init__(
        self,
        target: _Target,
        address: IPAddress,
        deadline: _Deadline,
        context: ssl.SSLContext | None,
    ) -> None:
        super().__init__(target.host, target.port, timeout=deadline.remaining(), context=context)
        self._address = address
        self._deadline = deadline
        self._tls = context is not None

    def connect(self) -> None:
        # A socket of our own rather than socket.create_connection, which looks its address
        # up again (a lookup of a literal, but a lookup).
        family = socket.AF_INET6 if self._address.version == 6 else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        self._deadline.watch(sock)
        try:
            sock.settimeout(self._deadline.remaining())
            sock.connect((str(self._address), self.port))
        except BaseException:
            sock.close()
            raise
        if self._tls:
            sock = self._context.wrap_socket(sock, server_hostname=self.host)  # type: ignore[attr-defined]
            self._deadline.watch(sock)
        self.sock = sock


def _tls_context() -> ssl.SSLContext:
    """The system's trusted authorities, host names checked. Tests may replace it."""
    return ssl.create_default_context()


def post(url: str, *, body: bytes, headers: dict[str, str], timeout: float | None = None) -> Answer:
    """POST `body` to `url`: the answer (whatever its status, a redirect included), Refused if
    the URL or its host's addresses are not allowed, OutboundError if no answer came in time."""
    target = _target(url)
    seconds = float(timeout if timeout is not None else settings.OUTBOUND_TIMEOUT_SECONDS)
    started = time.monotonic()
    addresses = _resolve(target, seconds)
    limit = int(settings.OUTBOUND_MAX_RESPONSE_BYTES)
    # The lookup's time counts: `seconds` is for the whole call.
    deadline = _Deadline(max(0.001, seconds - (time.monotonic() - started)))
    context = _tls_context() if target.scheme == "https" else None
    last_error: Exception | None = None
    try:
        for address in addresses:
            connection = _PinnedConnection(target, address, deadline, context)
            try:
                try:
                    connection.connect()
                except (OSError, ssl.SSLError) as exc:
                    if isinstance(exc, ssl.SSLCertVerificationError):
                        raise
                    last_error = exc
                    continue  # the host's next address
                connection.request("POST", target.path, body=body, headers=headers)
                response = connection.getresponse()
                answer_headers = {name.lower(): value for name, value in response.getheaders()}
                chunks: list[bytes] = []
                size = 0
                while size < limit:
                    chunk = response.read1(min(65536, limit - size))
                    if not chunk:
                        break
                    chunks.append(chunk)
                    size += len(chunk)
                if deadline.expired:  # the body was cut short by the deadline, not sent whole
                    raise TimeoutError
                return Answer(status=response.status, headers=answer_headers, body=b"".join(chunks))
            finally:
                connection.close()
        raise last_error or OSError("no address")
    except Refused:
        raise
    except (OSError, ssl.SSLError, http.client.HTTPException, ValueError) as exc:
        if deadline.expired or isinstance(exc, TimeoutError | socket.timeout):
            raise OutboundError(
                _("No answer within %(seconds)s seconds.") % {"seconds": f"{seconds:g}"}
            ) from exc
        raise OutboundError(f"{type(exc).__name__}: {exc}") from exc
    finally:
        deadline.cancel()
