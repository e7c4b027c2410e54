"""Fixtures shared by the web-layer tests.

Personas: alice and bob play, carol watches. All have verified email addresses and the password
`PASSWORD`. Log clients in with `client_for(user)` (a forced session login: django-axes rejects the
test client's `login()`, which authenticates without a request).
"""

from collections.abc import Callable

import pytest
from django.test import Client
from rest_framework.test import APIClient

PASSWORD = "tile-drafter-4827"
SESSION_BACKEND = "allauth.account.auth_backends.AuthenticationBackend"


def pytest_configure(config: pytest.Config) -> None:
    from django.conf import settings

    # Real hashers cost tens of milliseconds per password on purpose; tests do not need that.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    # Tests never touch a shared Redis: the cache (rate limits, throttles) is per process and
    # emptied before each test, and Celery tasks run in-process when sent.
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    settings.CELERY_TASK_ALWAYS_EAGER = True
    # Tests play faster than any player: the API's per-user rate is tested on its own
    # (tests/games/test_api_throttle.py), and only gets in the way elsewhere.
    settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["user"] = "1000/second"


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
    from core import cache

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
def make_user(db, django_user_model) -> Callable:
    """Factory: `make_user("dora", email=None, verified=True, password=PASSWORD)`.

    The email defaults to `<username>@example.com` and is recorded as the primary address,
    verified unless `verified=False` (as allauth would after sign-up).
    """
    from allauth.account.models import EmailAddress

    def make(
        username: str, email: str | None = None, verified: bool = True, password: str = PASSWORD
    ):
        email = email or f"{username}@example.com"
        user = django_user_model.objects.create_user(
            username=username, email=email, password=password
        )
        EmailAddress.objects.create(user=user, email=email, primary=True, verified=verified)
        return user

    return make


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
def client_for(db) -> Callable[..., Client]:
    """`client_for(user)`: a new test client with `user` logged in (session)."""

    def make(user) -> Client:
        client = Client()
        client.force_login(user, backend=SESSION_BACKEND)
        return client

    return make


@pytest.fixture
def api_client_for(db) -> Callable[..., APIClient]:
    """`api_client_for(user)`: a DRF APIClient acting as `user` (authentication forced)."""

    def make(user) -> APIClient:
        client = APIClient()
        client.force_authenticate(user=user)
        return client

    return make


@pytest.fixture
def start_game(db) -> Callable:
    """`start_game(alice, bob, variant="colored")`: a started game, invitations accepted."""
    from games import services

    def start(creator, *others, variant: str = "colored", days_per_move: int = 3):
        game = services.game_create(
            creator=creator,
            num_players=1 + len(others),
            variant=variant,
            days_per_move=days_per_move,
            seats=[services.SeatSpec(kind="invite", username=o.username) for o in others],
        )
        for other in others:
            # The last acceptance starts the game, and answers with it and its seats.
            game = services.invitation_respond(game_id=game.id, user=other, accept=True)
        return game

    return start
