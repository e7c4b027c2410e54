"""Polish a new player notices: the new-game form's computer levels are not cut off (their names
in the list, how well the chosen one plays in full under it), and the winner's trophy does not
depend on an emoji font (drawn, with a name a screen reader reads)."""

import re
from pathlib import Path

import pytest
from django.urls import reverse

from tests.support.play import finish

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[3]


def test_the_level_list_names_the_levels_and_says_in_full_how_the_chosen_one_plays(
    alice, client_for
):
    page = client_for(alice).get(reverse("games:new")).content.decode()

    seat = re.search(r'<select name="seat2_kind".*?</select>', page, re.S).group(0)
    options = re.findall(r"<option[^>]*>([^<]*)</option>", seat)
    assert "Computer (medium)" in options and "Computer (strong)" in options
    assert not [o for o in options if ":" in o]  # no sentence to cut off in the list
    assert 'aria-describedby="seat2_level"' in seat
    help_text = re.search(r'<p class="helptext seat-level" id="seat2_level">([^<]*)</p>', page)
    assert help_text.group(1) == "Looks a little ahead (a short search); beats greedy most games."
    assert 'data-choice="computer:strong"' in page  # the list the page's script reads


def test_the_winner_is_marked_by_a_drawn_trophy_not_an_emoji(start_game, alice, bob, client_for):
    finish(start_game(alice, bob))

    page = client_for(alice).get(reverse("games:my_games") + "?status=finished").content.decode()

    assert '<svg class="trophy"' in page and 'aria-label="winner"' in page
    assert "\U0001f3c6" not in page
    board_css = (ROOT / "static" / "games" / "board.css").read_text()
    assert not [c for c in board_css if ord(c) >= 0x1F000]
