"""Dark mode in Chromium (issue #35): the device's `prefers-color-scheme` and the player's
"Colours" setting, which overrides it; axe-core (WCAG 2.2 AA, its colour-contrast rule
included) on the main pages in dark; and the contrast axe does not measure, computed here from
the pages' own styles (getComputedStyle, WCAG's relative luminance) in both themes: every tile's
edge against what it lies on, the empty spaces, the picked tiles' ring and the legal moves'
edges, the controls' edges and the keyboard's focus ring, each at 3:1 or more.
"""

from pathlib import Path

import pytest
from django.conf import settings

from tests.e2e.test_axe import serious_violations
from tests.support.browser import DESKTOP, PHONE
from tests.support.factories import client_for
from tests.support.play import play_forward, play_to_end, round_over, waiting_for

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

DARK_PAPER = "rgb(18, 20, 24)"  # site.css's --paper, dark
LIGHT_PAPER = "rgb(246, 243, 236)"  # and light

# The checks, run in the page (getComputedStyle, WCAG's relative luminance): tests/e2e/contrast.js.
CONTRAST_JS = (Path(__file__).parent / "contrast.js").read_text()


def measure(page, check: str, arg=None):
    """Run the check `check` of contrast.js in the page."""
    return page.evaluate(f"(arg) => ({CONTRAST_JS}).{check}(arg)", arg)


BOARD_FOCUS = [
    "button.tile.take",
    ".site-header a.brand",
    ".player-board h2 a",
    ".log-scroll",
    ".position-text summary",
]
SETTINGS_FOCUS = [
    "select[name=theme]",
    "input[name=display_name]",
    "main form button[type=submit]",
    "main .card a",
]


def theme_context(browser, base: str, *, device: str, user=None, viewport=DESKTOP, **options):
    """A browser context whose device prefers `device` ("light" or "dark"), signed in as `user`
    when given."""
    context = browser.new_context(viewport=viewport, color_scheme=device, **options)
    if user is not None:
        session = client_for(user).cookies[settings.SESSION_COOKIE_NAME].value
        context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": session, "url": base}])
    return context


def paper(page) -> str:
    return page.evaluate("getComputedStyle(document.documentElement).backgroundColor")


def color_scheme(page) -> str:
    return page.evaluate("getComputedStyle(document.documentElement).colorScheme")


@pytest.fixture(scope="module")
def axe():
    axe_module = pytest.importorskip("axe_playwright_python.sync_playwright")
    return axe_module.Axe()


