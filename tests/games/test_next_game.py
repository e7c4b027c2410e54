"""The next game: the game that waits for the player's move and whose deadline comes first
(`selectors.next_game_id`), offered on the board after a move, gone to by itself with the
player's setting (with and without the page's script), and linked from the header's count."""

import datetime
import uuid

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils import timezone

import azul
from games import selectors, services
from games.models import Game, Seat
from games.selectors.next_game import next_game_id
from games.selectors.turns import games_waiting_count, games_waiting_forget
from tests.accounts.test_settings_page import GOOD_SETTINGS
from tests.support import factories
from tests.support.play import position_of, waiting_for
from tests.support.urls import board_url, games_url

pytestmark = pytest.mark.django_db

NOW = timezone.now()


def deadline(game: Game, hours: float) -> None:
    Game.objects.filter(pk=game.pk).update(turn_deadline=NOW + datetime.timedelta(hours=hours))


def waiting_games(person, opponents, hours):
    """A game of `person` against each opponent, each waiting for `person` (and nobody else),
    its deadline the given hours from now."""
    games = []
    for opponent, h in zip(opponents, hours, strict=True):
        game = waiting_for(factories.start_game(person, opponent), person)
        deadline(game, h)
        games.append(game)
    return games


def first_move_of(game: Game, person) -> tuple[str, int]:
    game = selectors.game_get(game_id=game.id)
    state = game.engine_state()
    return str(azul.legal_moves(state, position_of(game, person))[0]), game.ply


def test_the_deadline_that_comes_first_is_next(alice, bob, carol, dave):
    late, soon, middle = waiting_games(alice, [bob, carol, dave], [30, 2, 10])

    assert next_game_id(user_id=alice.pk) == soon.id
    assert next_game_id(user_id=alice.pk, exclude=soon.id) == middle.id
    assert next_game_id(user_id=alice.pk, exclude=middle.id) == soon.id
    # Nobody else's next game: bob's turn comes in none of them.
    assert next_game_id(user_id=bob.pk) is None


def test_on_equal_deadlines_the_game_waiting_longest_is_next(alice, bob, carol):
    older, newer = waiting_games(alice, [bob, carol], [5, 5])
    Game.objects.filter(pk=older.pk).update(updated_at=NOW - datetime.timedelta(days=2))
    Game.objects.filter(pk=newer.pk).update(updated_at=NOW - datetime.timedelta(days=1))
    assert next_game_id(user_id=alice.pk) == older.id

    Game.objects.filter(pk=older.pk).update(updated_at=NOW)
    assert next_game_id(user_id=alice.pk) == newer.id


def test_games_the_computer_plays_for_the_player_and_others_turns_are_left_out(
    alice, bob, carol, dave
):
    taken_over, mine, finished = waiting_games(alice, [bob, carol, dave], [1, 5, 0.5])
    # After three timeouts the computer plays alice's seat: nothing there waits for her.
    Seat.objects.filter(game=taken_over, user=alice).update(timeouts=3, autoplay=True)
    Game.objects.filter(pk=finished.pk).update(status=Game.Status.FINISHED)
    # A game where it is bob's turn, with the earliest deadline of all.
    theirs = waiting_for(factories.start_game(alice, bob), bob)
    deadline(theirs, 0.1)

    assert next_game_id(user_id=alice.pk) == mine.id
    # The header's count, which links to the next game, counts the same games: only `mine`.
    games_waiting_forget([alice.pk])
    assert games_waiting_count(user_id=alice.pk) == 1


def test_a_vacation_that_pushed_a_deadline_back_puts_the_game_later(alice, bob, carol):
    first, second = waiting_games(alice, [bob, carol], [3, 6])
    # A vacation stops alice's clocks: her deadlines move back by its length (services.clocks).
    services.vacation_start(user=alice, days=1)

    first.refresh_from_db()
    second.refresh_from_db()
    assert first.turn_deadline < second.turn_deadline
    assert next_game_id(user_id=alice.pk) == first.id


# -- without the page's script: the move form's POST ---------------------------------------------


def set_next_game_after_move(person, on: bool) -> None:
    person.profile.next_game_after_move = on
    person.profile.save(update_fields=["next_game_after_move"])


def post_move(client, game: Game, person):
    move, ply = first_move_of(game, person)
    return client.post(board_url(game), {"move": move, "expected_ply": ply})


def test_with_the_setting_the_move_form_goes_on_to_the_next_game(alice, bob, carol, client_for):
    here, there = waiting_games(alice, [bob, carol], [1, 20])
    set_next_game_after_move(alice, True)
    client = client_for(alice)

    response = post_move(client, here, alice)

    assert response.status_code == 302
    assert response.url == f"{board_url(there)}?moved_in={here.id}"
    page = client.get(response.url).content.decode()
    # The page says where the move went, with a link back there.
    back = f'<a href="{board_url(here)}">alice v bob</a>'
    assert f"Your move in {back} was sent. This is your next game." in page
    assert selectors.game_get(game_id=here.id).ply > here.ply


@pytest.mark.parametrize("moved_in", ["not-a-game", str(uuid.UUID(int=0)), "other"])
def test_the_game_moved_from_is_named_only_to_its_players(alice, bob, carol, client_for, moved_in):
    """The address is anyone's to write: a game that does not exist, or that the reader holds no
    seat in (bob and carol's), is not named."""
    [there] = waiting_games(alice, [bob], [20])
    others = factories.start_game(bob, carol)
    if moved_in == "other":
        moved_in = str(others.id)

    page = client_for(alice).get(f"{board_url(there)}?moved_in={moved_in}").content.decode()

    assert page.count("Your move in") == 0
    assert board_url(others) not in page


