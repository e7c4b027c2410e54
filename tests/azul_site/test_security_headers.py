"""The security headers on real responses (issue #30, "Operators and headers"): the
Content-Security-Policy on every kind of page, no inline script in any page or template, and the
headers and cookies of the production settings (DEBUG off), read from the settings module as a
deployment loads it."""

import json
import os
import re
import subprocess
import sys
from html.parser import HTMLParser

import pytest
from django.urls import reverse

from tests.azul_site.test_settings import PRODUCTION_ENV, ROOT
from tests.support.factories import PASSWORD
from tests.support.play import finish

STRICT_POLICY = {
    "default-src": "'self'",
    "script-src": "'self'",
    "style-src": "'self'",
    "img-src": "'self' data:",
    "connect-src": "'self'",
    "worker-src": "'self'",
    "manifest-src": "'self'",
    "object-src": "'none'",
    "base-uri": "'self'",
    "frame-ancestors": "'none'",
    "form-action": "'self'",
}


def policy(response) -> dict[str, str]:
    header = response.headers["Content-Security-Policy"]
    directives = (d.strip().split(" ", 1) for d in header.split(";") if d.strip())
    return {name: value for name, value in directives}


@pytest.fixture
def pages(alice, bob, start_game) -> dict[str, str]:
    """A path of each kind of page, for alice."""
    active = start_game(alice, bob)
    finished = finish(start_game(alice, bob))
    return {
        "home": "/",
        "board": reverse("games:detail", args=[active.id]),
        "finished board": reverse("games:detail", args=[finished.id]),
        "replay": reverse("games:replay", args=[finished.id]),
        "my games": reverse("games:my_games"),
        "lobby": reverse("games:lobby"),
        "new game": reverse("games:new"),
        "history": reverse("games:history"),
        "leaderboard": reverse("ratings:leaderboard"),
        "player": reverse("accounts:player", args=["bob"]),
        "settings": reverse("accounts:settings"),
        "rules": reverse("rules"),
        "not found": "/no-such-page/",
    }


@pytest.mark.django_db
def test_every_kind_of_page_has_the_strict_policy(client, client_for, alice, pages, root):
    signed_in = client_for(alice)
    responses = {name: signed_in.get(path) for name, path in pages.items()}
    responses |= {
        "login": client.get(reverse("account_login")),
        "sign-up": client.get(reverse("account_signup")),
        "API": signed_in.get("/api/games/"),
        "admin": client_for(root).get("/admin/games/game/"),
    }

    for name, response in responses.items():
        assert response.status_code == (404 if name == "not found" else 200), name
        assert policy(response) == STRICT_POLICY, name


@pytest.mark.django_db
def test_the_api_docs_alone_allow_inline_styles_and_run_no_inline_script(client):
    page = client.get(reverse("api-docs"))
    script = client.get(reverse("api-docs") + "?script=")

    assert page.status_code == 200 and script.status_code == 200
    assert policy(page) == STRICT_POLICY | {"style-src": "'self' 'unsafe-inline'"}
    # Swagger UI's start-up script comes from its own address, under script-src 'self'.
    assert inline_scripts(page.content.decode()) == []
    assert script["Content-Type"].startswith("application/javascript")


