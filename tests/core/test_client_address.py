"""The client's address (core.http.client_ip, TRUSTED_PROXY_COUNT): X-Forwarded-For is trusted only
from the proxies the site is told of, none by default. With none, a different header per request
escapes neither the anonymous API throttle nor the login lockout; behind one proxy, the address
that proxy appended is the client's, whatever the client wrote before it."""

import json

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.throttling import AnonRateThrottle

from tests.azul_site.test_settings import manage
from tests.support.factories import PASSWORD

pytestmark = pytest.mark.django_db

PROXY = "10.0.0.2"
HISTORY = "/api/games/?status=finished"  # open to visitors


@pytest.fixture
def three_per_minute(monkeypatch):
    monkeypatch.setattr(AnonRateThrottle, "THROTTLE_RATES", {"anon": "3/minute"})


@pytest.fixture
def behind_one_proxy(settings):
    """What TRUSTED_PROXY_COUNT=1 sets (test_the_setting_feeds_every_reader checks that)."""
    settings.TRUSTED_PROXY_COUNT = 1
    settings.ALLAUTH_TRUSTED_PROXY_COUNT = 1
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}


def history(forwarded_for, remote=PROXY):
    return Client().get(HISTORY, HTTP_X_FORWARDED_FOR=forwarded_for, REMOTE_ADDR=remote)


def log_in(login, password, forwarded_for, remote=PROXY):
    return Client().post(
        reverse("account_login"),
        {"login": login, "password": password},
        HTTP_X_FORWARDED_FOR=forwarded_for,
        REMOTE_ADDR=remote,
    )


def test_without_proxies_a_new_forwarded_for_per_request_does_not_escape_the_throttle(
    three_per_minute,
):
    statuses = [history(f"198.51.100.{n}").status_code for n in range(4)]

    assert statuses == [200, 200, 200, 429]


def test_without_proxies_a_new_forwarded_for_per_guess_does_not_escape_the_lockout(alice):
    statuses = [log_in("alice", f"guess-{n}", f"198.51.100.{n}").status_code for n in range(5)]

    assert statuses[-1] == 429
    assert log_in("alice", PASSWORD, "198.51.100.99").status_code == 429


def test_behind_one_proxy_clients_are_told_apart_by_the_address_it_appended(
    behind_one_proxy, three_per_minute, alice
):
    # What a client writes itself stands left of the proxy's entry, and changes nothing.
    statuses = [history(f"1.2.3.{n}, 203.0.113.9").status_code for n in range(4)]
    assert statuses == [200, 200, 200, 429]
    assert history("203.0.113.10").status_code == 200

    guesses = [
        log_in("alice", f"guess-{n}", f"1.2.3.{n}, 203.0.113.9").status_code for n in range(5)
    ]
    assert guesses[-1] == 429
    assert log_in("alice", PASSWORD, "203.0.113.9").status_code == 429
    assert log_in("alice", PASSWORD, "203.0.113.10").status_code == 302


def test_behind_one_proxy_a_request_without_the_header_is_its_connections(behind_one_proxy):
    from django.test import RequestFactory

    from core.http.client_ip import client_address

    request = RequestFactory().get("/", REMOTE_ADDR="198.51.100.4")

    assert client_address(request) == "198.51.100.4"


def read_settings(**env: str) -> dict:
    code = (
        "import json; from django.conf import settings as s; print(json.dumps(["
        "s.TRUSTED_PROXY_COUNT, s.ALLAUTH_TRUSTED_PROXY_COUNT, s.REST_FRAMEWORK['NUM_PROXIES'],"
        " s.AXES_CLIENT_IP_CALLABLE, getattr(s, 'SECURE_PROXY_SSL_HEADER', None)]))"
    )
    result = manage("shell", "-c", code, **env)
    assert result.returncode == 0, result.stderr
    names = ["proxies", "allauth", "drf", "axes", "ssl_header"]
    return dict(zip(names, json.loads(result.stdout.strip().splitlines()[-1]), strict=True))


@pytest.mark.slow
def test_the_setting_feeds_every_reader():
    assert read_settings() == {
        "proxies": 0,
        "allauth": 0,
        "drf": 0,
        "axes": "core.http.client_ip.client_address",
        "ssl_header": None,
    }
    behind = read_settings(TRUSTED_PROXY_COUNT="1", SECURE_PROXY_SSL_HEADER="1")
    assert (behind["proxies"], behind["allauth"], behind["drf"]) == (1, 1, 1)
    assert behind["ssl_header"] == ["HTTP_X_FORWARDED_PROTO", "https"]


@pytest.mark.parametrize(("trusted", "redirected"), [(False, True), (True, False)])
def test_x_forwarded_proto_counts_only_when_the_setting_trusts_it(settings, trusted, redirected):
    settings.SECURE_SSL_REDIRECT = True
    if trusted:
        settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

    response = Client().get("/rules/", HTTP_X_FORWARDED_PROTO="https")

    assert (response.status_code == 301) is redirected
