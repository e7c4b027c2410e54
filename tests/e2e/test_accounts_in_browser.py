"""In a real browser (Chromium, see tests/e2e): sign-up takes the browser's time zone, and the
header's links line up with the page's content, on wide pages too."""

import pytest

from tests.support.factories import PASSWORD
from tests.support.play import play_to_end

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def test_sign_up_takes_the_browsers_time_zone(browser, live_server, django_user_model):
    context = browser.new_context(timezone_id="Asia/Seoul", locale="en-US")
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.goto(f"{live_server.url}/accounts/signup/")

    page.fill("input[name=username]", "dora")
    page.fill("input[name=email]", "dora@example.com")
    page.fill("input[name=password1]", PASSWORD)
    page.fill("input[name=password2]", PASSWORD)
    with page.expect_navigation():
        page.click("form[action='/accounts/signup/'] button[type=submit]")

    assert page.url.endswith("/accounts/confirm-email/")
    assert django_user_model.objects.get(username="dora").profile.time_zone == "Asia/Seoul"
    context.close()


EDGES = """() => {
  const nav = document.querySelector('.site-header .nav').getBoundingClientRect();
  const main = document.querySelector('main.content').getBoundingClientRect();
  return [nav.left, nav.right, main.left, main.right];
}"""


def test_the_header_is_as_wide_as_the_content(
    browser,
    live_server,
    start_game,
    alice,
    bob,
):
    game = play_to_end(start_game(alice, bob))
    context = browser.new_context(viewport={"width": 1600, "height": 900}, locale="en-US")
    page = context.new_page()
    page.set_default_timeout(10_000)

    for path in ("/history/", f"/games/{game.id}/replay/?ply=3"):
        page.goto(f"{live_server.url}{path}")
        nav_left, nav_right, main_left, main_right = page.evaluate(EDGES)
        assert (nav_left, nav_right) == (main_left, main_right), path
    context.close()
