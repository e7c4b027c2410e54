"""A finished game's board: a banner that tells each viewer how it went, in place of the empty
factories."""

import re

import pytest
from django.utils import translation

from games.presenters.scoring import game_over_banner
from tests.support.html import text
from tests.support.play import play_forward
from tests.support.urls import board_url

pytestmark = pytest.mark.django_db

ORDINAL = {1: "1st", 2: "2nd", 3: "3rd", 4: "4th"}
NAMES = {0: "Alice", 1: "Bob", 2: "Carol"}


def points(score: int) -> str:
    return f"{score} point" if score == 1 else f"{score} points"


def standings(*rows: tuple[int, int]) -> list[dict]:
    """(place, score) per seat, in seat order."""
    return [{"position": i, "place": p, "score": s} for i, (p, s) in enumerate(rows)]


@pytest.mark.parametrize(
    ("rows", "seat", "headline", "winners"),
    [
        ([(1, 71), (2, 54), (3, 40)], 0, "You won with 71 points.", ""),
        ([(1, 71), (2, 54), (3, 40)], 1, "You came 2nd of 3 with 54 points.", "Alice won"),
        ([(1, 71), (2, 54), (3, 40)], None, "Alice won with 71 points.", ""),
        ([(1, 60), (1, 60), (3, 40)], 1, "You shared the win with Alice, with 60 points.", ""),
        ([(1, 60), (1, 60), (3, 40)], None, "Alice and Bob shared the win with 60 points.", ""),
        ([(1, 71), (2, 40), (2, 40)], 2, "You came 2nd (shared) of 3 with 40 points.", "Alice"),
        ([(1, 1), (2, 0), (3, 0)], 0, "You won with 1 point.", ""),
        ([(1, 1), (2, 0), (3, 0)], None, "Alice won with 1 point.", ""),
        ([(1, 9), (2, 1), (3, 0)], 1, "You came 2nd of 3 with 1 point.", "Alice won with 9 points"),
        ([(1, 9), (2, 1), (2, 1)], 2, "You came 2nd (shared) of 3 with 1 point.", "Alice"),
        ([(1, 1), (1, 1), (3, 0)], 0, "You shared the win with Bob, with 1 point.", ""),
        ([(1, 1), (1, 1), (3, 0)], None, "Alice and Bob shared the win with 1 point.", ""),
        ([(1, 9), (2, 0), (2, 0)], 1, "You came 2nd (shared) of 3 with 0 points.", "Alice"),
    ],
)
def test_the_banner_says_how_it_went_for_the_viewer(rows, seat, headline, winners):
    banner = game_over_banner(standings(*rows), NAMES, seat)
    assert banner["headline"] == headline
    assert banner["winners"].startswith(winners)
    assert banner["outcome"] == (
        "watcher" if seat is None else "won" if rows[seat][0] == 1 else "lost"
    )


def banner_of(content: str) -> str:
    start = content.index('<section class="game-over')
    return text(content[start : content.index("</section>", start)])


def test_each_player_and_a_watcher_see_the_result_instead_of_the_factories(
    start_game, make_user, alice, bob, carol, client_for
):
    game = play_forward(start_game(alice, bob, carol), moves=3000, seed=5)
    assert game.status == "finished"
    seats = {s.user: s for s in game.seat_list}
    winner = next(s for s in game.seat_list if s.place == 1)

    for user, seat in seats.items():
        content = client_for(user).get(board_url(game)).content.decode()
        banner = banner_of(content)
        shared = sum(1 for s in game.seat_list if s.place == seat.place) > 1
        if seat.place == 1 and not shared:
            assert f"Game over: You won with {points(seat.final_score)}." in banner
        elif seat.place == 1:
            assert "You shared the win with" in banner
        else:
            place = ORDINAL[seat.place] + (" (shared)" if shared else "")
            assert f"You came {place} of 3 with {points(seat.final_score)}." in banner
        # No factories or center left on the table, and the standings in their place.
        assert 'class="factories"' not in content
        assert '<div class="center"' not in content
        for other in game.seat_list:
            # the deals are random: a player may finish on exactly 1 point
            assert re.search(rf"{other.user.username}: {points(other.final_score)}\b", banner)

    dave = make_user("dave")
    banner = banner_of(client_for(dave).get(board_url(game)).content.decode())
    if sum(1 for s in game.seat_list if s.place == 1) == 1:
        assert f"{winner.user.username} won with {points(winner.final_score)}." in banner
    assert "You " not in banner


def test_the_rematch_sits_in_the_banner_and_a_game_in_play_keeps_its_actions_below(
    start_game, alice, bob, carol, client_for
):
    """The game's actions (`_game_actions.html`) are in the result banner once the game is over;
    while it is played they follow the board (resign)."""
    active = start_game(alice, bob)
    content = client_for(alice).get(board_url(active)).content.decode()
    assert 'id="resign-button"' in content[content.index("</aside>") :]
    assert "game-over" not in content

    game = play_forward(start_game(alice, bob), moves=300)
    assert game.status == "finished"
    content = client_for(alice).get(board_url(game)).content.decode()
    start = content.index('<section class="game-over')
    banner = content[start : content.index('<div class="player-boards">', start)]
    assert 'id="rematch-button"' in banner
    assert content.count('id="rematch-button"') == 1
    # A watcher has no rematch to ask for.
    assert "rematch-button" not in client_for(carol).get(board_url(game)).content.decode()


@pytest.mark.parametrize("score", [1, 71])
def test_the_banner_is_translated_for_every_score(score):
    """Korean has one form for every count: the singular and the plural both find it."""
    with translation.override("ko"):
        banner = game_over_banner(standings((1, score), (2, 0)), NAMES, 0)
    assert banner["headline"] == f"{score}점으로 이겼습니다."
