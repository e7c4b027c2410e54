"""Driving Chromium (Playwright) as a player does: pages signed in, moves made by clicking."""

import json

from django.conf import settings
from django.test import override_settings

from tests.support.factories import PASSWORD, client_for

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}

# A browser test's analysis, quick: a second for the whole game (tasks run in-process).
quick_analysis = override_settings(
    ANALYSIS_SECONDS_PER_GAME=1.0,
    ANALYSIS_MIN_SECONDS_PER_MOVE=0.005,
    ANALYSIS_MAX_SECONDS_PER_MOVE=0.02,
)


def context_for(browser, *, language: str, viewport: str):
    """A new browser context whose browser asks for `language` ("en" or "ko"), on a "phone"
    (390x844, a touch screen) or a "desktop"."""
    options: dict = {"locale": "ko-KR" if language == "ko" else "en-US"}
    if viewport == "phone":
        options |= {"viewport": PHONE, "is_mobile": True, "has_touch": True}
    else:
        options |= {"viewport": DESKTOP}
    return browser.new_context(**options)


def page_for(browser, base: str, user, viewport: dict, phone: bool = False, scale: int = 2):
    """A page of a new browser context signed in as `user` (the session of a forced login); a
    `phone` has a touch screen and `scale` device pixels per CSS pixel."""
    client = client_for(user)
    options = {"viewport": viewport}
    if phone:
        options |= {"is_mobile": True, "has_touch": True, "device_scale_factor": scale}
    context = browser.new_context(**options)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
    context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": base}])
    page = context.new_page()
    page.set_default_timeout(10_000)
    return page


def sign_in(browser, base: str, username: str):
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.set_default_timeout(15_000)
    page.goto(base + "/accounts/login/")
    page.fill("[name=login]", username)
    page.fill("[name=password]", PASSWORD)
    page.click("main form button[type=submit]")
    page.wait_for_url(base + "/")
    return page


def legal_moves(page) -> list[str]:
    return json.loads(page.locator("#legal-moves").text_content())


def play_one_move_by_clicking(page, turn: int) -> None:
    game = page.locator("#game")
    ply = game.get_attribute("data-ply")
    moves = [m for m in legal_moves(page) if not m.startswith("wall")]
    # Prefer pattern lines over the floor, and vary the choice a little from turn to turn.
    lines = [m for m in moves if not m.endswith("floor")] or moves
    source, color, dest = lines[turn % len(lines)].split()

    page.click(f'button.take[data-source="{source}"][data-color="{color}"]')
    assert "Picked" in page.locator(".pick-hint").text_content()
    enabled = page.locator("button.dest:not([disabled])")
    allowed = {enabled.nth(i).get_attribute("data-dest") for i in range(enabled.count())}
    expected = {m.split()[2] for m in moves if m.split()[:2] == [source, color]}
    assert allowed == expected  # illegal destinations cannot be chosen
    page.click(f'button.dest[data-dest="{dest}"]')
    page.wait_for_function(
        f"() => document.getElementById('game') && document.getElementById('game').dataset.ply !== "
        f"'{ply}'"
    )
    assert f"{source} {color} {dest}" in page.locator(".move-log").text_content()


def signed_in(context, base: str, user):
    """A new page in the browser `context`, signed in as `user` (their session's cookie)."""
    from django.test import Client

    from tests.support.factories import SESSION_BACKEND

    client = Client()
    client.force_login(user, backend=SESSION_BACKEND)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
    context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": base}])
    page = context.new_page()
    page.set_default_timeout(10_000)
    return page


def board_of(context, base: str, user, game_id):
    """`user`'s board page of the game, once it has asked for its first live update (it does
    as soon as it has loaded)."""
    page = signed_in(context, base, user)
    with page.expect_request(lambda request: "/live/" in request.url):
        page.goto(f"{base}/games/{game_id}/")
    return page


def set_confirm(user, choice: str) -> None:
    """`user`'s "confirm moves" setting."""
    user.profile.confirm_moves = choice
    user.profile.save()
