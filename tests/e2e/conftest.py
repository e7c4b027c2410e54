"""Real-browser tests: Playwright driving Debian's Chromium against pytest-django's live server.

No browser can be downloaded here, so the session installs Debian's `chromium` when it is missing
(as root), or skips with the reason.
"""

import asyncio
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

# Playwright's sync API runs an event loop in this thread; the ORM calls the tests make between
# browser steps are ordinary synchronous code.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "e2e"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def _no_browser(reason: str) -> None:
    """CI must run the browser tests, so there a missing browser fails; elsewhere it skips."""
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


def _chromium_path() -> str:
    path = shutil.which("chromium")
    if path:
        return path
    if os.geteuid() != 0:
        _no_browser("Debian's chromium is not installed and installing it needs root")
    install = "apt-get update -qq && apt-get install -y -qq chromium"
    result = subprocess.run(["sh", "-c", install], capture_output=True, text=True, timeout=600)
    path = shutil.which("chromium")
    if result.returncode != 0 or not path:
        _no_browser(f"could not install chromium: {result.stderr.strip()[-300:]}")
    return path


def _end_live_waits() -> None:
    """End the long-polls the pages left waiting in the live server (games/live/), and wait
    for the thread that watches them to stop, so that no request holds the test database."""
    from games import live

    live.watch.wake_all()
    live.watch.join(5)


@pytest.fixture(scope="session")
def _chromium(django_db_setup) -> Iterator[tuple]:
    """Playwright's driver and Chromium, started once for the session (each start costs seconds
    of a loaded machine's time: about three dozen modules would pay it). `browser` lends them to
    one module at a time. It depends on the test database so that it closes before the database
    is dropped: the pages' long-polls left waiting must end first."""
    sync_api = pytest.importorskip("playwright.sync_api")
    executable = _chromium_path()
    manager = sync_api.sync_playwright()
    playwright = manager.start()
    try:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
    except BaseException:
        manager.__exit__()
        raise
    yield manager, browser
    asyncio._set_running_loop(manager._loop)  # see `browser`: its calls need their loop marked
    browser.close()
    manager.__exit__()
    _end_live_waits()


@pytest.fixture(scope="module")
def browser(_chromium) -> Iterator:
    """Chromium, for a module of tests. Between two of its calls Playwright's synchronous API marks
    its event loop as running in this thread, which the tests of async views (tests/games/live)
    cannot share: the mark is set for the module and cleared after it, so that the tests run
    next in this process find no loop running (the loop itself waits, suspended, for the next
    module of browser tests)."""
    manager, chromium = _chromium
    asyncio._set_running_loop(manager._loop)
    try:
        yield chromium
        for context in list(chromium.contexts):
            context.close()
        _end_live_waits()
    finally:
        asyncio._set_running_loop(None)


@pytest.fixture(autouse=True)
def _logs_agree_at_the_end(request) -> Iterator[None]:
    """After each browser test, its games' logs, states and seats agree (`check_game_logs`):
    checked once its pages are closed (`_close_pages`, torn down before this) and before the
    database is flushed."""
    if "browser" not in request.fixturenames:
        yield
        return
    request.getfixturevalue("transactional_db")
    yield
    from tests.support.records import logs_disagreeing

    assert logs_disagreeing() == []


@pytest.fixture(autouse=True)
def _close_pages(request) -> Iterator[None]:
    """After each browser test, close the pages it left open and end their long-polls, before the
    test's data is flushed (they would poll games that no longer exist, on into the next tests)."""
    if "browser" not in request.fixturenames:
        yield
        return
    request.getfixturevalue("transactional_db")  # torn down (flushed) after this fixture
    browser = request.getfixturevalue("browser")
    yield
    for context in list(browser.contexts):
        context.close()
    _end_live_waits()


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


@pytest.fixture
def contexts(browser):
    """New browser contexts (keyword arguments for `new_context`; a desktop's viewport unless
    given), closed after the test; then the waits they left are ended (the live server goes on
    serving the next tests)."""
    opened = []

    def make(**options):
        options.setdefault("viewport", {"width": 1280, "height": 900})
        opened.append(browser.new_context(**options))
        return opened[-1]

    yield make
    for context in opened:
        context.close()
    _end_live_waits()