def test_without_the_setting_the_move_form_stays_and_offers_the_next_game(
    alice, bob, carol, client_for
):
    here, there = waiting_games(alice, [bob, carol], [1, 20])
    client = client_for(alice)

    response = post_move(client, here, alice)

    assert response.url == board_url(here)
    page = client.get(response.url).content.decode()
    assert f'href="{board_url(there)}"' in page
    assert 'id="next-game-link"' in page
    assert 'aria-keyshortcuts="n"' in page
    assert 'id="next-game" class="next-game" hidden' not in page


def test_no_next_game_is_offered_while_it_is_the_players_turn_here(alice, bob, carol, client_for):
    here, there = waiting_games(alice, [bob, carol], [1, 20])
    page = client_for(alice).get(board_url(here)).content.decode()

    assert 'id="next-game" class="next-game" hidden' in page
    assert f'href="{board_url(there)}"' not in page


def test_a_game_against_the_computer_stays_after_a_move(alice, bob, client_for):
    # Only the computer plays the other seat: the turn comes back to alice within seconds.
    game = factories.against_computer(alice, level="random")
    game = waiting_for(game, alice)
    deadline(game, 1)
    elsewhere = waiting_games(alice, [bob], [20])[0]
    set_next_game_after_move(alice, True)

    response = post_move(client_for(alice), game, alice)

    assert response.url == board_url(game)
    assert elsewhere.id != game.id


def test_the_last_game_waiting_has_no_next_game(alice, bob, client_for):
    (here,) = waiting_games(alice, [bob], [1])
    set_next_game_after_move(alice, True)
    client = client_for(alice)

    response = post_move(client, here, alice)

    assert response.url == board_url(here)
    page = client.get(response.url).content.decode()
    assert 'id="next-game" class="next-game" hidden' in page


# -- with the page's script: the API's answer -----------------------------------------------------


@pytest.mark.parametrize("auto", [True, False])
def test_the_moves_answer_names_the_next_game(auto, alice, bob, carol, api_client_for):
    here, there = waiting_games(alice, [bob, carol], [1, 20])
    set_next_game_after_move(alice, auto)
    move, ply = first_move_of(here, alice)

    response = api_client_for(alice).post(
        games_url(here.id, "moves"), {"move": move, "expected_ply": ply}, format="json"
    )

    assert response.status_code == 201
    answer = response.json()
    assert answer["next_game"] == {"id": str(there.id), "url": board_url(there)}
    assert answer["next_game_auto"] is auto
    assert answer["ply"] == ply + 1


def test_the_moves_answer_has_no_next_game_when_none_waits(alice, bob, api_client_for):
    (here,) = waiting_games(alice, [bob], [1])
    set_next_game_after_move(alice, True)
    move, ply = first_move_of(here, alice)

    answer = api_client_for(alice).post(
        games_url(here.id, "moves"), {"move": move, "expected_ply": ply}, format="json"
    )

    assert answer.json()["next_game"] is None
    assert answer.json()["next_game_auto"] is False


def test_the_moves_answer_is_in_the_schema(client):
    schema = client.get("/api/schema/", {"format": "json"}).json()
    answer = schema["components"]["schemas"]["MoveAnswer"]
    assert {"next_game", "next_game_auto"} <= set(answer["properties"])


# -- the setting ------------------------------------------------------------------------------


def test_the_setting_is_on_the_settings_page_and_saved(alice, client_for):
    client = client_for(alice)
    page = client.get(reverse("accounts:settings")).content.decode()
    assert 'name="next_game_after_move"' in page

    client.post(reverse("accounts:settings"), {**GOOD_SETTINGS, "next_game_after_move": "on"})
    alice.profile.refresh_from_db()
    assert alice.profile.next_game_after_move is True

    client.post(reverse("accounts:settings"), GOOD_SETTINGS)
    alice.profile.refresh_from_db()
    assert alice.profile.next_game_after_move is False


# -- the header's count -------------------------------------------------------------------------


def test_the_headers_count_links_to_the_next_game(alice, bob, carol, client_for):
    late, soon = waiting_games(alice, [bob, carol], [30, 2])
    client = client_for(alice)

    page = client.get(reverse("home")).content.decode()
    assert f'href="{reverse("games:next")}" id="games-waiting"' in page

    response = client.get(reverse("games:next"))
    assert response.status_code == 302
    assert response.url == board_url(soon)


def test_with_no_game_waiting_next_goes_to_my_games(alice, bob, client_for):
    waiting_for(factories.start_game(alice, bob), bob)
    client = client_for(alice)

    response = client.get(reverse("games:next"))

    assert response.url == reverse("games:my_games")
    assert "No game waits for your move." in client.get(response.url).content.decode()


def test_next_asks_a_visitor_to_sign_in(client):
    response = client.get(reverse("games:next"))
    assert response.status_code == 302
    assert response.url.startswith(reverse("account_login"))


def test_next_is_in_korean_too(alice, client_for):
    alice.profile.language = "ko"
    alice.profile.save(update_fields=["language"])
    client = client_for(alice)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "ko"
    response = client.get(reverse("games:next"), follow=True)
    page = response.content.decode()
    assert "내 차례를 기다리는 게임이 없습니다." in page
