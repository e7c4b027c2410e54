"""The outbound guard (notifications/outbound.py): what it refuses, by address class and URL form,
and how it calls what it allows, against real servers on 127.0.0.1."""

from __future__ import annotations

import datetime
import socket
import ssl
import time
from pathlib import Path

import pytest

from notifications import outbound
from notifications.outbound import OutboundError, Refused
from tests.support.http_sink import HttpSink

# Every class of address that is not public, as a URL literal, and the class the refusal names.
NOT_PUBLIC = [
    ("127.0.0.1", "loopback"),
    ("127.0.0.2", "loopback"),
    ("[::1]", "loopback"),
    ("10.0.0.1", "private"),
    ("172.16.0.1", "private"),
    ("172.31.255.254", "private"),
    ("192.168.1.1", "private"),
    ("[fc00::1]", "private"),
    ("[fd12:3456::1]", "private"),
    ("169.254.169.254", "link-local"),  # cloud metadata
    ("[fe80::1]", "link-local"),
    ("224.0.0.1", "multicast"),
    ("239.255.255.250", "multicast"),
    ("[ff02::1]", "multicast"),
    ("240.0.0.1", "reserved"),
    ("255.255.255.255", "reserved"),
    ("0.0.0.0", "unspecified"),
    ("[::]", "unspecified"),
    ("[::ffff:127.0.0.1]", "loopback"),  # IPv4-mapped
    ("[::ffff:169.254.169.254]", "link-local"),
    ("[::ffff:10.1.2.3]", "private"),
    ("[64:ff9b::7f00:1]", "loopback"),  # NAT64 of 127.0.0.1
    ("[2002:a00:1::]", "private"),  # 6to4 of 10.0.0.1
    ("100.64.0.1", "not public"),  # shared address space (carrier-grade NAT)
    ("192.0.2.1", "private"),  # documentation
]


@pytest.fixture
def strict(settings):
    """The production settings: no network allowed, HTTPS only."""
    settings.OUTBOUND_ALLOWED_NETWORKS = []
    settings.OUTBOUND_ALLOW_HTTP = False


@pytest.fixture
def no_network(monkeypatch):
    """Fails the test if the guard resolves or dials anything."""

    def refuse(*args, **kwargs):
        raise AssertionError(f"network used: {args}")

    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)


def resolver(monkeypatch, *answers: list[str]) -> list[str]:
    """socket.getaddrinfo answering `answers[i]` to the i-th lookup (the last one after); the
    names looked up, in order."""
    looked_up: list[str] = []

    def getaddrinfo(host, port, *args, **kwargs):
        addresses = answers[min(len(looked_up), len(answers) - 1)]
        looked_up.append(host)
        return [
            (
                socket.AF_INET6 if ":" in a else socket.AF_INET,
                socket.SOCK_STREAM,
                6,
                "",
                (a, port) if ":" not in a else (a, port, 0, 0),
            )
            for a in addresses
        ]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return looked_up


# -- refused by address class --------------------------------------------------------------------


@pytest.mark.parametrize(("literal", "kind"), NOT_PUBLIC)
def test_every_class_of_address_that_is_not_public_is_refused(strict, no_network, literal, kind):
    url = f"https://{literal}/hook"
    with pytest.raises(Refused) as checked:
        outbound.url_check(url)
    assert f"({kind})" in str(checked.value)
    with pytest.raises(Refused) as posted:
        outbound.post(url, body=b"{}", headers={})
    assert str(posted.value) == str(checked.value)


