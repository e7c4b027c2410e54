"""The rules page: in the site's layout, with the wall pattern, the floor line's penalties, the
end-of-game bonuses and the gray-wall variant; linked from the header and the board."""

import re

import pytest
from django.urls import reverse

from azul import COLORS
from tests.support.urls import board_url

pytestmark = pytest.mark.django_db


def test_the_rules_page_is_public_and_covers_the_game(client):
    response = client.get("/rules/")

    assert response.status_code == 200
    content = response.content.decode()
    assert '<header class="site-header">' in content  # the site's layout
    for anchor in (
        "setup",
        "factory-offer",
        "floor-line",
        "wall-tiling",
        "scoring",
        "first-player",
        "end-of-game",
        "gray-wall",
    ):
        assert f'id="{anchor}"' in content
    penalties = re.search(r'<ol class="floor-penalties".*?</ol>', content, re.S).group(0)
    assert re.findall(r"<li>(-\d)</li>", penalties) == ["-1", "-1", "-2", "-2", "-2", "-3", "-3"]
    for bonus in ("+2", "+7", "+10"):
        assert f"<td>{bonus}</td>" in content
    assert "5 factory displays for 2 players, 7 for 3 and 9 for 4" in content


def test_the_wall_pattern_is_drawn_as_five_shifted_rows():
    from django.test import Client

    content = Client().get(reverse("rules")).content.decode()
    wall = re.search(r'<div class="wall rules-wall".*?</div>\s*</section>', content, re.S).group(0)
    rows = re.findall(r'<div class="wall-row">(.*?)</div>', wall)
    colours = [re.findall(r'class="tile (\w+)"', row) for row in rows]
    assert colours[0] == ["blue", "yellow", "red", "black", "white"]
    assert colours == [[COLORS[(c - r) % 5] for c in range(5)] for r in range(5)]


def test_the_header_and_the_board_link_to_the_rules(start_game, alice, bob, client_for, client):
    assert 'href="/rules/"' in client.get("/").content.decode()
    game = start_game(alice, bob)
    content = client_for(alice).get(board_url(game)).content.decode()
    board = content[content.index('<div id="game"') :]
    assert 'href="/rules/"' in board[: board.index("</section>")]  # beside the game's status


def test_the_rules_draw_the_board_and_a_scoring_example_with_the_board_markup(client):
    content = client.get("/rules/").content.decode()

    setup = content[content.index('id="setup"') : content.index('id="factory-offer"')]
    assert setup.count('class="factory') == 5
    assert setup.count('class="factory is-empty"') == 3  # three moves into the round
    # Pictures, not landmarks: groups with their own names (issue #58's axe findings).
    assert len(re.findall(r'<div class="player-board[ "][^>]*role="group"', setup)) == 2
    assert '<section class="player-board' not in setup
    assert 'class="center"' in setup
    scoring = content[content.index('id="scoring"') : content.index('id="first-player"')]
    before, after = scoring.split('<figure class="rules-picture">')[1:3]
    score = '<span class="score"><span class="visually-hidden">Score: </span>{}</span>'
    assert score.format(9) in before
    assert score.format(14) in after  # 9 + the tile's 5
    assert "3 + 2 = 5" in after
    assert "<img" not in setup + scoring  # drawn with the board's markup, not images
