"""In Chromium, under the site's Content-Security-Policy (settings.CONTENT_SECURITY_POLICY): the
main pages load with no violation reported, and their scripts still work (the header's menu, the
board's moves by keyboard and by click, the replay's keys, sign-up's time zone, the new-game
form, the API's docs and the admin)."""

import json

import pytest
from django.test import override_settings

from analysis.models import Analysis
from analysis.services import analysis_run
from tests.support.browser import PHONE, board_of, set_confirm, signed_in
from tests.support.factories import PASSWORD
from tests.support.play import play_to_end, waiting_for

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

# Every violation the page reports, kept in the page's session so that it outlives a navigation
# within the tab; read back by `violations`.
LISTEN = """
document.addEventListener("securitypolicyviolation", (event) => {
  const seen = JSON.parse(sessionStorage.getItem("csp-violations") || "[]");
  seen.push(`${event.violatedDirective} ${event.blockedURI} at ${location.pathname}`);
  sessionStorage.setItem("csp-violations", JSON.stringify(seen));
});
"""


def watched(context):
    """`context`, its pages listening for violations, and the browser's console errors (Chromium
    writes each refused script or style there too) kept in `context.errors`."""
    context.add_init_script(LISTEN)
    context.errors = []
    context.on("console", lambda m: m.type == "error" and context.errors.append(m.text))
    return context


def violations(page) -> list[str]:
    reported = page.evaluate("JSON.parse(sessionStorage.getItem('csp-violations') || '[]')")
    errors = page.context.errors
    return reported + [e for e in errors if "Content Security Policy" in e or "Refused to" in e]


def a_line_move(page) -> tuple[str, str, str]:
    """A legal move to a pattern line (source, color, line) from the page's list."""
    moves = json.loads(page.locator("#legal-moves").text_content())
    return tuple(next(m for m in moves if not m.endswith("floor")).split())


def ply_of(page) -> int:
    return int(page.locator("#game").get_attribute("data-ply"))


def test_the_board_played_by_keyboard_and_by_click_reports_no_violation(
    browser, live_server, contexts, alice, bob, start_game
):
    game = waiting_for(start_game(alice, bob), alice)
    set_confirm(alice, "off")
    set_confirm(bob, "off")
    alice_page = board_of(watched(contexts()), live_server.url, alice, game.id)
    bob_page = board_of(watched(contexts()), live_server.url, bob, game.id)

    # Alice by keyboard: the tiles, Enter, the line, Enter.
    ply = ply_of(alice_page)
    source, color, line = a_line_move(alice_page)
    alice_page.locator(f'button.take[data-source="{source}"][data-color="{color}"]').first.focus()
    alice_page.keyboard.press("Enter")
    alice_page.locator(f'button.dest[data-dest="{line}"]').focus()
    alice_page.keyboard.press("Enter")
    alice_page.wait_for_function(f"() => document.getElementById('game').dataset.ply !== '{ply}'")

    # Bob's board was swapped live (the long-poll's fetch); he moves by clicking.
    bob_page.wait_for_function(f"() => document.getElementById('game').dataset.ply !== '{ply}'")
    ply = ply_of(bob_page)
    source, color, line = a_line_move(bob_page)
    bob_page.click(f'button.take[data-source="{source}"][data-color="{color}"]')
    bob_page.click(f'button.dest[data-dest="{line}"]')
    bob_page.wait_for_function(f"() => document.getElementById('game').dataset.ply !== '{ply}'")
    alice_page.wait_for_function(f"() => document.getElementById('game').dataset.ply !== '{ply}'")

    assert violations(alice_page) == [] and violations(bob_page) == []


