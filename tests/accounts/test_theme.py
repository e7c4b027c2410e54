"""Dark mode (issue #35): the player's "Colours" setting (auto, light, dark) on the settings page,
written on every page as <html data-theme="light|dark"> (none for "As my device" and for
visitors: the device's `prefers-color-scheme` decides), and the style sheets' dark palette,
written twice (under the media query, and for the setting) and kept the same in both.

How the pages look in each theme, and their contrast, is measured in Chromium:
tests/e2e/test_dark_mode.py."""

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse

from tests.accounts.test_settings_page import GOOD_SETTINGS

HTML_TAG = re.compile(r"<html\b[^>]*>")


def html_tag_of(response) -> str:
    return HTML_TAG.search(response.content.decode()).group(0)


@pytest.mark.django_db
def test_a_new_player_follows_their_device(alice, client_for):
    client = client_for(alice)
    page = client.get(reverse("accounts:settings")).content.decode()

    assert 'name="theme"' in page
    assert '<option value="auto" selected>As my device</option>' in page
    assert '<option value="light">Light</option>' in page
    assert '<option value="dark">Dark</option>' in page
    assert "data-theme" not in html_tag_of(client.get("/"))


@pytest.mark.django_db
def test_a_visitor_gets_no_theme_of_their_own(client):
    for path in ("/", "/rules/", reverse("account_login")):
        assert "data-theme" not in html_tag_of(client.get(path)), path


@pytest.mark.django_db
@pytest.mark.parametrize("choice", ["light", "dark"])
def test_the_choice_is_saved_and_written_on_every_page(choice, alice, bob, client_for, start_game):
    client = client_for(alice)
    response = client.post(reverse("accounts:settings"), {**GOOD_SETTINGS, "theme": choice})

    assert response.status_code == 302
    alice.profile.refresh_from_db()
    assert alice.profile.theme == choice
    game = start_game(alice, bob)
    for path in ("/", reverse("accounts:settings"), f"/games/{game.id}/", "/lobby/", "/rules/"):
        assert f'data-theme="{choice}"' in html_tag_of(client.get(path)), path
    # Only the player's own pages: another player, and a visitor, still follow their device.
    assert "data-theme" not in html_tag_of(client_for(bob).get(f"/games/{game.id}/"))


@pytest.mark.django_db
def test_back_to_the_device(alice, client_for):
    alice.profile.theme = "dark"
    alice.profile.save()
    client = client_for(alice)

    client.post(reverse("accounts:settings"), {**GOOD_SETTINGS, "theme": "auto"})

    alice.profile.refresh_from_db()
    assert alice.profile.theme == "auto"
    assert "data-theme" not in html_tag_of(client.get("/"))


@pytest.mark.django_db
def test_a_form_without_the_field_keeps_the_choice(alice, client_for):
    alice.profile.theme = "dark"
    alice.profile.save()

    response = client_for(alice).post(reverse("accounts:settings"), GOOD_SETTINGS)

    assert response.status_code == 302
    alice.profile.refresh_from_db()
    assert alice.profile.theme == "dark"


@pytest.mark.django_db
@pytest.mark.parametrize("value", ["sepia", "dark\x00", '"><script>', "d" * 500])
def test_anything_else_is_refused_with_the_form(value, alice, client_for):
    client = client_for(alice)
    response = client.post(reverse("accounts:settings"), {**GOOD_SETTINGS, "theme": value})

    assert response.status_code in (200, 400)
    alice.profile.refresh_from_db()
    assert alice.profile.theme == "auto"
    assert "data-theme" not in html_tag_of(client.get("/"))


@pytest.mark.django_db
def test_the_choice_is_in_the_players_data(alice, client_for):
    alice.profile.theme = "light"
    alice.profile.save()

    data = client_for(alice).get(reverse("accounts:data_download")).json()

    assert data["profile"]["theme"] == "light"


@pytest.mark.django_db
def test_the_korean_settings_page_names_the_choices(alice, client_for):
    page = client_for(alice).get(
        reverse("accounts:settings"), HTTP_ACCEPT_LANGUAGE="ko-KR,ko;q=0.9"
    )

    select = re.search(r'<select name="theme".*?</select>', page.content.decode(), re.S).group(0)
    assert "기기 설정에 따름" in select and "어두운 화면" in select and "밝은 화면" in select


# -- the style sheets' dark palette -----------------------------------------------------------

STATIC = Path(settings.BASE_DIR) / "static"
SHEETS = ["css/site.css", "games/board.css", "games/replay.css"]
MEDIA_BLOCK = re.compile(
    r"@media \(prefers-color-scheme: dark\) \{\s*"
    r":root:not\(\[data-theme=light\]\) \{(?P<body>[^}]*)\}\s*\}"
)
SETTING_BLOCK = re.compile(r"(?<![\w)])\s:root\[data-theme=dark\] \{(?P<body>[^}]*)\}")
ROOT_BLOCK = re.compile(r"(?:^|\n):root \{(?P<body>[^}]*)\}")
DECLARATION = re.compile(r"(--[\w-]+|color-scheme)\s*:\s*([^;]+);")


def declarations(body: str) -> dict[str, str]:
    return {name: value.strip() for name, value in DECLARATION.findall(body)}


@pytest.mark.parametrize("sheet", SHEETS)
def test_both_dark_blocks_hold_the_same_palette(sheet):
    css = (STATIC / sheet).read_text()
    [media] = MEDIA_BLOCK.finditer(css)
    [setting] = SETTING_BLOCK.finditer("\n" + css)

    dark = declarations(media["body"])
    assert dark, sheet
    assert declarations(setting["body"]) == dark


def test_every_dark_colour_has_a_light_one():
    """A variable the dark theme sets is one the light theme sets too (in the same sheet or in
    site.css, which every page loads): a page in light colours never falls back to a guess."""
    light: dict[str, str] = {}
    for sheet in SHEETS:
        for block in ROOT_BLOCK.finditer((STATIC / sheet).read_text()):
            light |= declarations(block["body"])
    for sheet in SHEETS:
        [media] = MEDIA_BLOCK.finditer((STATIC / sheet).read_text())
        missing = set(declarations(media["body"])) - set(light)
        assert not missing, f"{sheet}: {sorted(missing)}"
    assert light["color-scheme"] == "light"


@pytest.mark.django_db
def test_scripts_read_the_theme_and_the_next_game_setting_from_the_api(alice, api_client_for):
    me = api_client_for(alice)
    assert me.get("/api/me/").json()["theme"] == "auto"
    alice.profile.theme = "dark"
    alice.profile.next_game_after_move = True
    alice.profile.save()
    answer = me.get("/api/me/").json()
    assert (answer["theme"], answer["next_game_after_move"]) == ("dark", True)
