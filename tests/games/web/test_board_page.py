import json
import re

import pytest
from django.urls import reverse

import azul
from games import selectors
from games.models import LogEntry
from tests.support.play import play_forward, to_move_user, waiting_user
from tests.support.urls import board_url

pytestmark = pytest.mark.django_db


def legal_moves_in(content: str) -> list[str]:
    match = re.search(r'<script id="legal-moves" type="application/json">(.*?)</script>', content)
    return json.loads(match.group(1))


def test_player_to_move_sees_the_board_with_move_controls(start_game, alice, bob, client_for):
    game = start_game(alice, bob)
    mover = to_move_user(game)

    response = client_for(mover).get(board_url(game))

    assert response.status_code == 200
    content = response.content.decode()
    assert '<span class="turn yours">' in content
    assert 'class="text-move-form"' in content
    assert 'data-dest="floor"' in content
    state = azul.State.from_dict(game.state)
    expected = sorted(str(m) for m in azul.legal_moves(state))
    assert sorted(legal_moves_in(content)) == expected
    # Every factory of a 2-player game, named with its tiles; each tile with a symbol and a label.
    for number in range(1, 6):
        assert f'role="toolbar" aria-label="Factory {number}: ' in content
    assert "◆" in content or "●" in content or "▲" in content or "■" in content
    assert "Starting player marker" in content
    for penalty in ("-1", "-2", "-3"):
        assert f'<span class="penalty">{penalty}</span>' in content


def test_watcher_and_waiting_player_see_no_move_controls(start_game, alice, bob, carol, client_for):
    game = start_game(alice, bob)

    for user in (carol, waiting_user(game)):
        response = client_for(user).get(board_url(game))
        assert response.status_code == 200
        content = response.content.decode()
        assert 'class="text-move-form"' not in content
        assert "data-dest=" not in content
        assert 'class="tile blue take"' not in content
        assert legal_moves_in(content) == []


def test_board_partial_renders_the_same_board_and_answers_204_when_unchanged(
    start_game, alice, bob, client_for
):
    game = start_game(alice, bob)
    client = client_for(to_move_user(game))
    partial = reverse("games:board", args=[game.id])

    response = client.get(partial)
    assert response.status_code == 200
    content = response.content.decode()
    assert content.lstrip().startswith('<div id="game"')
    assert "<html" not in content
    assert client.get(partial, {"since": game.ply}).status_code == 204
    assert client.get(partial, {"since": game.ply - 1}).status_code == 200


def test_no_js_form_plays_a_legal_move(start_game, alice, bob, client_for):
    game = start_game(alice, bob)
    mover = to_move_user(game)
    client = client_for(mover)
    move = legal_moves_in(client.get(board_url(game)).content.decode())[0]

    response = client.post(board_url(game), {"move": move, "expected_ply": game.ply}, follow=True)

    assert response.redirect_chain[-1][0] == board_url(game)
    assert f"You played {move}." in response.content.decode()
    assert selectors.game_get(game_id=game.id).ply == game.ply + 1
    assert LogEntry.objects.filter(game=game, kind="move").get().data["move"] == move


@pytest.mark.parametrize(
    ("move", "ply_offset", "message"),
    [
        ("F1 purple 2", 0, "Your move was not played"),
        ("C blue 1", 0, "Your move was not played"),  # nothing in the center yet
        (None, -1, "moved on while you were choosing"),
    ],
)
def test_no_js_form_rejects_illegal_or_stale_moves_without_changing_the_game(
    start_game, alice, bob, client_for, move, ply_offset, message
):
    game = start_game(alice, bob)
    client = client_for(to_move_user(game))
    move = move or legal_moves_in(client.get(board_url(game)).content.decode())[0]

    response = client.post(
        board_url(game), {"move": move, "expected_ply": game.ply + ply_offset}, follow=True
    )

    assert response.status_code == 200
    assert message in response.content.decode()
    assert 'class="message error"' in response.content.decode()
    after = selectors.game_get(game_id=game.id)
    assert (after.ply, after.state) == (game.ply, game.state)


def test_no_js_form_refuses_a_player_out_of_turn_and_a_watcher(
    start_game, alice, bob, carol, client_for
):
    game = start_game(alice, bob)
    move = str(azul.legal_moves(azul.State.from_dict(game.state))[0])

    for user in (waiting_user(game), carol):
        response = client_for(user).post(
            board_url(game), {"move": move, "expected_ply": game.ply}, follow=True
        )
        assert 'class="message error"' in response.content.decode()
    assert selectors.game_get(game_id=game.id).ply == game.ply


def test_unknown_game_is_404_and_anonymous_visitors_are_sent_to_log_in(
    start_game, alice, bob, client_for, client
):
    game = start_game(alice, bob)

    missing = reverse("games:detail", args=["00000000-0000-0000-0000-000000000000"])
    assert client_for(alice).get(missing).status_code == 404
    response = client.get(board_url(game))
    assert response.status_code == 302
    assert reverse("account_login") in response.url


