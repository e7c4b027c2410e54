"""The "confirm moves" setting: chosen on the settings page, told by the API (`/api/me/`) and
given to the board page's script (static/games/board.js reads `data-confirm-moves`)."""

import pytest
from django.urls import reverse

from tests.accounts.test_settings_page import GOOD_SETTINGS
from tests.support.urls import board_url

pytestmark = pytest.mark.django_db

ME = "/api/me/"


def test_a_new_player_confirms_on_touch_screens_only(alice, client_for, api_client_for):
    page = client_for(alice).get(reverse("accounts:settings")).content.decode()

    assert 'name="confirm_moves"' in page
    assert '<option value="auto" selected>On touch screens only</option>' in page
    assert api_client_for(alice).get(ME).json()["confirm_moves"] == "auto"


@pytest.mark.parametrize("choice", ["on", "off", "auto"])
def test_the_choice_is_saved_and_reaches_the_api_and_the_board(
    choice, alice, bob, client_for, api_client_for, start_game
):
    client = client_for(alice)
    response = client.post(reverse("accounts:settings"), {**GOOD_SETTINGS, "confirm_moves": choice})

    assert response.status_code == 302
    alice.profile.refresh_from_db()
    assert alice.profile.confirm_moves == choice
    assert api_client_for(alice).get(ME).json()["confirm_moves"] == choice
    game = start_game(alice, bob)
    board = client.get(board_url(game)).content.decode()
    assert f'id="game-root" data-confirm-moves="{choice}"' in board


def test_an_unknown_choice_is_refused_with_the_form(alice, client_for):
    client = client_for(alice)
    response = client.post(
        reverse("accounts:settings"), {**GOOD_SETTINGS, "confirm_moves": "sometimes"}
    )

    assert response.status_code == 200
    assert "Select a valid choice" in response.content.decode()
    alice.profile.refresh_from_db()
    assert alice.profile.confirm_moves == "auto"


def test_the_api_documents_the_field(client):
    schema = client.get(
        "/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json"
    ).content.decode()

    assert "confirm_moves" in schema