def test_the_device_decides_unless_the_setting_says_otherwise(browser, live_server, alice):
    base = live_server.url

    # A visitor, and a player on "As my device": the device's choice.
    for device, expected in (("dark", DARK_PAPER), ("light", LIGHT_PAPER)):
        page = theme_context(browser, base, device=device).new_page()
        page.goto(base + "/rules/")
        assert page.locator("html").get_attribute("data-theme") is None
        assert paper(page) == expected, device
        assert color_scheme(page) == device
        page.context.close()
        page = theme_context(browser, base, device=device, user=alice).new_page()
        page.goto(base + "/")
        assert paper(page) == expected, device
        page.context.close()

    # The setting, chosen on the settings page by a player whose device is light: dark pages.
    page = theme_context(browser, base, device="light", user=alice).new_page()
    page.goto(base + "/settings/")
    assert page.locator("select[name=theme] option:checked").inner_text() == "As my device"
    page.select_option("select[name=theme]", "dark")
    with page.expect_navigation():
        page.locator("main form button[type=submit]").first.click()
    assert page.locator("html").get_attribute("data-theme") == "dark"
    assert paper(page) == DARK_PAPER
    assert color_scheme(page) == "dark"
    page.context.close()
    alice.profile.refresh_from_db()
    assert alice.profile.theme == "dark"

    # And "light" on a dark device: light pages, form controls in light colours too.
    alice.profile.theme = "light"
    alice.profile.save()
    page = theme_context(browser, base, device="dark", user=alice).new_page()
    page.goto(base + "/settings/")
    assert page.locator("html").get_attribute("data-theme") == "light"
    assert paper(page) == LIGHT_PAPER
    assert color_scheme(page) == "light"
    field = "getComputedStyle(document.querySelector('select[name=theme]')).backgroundColor"
    assert page.evaluate(field) == "rgb(255, 255, 255)"
    page.context.close()


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_axe_finds_nothing_serious_in_dark(
    browser, axe, live_server, start_game, alice, bob, carol, viewport
):
    base = live_server.url
    options: dict = {"viewport": DESKTOP}
    if viewport == "phone":
        options = {"viewport": PHONE, "is_mobile": True, "has_touch": True}
    context = theme_context(browser, base, device="dark", **options)
    page = context.new_page()
    page.set_default_timeout(15_000)
    found: list[str] = []

    def check(state: str, path: str | None = None) -> None:
        if path is not None:
            page.goto(base + path)
        assert paper(page) == DARK_PAPER, state
        found.extend(serious_violations(axe, page, f"dark, {state}"))

    check("home, signed out", "/")
    check("rules, signed out", "/rules/")
    check("sign in", "/accounts/login/")

    # Mid-game: round 2, walls with tiles on them, Alice to move.
    yours = waiting_for(play_forward(start_game(alice, bob), until=round_over(1), seed=3), alice)
    finished = play_to_end(start_game(alice, carol))
    session = client_for(alice).cookies[settings.SESSION_COOKIE_NAME].value
    context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": session, "url": base}])
    check("home, signed in", "/")
    check("board, mid-game, your turn", f"/games/{yours.id}/")
    page.locator("button.tile.take").first.click()
    page.wait_for_selector("button.dest:not([disabled])")
    check("board, after a pick")
    check("lobby", "/lobby/")
    check("settings", "/settings/")
    check("replay", f"/games/{finished.id}/replay/?ply=25")
    check("finished board", f"/games/{finished.id}/")
    check("my games", "/games/")
    check("rules, signed in", "/rules/")
    context.close()

    assert not found, "\n".join(found)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_tiles_highlights_controls_and_focus_rings_keep_their_contrast(
    browser, live_server, start_game, alice, bob, theme
):
    base = live_server.url
    context = theme_context(browser, base, device=theme, user=alice)
    page = context.new_page()
    page.set_default_timeout(15_000)
    expected_paper = DARK_PAPER if theme == "dark" else LIGHT_PAPER
    problems: list[str] = []

    def note(where: str, found: list[str]) -> None:
        problems.extend(f"{theme}, {where}: {line}" for line in found)

    game = waiting_for(play_forward(start_game(alice, bob), until=round_over(1), seed=3), alice)
    page.goto(f"{base}/games/{game.id}/")
    assert paper(page) == expected_paper

    # Every tile on the table, the pattern lines, the walls and the floors, and the empty spaces.
    tiles = measure(page, "tiles")
    assert tiles["counted"] > 30, tiles
    assert page.locator(".wall .tile:not(.slot)").count() > 0  # tiles placed in round 1
    note("board", tiles["found"])

    # The badges: the header's count of games waiting, "you", "to move".
    badges = measure(page, "badges")
    assert badges["counted"] >= 3, badges
    note("board, badges", badges["found"])

    # The keyboard's ring, on the table, a board, the move list and the header.
    page.keyboard.press("Shift")  # the keyboard in use: focus shows as it would on Tab
    rings = measure(page, "focus", BOARD_FOCUS)
    assert len(rings["seen"]) + len(rings["found"]) == len(BOARD_FOCUS)
    note("board, focus", rings["found"])

    # Picked tiles and the places they may go.
    page.locator("button.tile.take").first.click()
    page.wait_for_selector("button.dest:not([disabled])")
    picked = measure(page, "picked")
    assert picked["picked"] >= 1 and picked["legal"] >= 1, picked
    note("board, after a pick", picked["found"])

    # The rules' pictures are the board's own markup.
    page.goto(base + "/rules/")
    rules = measure(page, "tiles")
    assert rules["counted"] > 10, rules
    note("rules", rules["found"])

    # The forms: fields, selects and buttons, and their rings.
    for path in ("/settings/", "/lobby/", "/games/new/"):
        page.goto(base + path)
        controls = measure(page, "controls")
        assert controls["counted"] > 0 or path == "/lobby/", path  # an empty lobby: none
        note(path, controls["found"])
    page.goto(base + "/settings/")
    page.keyboard.press("Shift")
    rings = measure(page, "focus", SETTINGS_FOCUS)
    note("settings, focus", rings["found"])
    context.close()

    assert not problems, "\n".join(problems)