def test_gray_wall_tiling_offers_the_legal_columns(start_game, alice, bob, client_for):
    game = start_game(alice, bob, variant="gray")
    # Play until someone has to choose a wall space.
    for _ in range(200):
        state = azul.State.from_dict(game.state)
        if state.phase == "tile" or game.status != "active":
            break
        game = play_forward(game, moves=1)
    state = azul.State.from_dict(game.state)
    assert state.phase == "tile"
    mover = to_move_user(game)

    content = client_for(mover).get(board_url(game)).content.decode()

    legal = legal_moves_in(content)
    assert legal and all(m.startswith("wall ") for m in legal)
    for move in legal:
        _, line, column = move.split()
        assert f'data-line="{line}" data-column="{column}"' in content
    assert "choose a wall space for pattern line" in content


def test_no_page_shows_a_seed_or_the_bag_order(start_game, alice, bob, carol, client_for):
    game = play_forward(start_game(alice, bob), moves=25)
    client = client_for(carol)

    for url in (
        board_url(game),
        reverse("games:board", args=[game.id]),
        reverse("games:my_games"),
        reverse("games:lobby"),
        reverse("home"),
    ):
        content = client.get(url).content.decode().lower()
        # The page explains the deals' seed, and shows its commitment: never the seed itself.
        assert game.deal_seed and game.deal_seed not in content
        assert '"bag"' not in content


def test_deadline_is_shown_in_the_viewers_time_zone(start_game, alice, bob, client_for):
    game = start_game(alice, bob)
    mover = to_move_user(game)
    mover.profile.time_zone = "Asia/Tokyo"
    mover.profile.save()

    content = client_for(mover).get(board_url(game)).content.decode()

    assert "JST" in content


@pytest.mark.parametrize("language", ["en", "ko"])
def test_the_position_reads_in_words_part_by_part(start_game, alice, bob, client_for, language):
    """The text view of the whole position (issue #34): each factory, the center, and for each
    player the score, every pattern line, every wall row and the floor, as a screen reader
    says them, in the player's language."""
    from django.utils import translation

    from games.models import Game
    from games.presenters.board import floor_said, line_said, tiles_said, wall_row_said

    game = start_game(alice, bob)
    client = client_for(alice)
    client.cookies["django_language"] = language
    content = client.get(reverse("games:detail", args=[game.id])).content.decode()
    [words] = re.findall(
        r'<details class="position-text" data-keep="words">(.*?)</details>', content, re.S
    )
    items = re.findall(r"<li>(.*?)</li>", words, re.S)
    state = Game.objects.get(pk=game.pk).engine_state().to_dict()
    with translation.override(language):
        for tiles in state["factories"]:
            assert any(item.endswith(tiles_said(tiles)) for item in items)
        for board in state["boards"]:
            for index, (color, count) in enumerate(board["pattern_lines"]):
                assert line_said(index + 1, color, count) in items
            for row, tiles in enumerate(board["wall"]):
                assert wall_row_said(row + 1, tiles, gray=False) in items
            assert floor_said(board["floor"]) in items
    assert words.count("<h3>") == 1 + len(state["boards"])  # the table, then each player


# -- issue #58's smaller ones ---------------------------------------------------------------------


def test_waiting_for_a_name_that_ends_with_a_stop_has_one_stop(start_game, alice, bob, client_for):
    from accounts.services import profile_update

    game = start_game(alice, bob)
    mover, waiting = to_move_user(game), waiting_user(game)
    profile_update(user=mover, display_name="Alice L.")

    english = client_for(waiting).get(board_url(game)).content.decode()
    korean = client_for(waiting).get(board_url(game), HTTP_ACCEPT_LANGUAGE="ko").content.decode()

    assert "Waiting for Alice L.</span>" in english
    assert "Alice L.." not in english
    assert "Alice L. 님을 기다리는 중입니다." in korean


@pytest.mark.parametrize(
    ("language", "shown"),
    [("en", "alice: F1 yellow 3"), ("ko", "alice: 공장1 노랑 → 3번 줄")],
)
def test_the_move_list_says_a_move_in_the_pages_language(
    start_game, alice, bob, client_for, language, shown
):
    """The words of the notation are translated where the list shows them; the log, the API
    and the page's script keep the notation (`data-move`)."""
    from django.utils import translation

    from games.presenters.moves import move_text

    with translation.override(language):
        assert f"alice: {move_text('F1 yellow 3')}" == shown
        assert move_text("C red floor") == (
            "C red floor" if language == "en" else "중앙 빨강 → 바닥"
        )
        assert move_text("wall 2 4") == ("wall 2 4" if language == "en" else "벽 2번 줄 4번 칸")
    game = start_game(alice, bob)
    play_forward(game, moves=2)
    page = client_for(alice).get(board_url(game), HTTP_ACCEPT_LANGUAGE=language).content.decode()
    moves = [e.data["move"] for e in LogEntry.objects.filter(game=game, kind="move")]
    with translation.override(language):
        for move in moves:
            assert f'data-move="{move}"' in page
            assert f": {move_text(move)}</span>" in page
