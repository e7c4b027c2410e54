"""Fixtures shared by every test: the test settings, and thin wrappers over `tests.support`.

Personas: alice and bob play, carol watches (dave makes a third player). All have verified email
addresses and the password `PASSWORD`. Helpers live in `tests/support/`; test modules import them
from there, never from a conftest.
"""

from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient


def pytest_configure(config: pytest.Config) -> None:
    from django.conf import settings

    # Real hashers cost tens of milliseconds per password on purpose; tests do not need that.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    # Tests never touch a shared Redis: the cache (rate limits, throttles) is per process and
    # emptied before each test, and Celery tasks run in-process when sent.
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    settings.CELERY_TASK_ALWAYS_EAGER = True
    # Tests play faster than any player: the API's per-user rate is tested on its own
    # (tests/games/api/test_api_throttle.py), and only gets in the way elsewhere.
    settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["user"] = "1000/second"
    # Invitation emails go at once, as before their grace period: the grace and what it drops
    # are tested on their own (tests/notifications/test_invitation_emails.py).
    settings.NOTIFY_INVITATION_GRACE_SECONDS = 0
    # Webhooks and push endpoints in tests are servers on this machine, over plain HTTP: the
    # guard's refusals of such addresses are tested with these put back
    # (tests/notifications/test_outbound.py).
    settings.OUTBOUND_ALLOWED_NETWORKS = ["127.0.0.1/32"]
    settings.OUTBOUND_ALLOW_HTTP = True
    # A test that commits is emptied after with DELETE, several times faster than TRUNCATE on
    # PostgreSQL for a test's few rows (tests/support/flush.py has the figures).
    from tests.support.flush import delete_rather_than_truncate

    delete_rather_than_truncate()


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The few tests that take minutes (`slow(minutes=N)`: the soak, the API's schema run, the
    abuse run) go first, longest first; the rest keep their order (pytest-django's: this hook
    runs after it). With `make test`'s work stealing (`--dist worksteal`) the first process
    starts on them while the other takes the second half of the tests; last in the collection
    order (tests/ops), the soak ran alone for minutes. Only these few: moving every slow test
    first measured slower on two cores, two stacks or two browsers at once slowing each other
    down."""

    def minutes(item: pytest.Item) -> float:
        slow = item.get_closest_marker("slow")
        return float(slow.kwargs.get("minutes", 0)) if slow else 0.0

    items.sort(key=minutes, reverse=True)


@pytest.fixture(autouse=True)
def _tasks_in_process():
    """Tasks run in-process when sent, whatever a test before this one did to the Celery app
    (the end-to-end tests point it at a real broker)."""
    from azul_site.celery import app

    keys = ("task_always_eager", "broker_url", "task_default_queue")
    saved = {key: app.conf.get(key) for key in keys}
    app.conf.task_always_eager = True
    yield
    app.conf.update(saved)


@pytest.fixture(autouse=True)
def _services_answering(monkeypatch):
    """Each test starts as a new process does: Redis and the broker taken for answering."""
    from core.outages import cache

    monkeypatch.setattr(cache, "outage", cache._Outage())
    monkeypatch.setattr(cache, "broker_outage", cache._Outage("The task broker", "skipped"))


@pytest.fixture(autouse=True)
def _language_reset():
    """Each test starts in the default language: a request with `Accept-Language: ko` leaves
    Korean active in the thread after it (as a server's next request activates its own)."""
    from django.utils import translation

    yield
    translation.deactivate()


@pytest.fixture(autouse=True)
def _empty_cache():
    from django.core.cache import caches

    for cache in caches.all(initialized_only=True):
        cache.clear()


@pytest.fixture
def redis_url() -> str:
    """A real Redis for the tests of what runs on it: skipped without one, except on CI."""
    import os

    import redis

    url = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/13")
    try:
        redis.Redis.from_url(url).ping()
    except redis.ConnectionError:
        if os.environ.get("CI"):
            raise
        pytest.skip(f"no Redis at {url}")
    return url


@pytest.fixture
def make_user(db) -> Callable:
    """`make_user("dora", email=None, verified=True, password=PASSWORD)`: `factories.user`."""
    from tests.support import factories

    return factories.user


@pytest.fixture
def root(make_user):
    """A superuser, for the admin's pages."""
    person = make_user("root")
    person.is_staff = person.is_superuser = True
    person.save()
    return person


@pytest.fixture
def alice(make_user):
    return make_user("alice")


@pytest.fixture
def bob(make_user):
    return make_user("bob")


@pytest.fixture
def carol(make_user):
    return make_user("carol")


@pytest.fixture
def dave(make_user):
    return make_user("dave")


@pytest.fixture
def mallory(make_user):
    """The hostile account of the fair-play tests."""
    return make_user("mallory")


@pytest.fixture
def players(make_user) -> Callable[[int], list]:
    """`players(4)`: that many new users, p0, p1, ..."""
    made: list = []

    def make(n: int) -> list:
        start = len(made)
        made.extend(make_user(f"p{i}") for i in range(start, start + n))
        return made[start:]

    return make


@pytest.fixture
def client_for(db) -> Callable[..., Client]:
    """`client_for(user)`: a new test client with `user` logged in (session)."""
    from tests.support import factories

    return factories.client_for


@pytest.fixture
def api_client_for(db) -> Callable[..., APIClient]:
    """`api_client_for(user)`: a DRF APIClient acting as `user` (authentication forced)."""
    from tests.support import factories

    return factories.api_client_for


@pytest.fixture
def clients(alice, bob, carol) -> dict[str, APIClient]:
    """API clients of alice, bob and carol, by username."""
    from tests.support import factories

    return {u.username: factories.api_client_for(u) for u in (alice, bob, carol)}


@pytest.fixture
def start_game(db) -> Callable:
    """`start_game(alice, bob, variant="colored")`: a started game, invitations accepted."""
    from tests.support import factories

    return factories.start_game


@pytest.fixture
def create_game(db) -> Callable[..., dict]:
    """`create_game(creator, seats=[...], players=2, variant="colored")` through the API."""
    from tests.support import factories

    return factories.create_game_by_api


@pytest.fixture
def active_game(alice, bob) -> dict:
    """A two-player colored game made through the API: alice invited bob and bob accepted."""
    from tests.support import factories

    return factories.active_game_by_api(alice, bob)


@pytest.fixture
def finished_colored(start_game, alice, bob):
    """A two-player colored game played to its end."""
    from tests.support.play import finish

    return finish(start_game(alice, bob))


@pytest.fixture
def finished_gray(start_game, alice, bob, dave):
    """Three players on the gray wall: wall-tiling choices, players tiling at once."""
    from tests.support.play import finish

    return finish(start_game(alice, bob, dave, variant="gray"), seed=11)


@pytest.fixture
def finished_game(db) -> Callable[..., Any]:
    """`finished_game([(alice, 50, 1), (bob, 40, 2)], variant="colored", days_ago=0,
    study=False)`: `factories.finished_game`, a finished game built outright."""
    from tests.support import factories

    return factories.finished_game


@pytest.fixture
def committed(django_capture_on_commit_callbacks) -> Callable[..., Any]:
    """`committed(service, **kwargs)`: call a service and run what it asked to happen once it
    commits (emails, the computer's moves), as a real request would."""

    def call(service: Callable[..., Any], **kwargs: Any) -> Any:
        with django_capture_on_commit_callbacks(execute=True):
            return service(**kwargs)

    return call


@pytest.fixture
def site_mail(settings) -> None:
    """Mail as the site sends it to players (`pytestmark = pytest.mark.usefixtures("site_mail")`):
    to Django's locmem outbox, from the site named Azul at `SITE_URL`."""
    from tests.support.urls import SITE_URL

    settings.SITE_URL = SITE_URL
    settings.SITE_NAME = "Azul"
    settings.NOTIFY_GRACE_SECONDS = 120
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"


@pytest.fixture
def smtp_server(settings):
    """A real SMTP server on a free loopback port, with Django's SMTP backend pointed at it."""
    from tests.support.smtp import Recorder
    from tests.support.smtp import smtp_server as serve_smtp

    recorder = Recorder()
    with serve_smtp(recorder, settings):
        yield recorder


@pytest.fixture(scope="session")
def static_root(tmp_path_factory) -> Any:
    """The static files as deployed, collected once, for a server run with DEBUG off
    (`tests.support.gunicorn.collect_static`): STATIC_ROOT=`static_root`."""
    from tests.support.gunicorn import collect_static

    root = tmp_path_factory.mktemp("static")
    collect_static(root)
    return root