@pytest.mark.parametrize(
    ("resolved", "kind"),
    [
        (["127.0.0.1"], "loopback"),
        (["::1"], "loopback"),
        (["10.20.30.40"], "private"),
        (["169.254.169.254"], "link-local"),
        (["fe80::1"], "link-local"),
        (["::ffff:192.168.0.1"], "private"),
        (["0.0.0.0"], "unspecified"),
        # One public and one private address: refused whichever would be dialled.
        (["93.184.215.14", "192.168.0.10"], "private"),
    ],
)
def test_a_host_name_resolving_to_an_address_that_is_not_public_is_refused(
    strict, monkeypatch, resolved, kind
):
    looked_up = resolver(monkeypatch, resolved)
    dialled = []
    monkeypatch.setattr(socket.socket, "connect", lambda sock, address: dialled.append(address))

    with pytest.raises(Refused, match=rf"\({kind}\)"):
        outbound.post("https://hooks.example.com/x", body=b"{}", headers={})

    assert looked_up == ["hooks.example.com"]
    assert dialled == []


def test_allowed_networks_open_exactly_what_they_list(settings, monkeypatch):
    settings.OUTBOUND_ALLOWED_NETWORKS = ["127.0.0.1/32"]
    outbound.url_check("https://127.0.0.1/")
    with pytest.raises(Refused, match="loopback"):
        outbound.url_check("https://127.0.0.2/")
    with pytest.raises(Refused, match="loopback"):
        outbound.url_check("https://[::1]/")


@pytest.mark.parametrize(
    "url",
    [
        "https://localhost/hook",
        "https://LOCALHOST./hook",
        "https://api.localhost/hook",
        "https://2130706433/",  # 127.0.0.1 as one number
        "https://127.1/",
        "https://0x7f000001/",
        "https://0177.0.0.1/",  # octal
        "https://0x7f.0.0.1/",
    ],
)
def test_loopback_names_and_numeric_disguises_are_refused_without_a_lookup(strict, no_network, url):
    with pytest.raises(Refused):
        outbound.url_check(url)
    with pytest.raises(Refused):
        outbound.post(url, body=b"", headers={})


# -- refused by the URL's form -------------------------------------------------------------------


def test_http_is_refused_unless_allowed(settings, no_network):
    settings.OUTBOUND_ALLOW_HTTP = False
    with pytest.raises(Refused, match=r"Only https:// addresses"):
        outbound.url_check("http://hooks.example.com/x")
    for url in ("ftp://example.com/", "file:///etc/passwd", "gopher://example.com/", "example"):
        with pytest.raises(Refused, match=r"Only https:// addresses"):
            outbound.url_check(url)
    settings.OUTBOUND_ALLOW_HTTP = True
    outbound.url_check("http://hooks.example.com/x")


@pytest.mark.parametrize(
    "url",
    [
        "https://user:secret@hooks.example.com/x",
        "https://user@hooks.example.com/x",
        "https://hooks.example.com@10.0.0.1/x",
        "https://hooks.example.com:@10.0.0.1/",
    ],
)
def test_a_user_name_or_password_in_the_url_is_refused(strict, no_network, url):
    with pytest.raises(Refused, match="user name or password"):
        outbound.url_check(url)


@pytest.mark.parametrize(
    "url",
    [
        "https://hooks.example.com/a b",
        "https://hooks.example.com/\x00",
        "https://hooks.example.com/\r\nX-Injected: 1",
        "https://hooks.example.com\t/",
    ],
)
def test_spaces_and_control_characters_are_refused(strict, no_network, url):
    with pytest.raises(Refused, match="spaces or control characters"):
        outbound.url_check(url)


@pytest.mark.parametrize(
    "url",
    [
        "https://",
        "https:///path",
        "https://hooks.example.com:0/",
        "https://hooks.example.com:99999/",
        "https://hooks.example.com:port/",
        "https://-bad-.example.com/",
        "https://under_score.example.com/",
        "https://" + "a" * 64 + ".example.com/",
        "https://[::1/",
        "https://hooks.example.com/" + "a" * 2100,
        "",
    ],
)
def test_malformed_urls_are_refused(strict, no_network, url):
    with pytest.raises(Refused):
        outbound.url_check(url)


