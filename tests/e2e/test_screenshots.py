"""The README's screenshots of the board (docs/screenshots/): mid-game with tiles picked, at the
end of a round, at game over and in the replay, on a desktop (1280x900) and a phone (390x844),
the phone in English and in Korean; and mid-game in dark mode (a device that prefers dark) on
both.

Made by `make screenshots` (scripts/screenshots.py), which sets AZUL_SCREENSHOTS to the folder
to write; skipped otherwise. A fresh game each time, against the computer, as the other browser
tests play it."""

import os
from pathlib import Path

import pytest
from django.conf import settings

from tests.support.browser import DESKTOP, PHONE, page_for
from tests.support.factories import against_computer
from tests.support.play import game_over, play_forward, round_over
from tests.support.urls import board_url

OUT = os.environ.get("AZUL_SCREENSHOTS")

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.slow,
    pytest.mark.skipif(not OUT, reason="screenshots are made by `make screenshots`"),
]


def alice_to_move_after(ply: int):
    """Alice to move, past `ply`."""
    return lambda game: game.ply > ply and game.engine_state().to_move == [0]


def test_screenshots(browser, live_server, make_user):
    out = Path(OUT)
    out.mkdir(parents=True, exist_ok=True)
    alice = make_user("alice")
    alice.profile.display_name = "Alice"
    alice.profile.save()
    base = live_server.url
    pages = {
        "desktop": page_for(browser, base, alice, DESKTOP),
        # Drawn at one pixel per CSS pixel, so that the README shows it at its size.
        "phone": page_for(browser, base, alice, PHONE, phone=True, scale=1),
        "phone-ko": page_for(browser, base, alice, PHONE, phone=True, scale=1),
    }
    korean = {"name": settings.LANGUAGE_COOKIE_NAME, "value": "ko", "url": base}
    pages["phone-ko"].context.add_cookies([korean])
    # Dark mode, as a device set to dark shows it (the player's setting left "As my device").
    dark = {
        "dark-desktop": page_for(browser, base, alice, DESKTOP),
        "dark-phone": page_for(browser, base, alice, PHONE, phone=True, scale=1),
    }
    for page in dark.values():
        page.emulate_media(color_scheme="dark")

    def shoot(name: str, url: str, pick: bool = False, dark_too: bool = False) -> None:
        for device, page in (pages | dark if dark_too else pages).items():
            phone = "phone" in device
            page.goto(base + url)
            if pick:
                take = page.locator("button.take").first
                take.tap() if phone else take.click()
                page.wait_for_timeout(600)  # the phone's smooth scroll to the pattern lines
            # The phone's pick is shown as the player sees it; everything else whole.
            full = not (pick and phone)
            page.screenshot(path=str(out / f"{name}-{device}.png"), full_page=full)

    game = play_forward(against_computer(alice, level="greedy"), until=round_over(1), seed=3)
    shoot("round-end", board_url(game))
    game = play_forward(game, until=alice_to_move_after(game.ply + 2), seed=3)
    shoot("mid-game", board_url(game), pick=True, dark_too=True)
    game = play_forward(game, until=game_over, seed=3)
    shoot("game-over", board_url(game))
    # The replay, a few moves into round 2: on a phone, its buttons in a bar at the bottom.
    for device, page in pages.items():
        page.goto(f"{base}/games/{game.id}/replay/?ply=25")
        page.screenshot(path=str(out / f"replay-{device}.png"))