def test_replay_settings_new_game_and_lists_report_no_violation(
    browser, live_server, contexts, alice, bob, start_game
):
    game = play_to_end(start_game(alice, bob))
    page = signed_in(watched(contexts()), live_server.url, alice)

    page.goto(f"{live_server.url}/games/{game.id}/replay/?ply=10")
    page.keyboard.press("ArrowRight")
    page.wait_for_function("() => document.getElementById('replay').dataset.ply === '11'")
    pages = ("/", "/games/", "/settings/", "/lobby/", "/leaderboard/", "/history/", "/rules/")
    for path in (*pages, "/players/bob/", "/no-such-page/"):
        page.goto(live_server.url + path)
    page.goto(f"{live_server.url}/games/{game.id}/")
    page.goto(f"{live_server.url}/games/new/")
    # new_game.js: only the seats the number of players uses are shown, and choosing "invite"
    # for one shows its name box.
    assert page.locator(".seat-fieldset[data-seat='4']").is_hidden()
    seat = page.locator(".seat-fieldset[data-seat='2']")
    seat.locator("select").select_option("invite")
    assert seat.locator(".seat-username input").is_visible()

    assert violations(page) == []


def test_sign_up_and_the_phone_menu_work_with_no_violation(browser, live_server, contexts):
    page = watched(contexts(timezone_id="Asia/Seoul", locale="en-US")).new_page()
    page.set_default_timeout(10_000)
    page.goto(f"{live_server.url}/accounts/signup/")
    # accounts/time_zone.js filled the hidden field.
    assert page.locator("input[type=hidden][name=time_zone]").input_value() == "Asia/Seoul"

    phone = watched(contexts(viewport=PHONE, is_mobile=True, has_touch=True)).new_page()
    phone.goto(f"{live_server.url}/rules/")
    # nav_menu.js closed the header's menu on a narrow screen.
    assert phone.evaluate("document.getElementById('nav-menu').open") is False

    assert violations(page) == [] and violations(phone) == []


def test_the_api_docs_and_the_admin_work_with_no_violation(
    browser, live_server, contexts, make_user, alice, bob, start_game
):
    game = start_game(alice, bob)
    page = watched(contexts()).new_page()
    page.set_default_timeout(15_000)

    # Swagger UI draws the API's operations from the schema (its own scripts ran).
    page.goto(f"{live_server.url}/api/docs/")
    page.locator(".swagger-ui .opblock").first.wait_for()

    admin = make_user("root")
    admin.is_staff = admin.is_superuser = True
    admin.save()
    page.goto(f"{live_server.url}/admin/login/")
    page.fill("[name=username]", "root")
    page.fill("[name=password]", PASSWORD)
    with page.expect_navigation():
        page.click("input[type=submit]")
    for path in ("/admin/", "/admin/games/game/", f"/admin/games/game/{game.id}/change/"):
        page.goto(live_server.url + path)
    # The admin's own script: the sidebar's filter box narrows the list of models.
    page.goto(f"{live_server.url}/admin/games/game/")
    page.fill("#nav-filter", "log")
    assert not page.locator("#nav-sidebar tr.model-game").is_visible()

    assert violations(page) == []


@override_settings(
    ANALYSIS_SECONDS_PER_GAME=3.0,
    ANALYSIS_MIN_SECONDS_PER_MOVE=0.01,
    ANALYSIS_MAX_SECONDS_PER_MOVE=0.05,
)
def test_a_pending_analysis_shows_itself_when_done_with_no_violation(
    browser, live_server, contexts, alice, bob, start_game
):
    game = play_to_end(start_game(alice, bob))
    # Asked for, its task not yet run (as while a worker is busy).
    Analysis.objects.create(game=game, requested_by=alice)
    page = signed_in(watched(contexts()), live_server.url, alice)
    page.goto(f"{live_server.url}/games/{game.id}/")
    assert page.locator("#analysis .analysis-pending").is_visible()

    # analysis/analysis.js asks the API every 3 s, and reloads the page once it is done.
    with page.expect_request(lambda request: "/api/" in request.url and "analysis" in request.url):
        pass
    analysis_run(game_id=game.id)
    page.locator("#analysis table.analysis-moves").first.wait_for(timeout=15_000)

    assert violations(page) == []