def test_public_urls_pass_with_any_port_and_international_names(strict, no_network):
    outbound.url_check("https://discord.com/api/webhooks/123/abc")
    outbound.url_check("https://hooks.example.com:8443/x?y=1")  # non-default ports are allowed
    outbound.url_check("https://bücher.example/hook")
    outbound.url_check("https://93.184.215.14/hook")
    outbound.url_check("https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/hook")


# -- how it calls --------------------------------------------------------------------------------


def test_posts_the_body_and_returns_the_answer():
    with HttpSink() as sink:
        sink.answer(201, headers={"X-Thing": "yes"}, body=b"made")
        answer = outbound.post(
            sink.url + "/hook?a=1",
            body=b'{"x": 1}',
            headers={"Content-Type": "application/json"},
        )
        (received,) = sink.wait_for(1)

    assert (answer.status, answer.body, answer.headers["x-thing"]) == (201, b"made", "yes")
    assert received.path == "/hook?a=1"
    assert received.body == b'{"x": 1}'
    assert received.headers["content-type"] == "application/json"
    assert received.headers["host"] == f"127.0.0.1:{sink.port}"


def test_a_redirect_is_not_followed():
    with HttpSink() as sink:
        sink.answer(302, headers={"Location": sink.url + "/elsewhere"})
        sink.answer(307, headers={"Location": sink.url + "/elsewhere"})
        first = outbound.post(sink.url + "/hook", body=b"{}", headers={})
        second = outbound.post(sink.url + "/hook", body=b"{}", headers={})
        time.sleep(0.2)

    assert (first.status, second.status) == (302, 307)
    assert [r.path for r in sink.requests] == ["/hook", "/hook"]


def test_a_long_answer_is_cut_at_the_cap(settings):
    settings.OUTBOUND_MAX_RESPONSE_BYTES = 1000
    with HttpSink() as sink:
        sink.answer(200, body=b"x" * 300_000)
        answer = outbound.post(sink.url, body=b"{}", headers={})

    assert answer.status == 200
    assert answer.body == b"x" * 1000


def test_a_slow_server_is_timed_out():
    with HttpSink() as sink:
        sink.answer(200, delay=3)
        started = time.monotonic()
        with pytest.raises(OutboundError, match="No answer within 0.5 seconds"):
            outbound.post(sink.url, body=b"{}", headers={}, timeout=0.5)
        assert time.monotonic() - started < 1.5


def test_a_server_answering_a_byte_at_a_time_is_cut_at_the_whole_calls_time(settings):
    settings.OUTBOUND_TIMEOUT_SECONDS = 1
    with HttpSink() as sink:
        # Each byte comes well within the timeout; all of them would take 6 seconds.
        sink.answer(200, body=b"x" * 30, dribble=0.2)
        started = time.monotonic()
        with pytest.raises(OutboundError, match="No answer within 1 seconds"):
            outbound.post(sink.url, body=b"{}", headers={})
        assert time.monotonic() - started < 2


def test_a_name_server_that_does_not_answer_is_timed_out(monkeypatch):
    def slow_getaddrinfo(*args, **kwargs):
        time.sleep(3)
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", 443))]

    monkeypatch.setattr(socket, "getaddrinfo", slow_getaddrinfo)
    started = time.monotonic()
    with pytest.raises(OutboundError, match="No answer within 0.5 seconds"):
        outbound.post("https://slow-dns.example/", body=b"{}", headers={}, timeout=0.5)
    assert time.monotonic() - started < 1.5


def test_a_closed_port_is_an_outbound_error():
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    with pytest.raises(OutboundError):
        outbound.post(f"http://127.0.0.1:{port}/", body=b"{}", headers={})