class _Scripts(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.inline: list[str] = []
        self.handlers: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "script" and "src" not in a and a.get("type") != "application/json":
            self.inline.append(self.get_starttag_text() or tag)
        self.handlers += [f"{tag} {name}" for name, _ in attrs if name.startswith("on")]


def inline_scripts(html: str) -> list[str]:
    """The page's scripts that a strict script-src refuses: <script> without src (data in
    type="application/json" is not run) and event handler attributes (onclick= ...)."""
    parser = _Scripts()
    parser.feed(html)
    return parser.inline + parser.handlers


@pytest.mark.django_db
def test_no_page_has_an_inline_script(client, client_for, alice, pages, root):
    signed_in = client_for(alice)
    bodies = {name: signed_in.get(path).content.decode() for name, path in pages.items()}
    bodies["sign-up"] = client.get(reverse("account_signup")).content.decode()
    bodies["admin"] = client_for(root).get("/admin/").content.decode()

    assert {name: inline_scripts(body) for name, body in bodies.items()} == {
        name: [] for name in bodies
    }


def test_no_template_has_an_inline_script():
    """Every template, the branches the pages above do not reach included (an analysis still
    running, an invitation, ...)."""
    found = {}
    for template in (ROOT / "templates").rglob("*.html"):
        source = template.read_text()
        # Template tags may sit inside a tag's attributes: judge the HTML around them.
        html = re.sub(r"{%.*?%}|{{.*?}}|{#.*?#}", "", source)
        if problems := inline_scripts(html):
            found[str(template.relative_to(ROOT))] = problems
    assert found == {}


def production_settings(*names: str) -> dict:
    """The values of `names` in the settings module loaded as a deployment loads it (DEBUG off,
    the production environment), in a fresh interpreter."""
    code = (
        "import json, os; os.environ['DJANGO_SETTINGS_MODULE'] = 'azul_site.settings'\n"
        "from django.conf import settings\n"
        f"print(json.dumps({{n: getattr(settings, n) for n in {list(names)!r}}}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**_base_env(), **PRODUCTION_ENV},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def _base_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k in {"PATH", "HOME", "LANG", "DATABASE_URL"}}


PRODUCTION_HEADERS = (
    "DEBUG",
    "SECURE_SSL_REDIRECT",
    "SECURE_HSTS_SECONDS",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS",
    "SECURE_HSTS_PRELOAD",
    "SECURE_CONTENT_TYPE_NOSNIFF",
    "SECURE_REFERRER_POLICY",
    "SECURE_CROSS_ORIGIN_OPENER_POLICY",
    "X_FRAME_OPTIONS",
    "SESSION_COOKIE_SECURE",
    "SESSION_COOKIE_HTTPONLY",
    "SESSION_COOKIE_SAMESITE",
    "CSRF_COOKIE_SECURE",
    "CSRF_COOKIE_SAMESITE",
    "LANGUAGE_COOKIE_SECURE",
    "LANGUAGE_COOKIE_SAMESITE",
)


@pytest.fixture(scope="module")
def production() -> dict:
    return production_settings(*PRODUCTION_HEADERS)


@pytest.mark.slow
@pytest.mark.django_db
def test_production_headers_and_cookies_on_real_responses(client, settings, production, alice):
    assert production["DEBUG"] is False
    for name, value in production.items():
        if name != "DEBUG":
            setattr(settings, name, value)

    # Plain HTTP goes to HTTPS; over HTTPS every page carries the headers.
    insecure = client.get("/rules/")
    assert insecure.status_code == 301 and insecure["Location"].startswith("https://")
    page = client.get(reverse("account_login"), secure=True)
    assert page["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains; preload"
    assert page["X-Content-Type-Options"] == "nosniff"
    assert page["Referrer-Policy"] == "same-origin"
    assert page["X-Frame-Options"] == "DENY"
    assert page["Cross-Origin-Opener-Policy"] == "same-origin"
    assert policy(page) == STRICT_POLICY

    # Signing in: the session's cookie is for HTTPS only, out of scripts' reach, and not sent
    # with other sites' requests; so is the CSRF cookie, which scripts may read (Django's
    # design: the token is in every form anyway).
    signed_in = client.post(
        reverse("account_login"), {"login": "alice", "password": PASSWORD}, secure=True
    )
    assert signed_in.status_code == 302
    session = signed_in.cookies[settings.SESSION_COOKIE_NAME]
    assert session["secure"] and session["httponly"] and session["samesite"] == "Lax"
    csrf = page.cookies[settings.CSRF_COOKIE_NAME]
    assert csrf["secure"] and csrf["samesite"] == "Lax"
    switched = client.post(reverse("set_language"), {"language": "ko", "next": "/"}, secure=True)
    language = switched.cookies[settings.LANGUAGE_COOKIE_NAME]
    assert language["secure"] and language["samesite"] == "Lax"