def test_dns_rebinding_cannot_move_the_call_after_the_check(monkeypatch):
    """The host is resolved once; the call goes to the address checked, with the host name in
    the Host header, though a second lookup would now answer the cloud metadata address."""
    looked_up = resolver(monkeypatch, ["127.0.0.1"], ["169.254.169.254"])
    dialled = []
    real_connect = socket.socket.connect

    def connect(sock, address):
        dialled.append(address[0])
        return real_connect(sock, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    with HttpSink() as sink:
        answer = outbound.post(f"http://rebind.example:{sink.port}/hook", body=b"{}", headers={})
        (received,) = sink.wait_for(1)

    assert answer.status == 204
    assert looked_up == ["rebind.example"]
    assert dialled == ["127.0.0.1"]
    assert received.local_address == "127.0.0.1"
    assert received.headers["host"] == f"rebind.example:{sink.port}"


def test_the_second_lookup_of_a_rebinding_name_is_refused(monkeypatch):
    resolver(monkeypatch, ["127.0.0.1"], ["169.254.169.254"])
    with HttpSink() as sink:
        outbound.post(f"http://rebind.example:{sink.port}/", body=b"{}", headers={})
        with pytest.raises(Refused, match="link-local"):
            outbound.post(f"http://rebind.example:{sink.port}/", body=b"{}", headers={})
        assert len(sink.requests) == 1


# -- TLS -----------------------------------------------------------------------------------------


def _certificates(tmp_path: Path, name: str) -> tuple[ssl.SSLContext, ssl.SSLContext]:
    """A server context with a certificate for `name` from a new authority, and a client context
    that trusts only that authority."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.datetime.now(datetime.UTC)

    def build(subject, issuer, key, signer, *, ca, san=None):
        builder = (
            x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
            .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, issuer)]))
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(hours=1))
            .not_valid_after(now + datetime.timedelta(hours=1))
            .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
        )
        if san:
            builder = builder.add_extension(
                x509.SubjectAlternativeName([x509.DNSName(san)]), critical=False
            )
        return builder.sign(signer, hashes.SHA256())

    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = build("Test authority", "Test authority", ca_key, ca_key, ca=True)
    key = ec.generate_private_key(ec.SECP256R1())
    cert = build(name, "Test authority", key, ca_key, ca=False, san=name)
    pem = serialization.Encoding.PEM
    (tmp_path / "cert.pem").write_bytes(cert.public_bytes(pem) + ca.public_bytes(pem))
    (tmp_path / "key.pem").write_bytes(
        key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server.load_cert_chain(tmp_path / "cert.pem", tmp_path / "key.pem")
    client = ssl.create_default_context(cadata=ca.public_bytes(pem).decode())
    return server, client


def test_tls_sends_the_host_name_and_checks_the_certificate_against_it(
    settings, monkeypatch, tmp_path
):
    settings.OUTBOUND_ALLOW_HTTP = False
    server, client = _certificates(tmp_path, "hooks.example.com")
    monkeypatch.setattr(outbound, "_tls_context", lambda: client)
    resolver(monkeypatch, ["127.0.0.1"])
    with HttpSink(tls=server) as sink:
        answer = outbound.post(
            f"https://hooks.example.com:{sink.port}/hook", body=b"{}", headers={}
        )
        (received,) = sink.wait_for(1)

    assert answer.status == 204
    assert sink.server_names == ["hooks.example.com"]
    assert received.headers["host"] == f"hooks.example.com:{sink.port}"


def test_a_certificate_for_another_name_is_refused(settings, monkeypatch, tmp_path):
    server, client = _certificates(tmp_path, "other.example.com")
    monkeypatch.setattr(outbound, "_tls_context", lambda: client)
    resolver(monkeypatch, ["127.0.0.1"])
    with HttpSink(tls=server) as sink:
        with pytest.raises(OutboundError, match="certificate"):
            outbound.post(f"https://hooks.example.com:{sink.port}/", body=b"{}", headers={})
        assert sink.requests == []


def test_the_default_tls_context_checks_names_and_certificates():
    context = outbound._tls_context()
    assert context.check_hostname is True
    assert context.verify_mode == ssl.CERT_REQUIRED
