"""Private notes (issue #32): each player of a game keeps notes on it that only they see, on the
board page (a form that works without JavaScript) and in the API. Nobody else reads them or
learns that they exist (mallory, hostile, and carol watching get the game's 404), they are in
no export of the game, they come with the player's data download and go with their account."""

from __future__ import annotations

import json

import pytest
from django.test import Client
from django.urls import reverse

from azul_site.account_deletion import account_delete
from games.models import GameNote
from games.throttles import GameNotesThrottle
from tests.support.factories import PASSWORD, api_client_for, client_for, invite_game
from tests.support.play import finish

pytestmark = pytest.mark.django_db

HOSTILE = '<script>alert("x")</script> \u202eevil'


def notes_url(game) -> str:
    return reverse("games_api:notes", args=[game.id])


def put(person, game, text):
    return api_client_for(person).put(notes_url(game), {"text": text}, format="json")


@pytest.fixture
def game(start_game, alice, bob):
    return start_game(alice, bob)


def test_a_player_saves_and_reads_back_their_notes(alice, game):
    assert api_client_for(alice).get(notes_url(game)).json() == {"text": "", "updated_at": None}

    saved = put(alice, game, "Go for the blue column.\r\nThen\tred.")

    assert saved.status_code == 200
    read = api_client_for(alice).get(notes_url(game)).json()
    assert read["text"] == "Go for the blue column.\nThen\tred."
    assert read["updated_at"] is not None
    assert put(alice, game, "").json()["text"] == ""
    assert GameNote.objects.filter(game=game, user=alice).count() == 1


def test_each_player_has_their_own_notes(alice, bob, game):
    put(alice, game, "alice's plan")
    put(bob, game, "bob's plan")

    assert api_client_for(alice).get(notes_url(game)).json()["text"] == "alice's plan"
    assert api_client_for(bob).get(notes_url(game)).json()["text"] == "bob's plan"


def test_nobody_else_reads_or_writes_them_nor_learns_they_exist(alice, carol, mallory, game):
    put(alice, game, "secret plan")
    missing = {"detail": "", "code": ""}
    for person in (carol, mallory):
        client = api_client_for(person)
        got = client.get(notes_url(game))
        unknown = client.get(reverse("games_api:notes", args=["0" * 32]))
        assert got.status_code == unknown.status_code == 404
        missing = got.json()
        assert missing == unknown.json()
        assert put(person, game, "overwritten").status_code == 404
        assert (
            "secret plan"
            not in client.get(reverse("games:detail", args=[game.id])).content.decode()
        )
    assert GameNote.objects.get(game=game, user=alice).text == "secret plan"
    assert GameNote.objects.filter(user__in=[carol, mallory]).count() == 0
    assert missing["code"] == "game_not_found"
    assert Client().get(notes_url(game)).status_code in (401, 403)


def test_an_invited_player_has_no_notes_until_they_accept(alice, bob):
    game = invite_game(alice, bob)
    assert put(bob, game, "maybe").status_code == 404
    assert put(alice, game, "waiting for bob").status_code == 200
    assert (
        'id="game-notes"'
        not in client_for(bob).get(reverse("games:detail", args=[game.id])).content.decode()
    )


@pytest.mark.parametrize(
    "text",
    ["x" * (GameNote.MAX_LENGTH + 1), "bell\x07", "escape\x1b[31m", "nul\x00"],
    ids=["too-long", "bell", "escape", "nul"],
)
def test_bad_text_is_refused_and_the_notes_stay(alice, game, text):
    put(alice, game, "kept")

    refused = put(alice, game, text)

    assert refused.status_code == 400
    assert refused.json()["detail"]
    assert GameNote.objects.get(game=game, user=alice).text == "kept"


def test_the_longest_notes_are_kept(alice, game):
    assert put(alice, game, "y" * GameNote.MAX_LENGTH).status_code == 200


def test_the_board_page_shows_the_form_to_players_only_and_escapes_the_text(alice, carol, game):
    put(alice, game, HOSTILE)
    page = client_for(alice).get(reverse("games:detail", args=[game.id])).content.decode()

    assert 'id="game-notes"' in page
    assert '<label for="game-notes-text">' in page
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page
    assert '<script>alert("x")' not in page
    assert 'aria-live="polite"' in page
    assert reverse("games:notes", args=[game.id]) in page
    assert (
        'id="game-notes"'
        not in client_for(carol).get(reverse("games:detail", args=[game.id])).content.decode()
    )


def test_the_form_saves_without_javascript(alice, carol, game):
    client = client_for(alice)

    response = client.post(
        reverse("games:notes", args=[game.id]), {"text": "line one\r\nline two"}, follow=True
    )

    assert response.status_code == 200
    assert "Your notes are saved." in response.content.decode()
    assert GameNote.objects.get(game=game, user=alice).text == "line one\nline two"

    refused = client.post(reverse("games:notes", args=[game.id]), {"text": "bell\x07"}, follow=True)
    assert "Your notes were not saved" in refused.content.decode()
    assert GameNote.objects.get(game=game, user=alice).text == "line one\nline two"

    assert (
        client_for(carol).post(reverse("games:notes", args=[game.id]), {"text": "x"}).status_code
        == 404
    )


def test_saving_is_limited_per_player(alice, bob, game, monkeypatch):
    monkeypatch.setattr(GameNotesThrottle, "rate", "2/hour", raising=False)
    assert put(alice, game, "one").status_code == 200
    form = client_for(alice).post(
        reverse("games:notes", args=[game.id]), {"text": "two"}, follow=True
    )
    assert "Your notes are saved." in form.content.decode()

    refused = put(alice, game, "three")

    assert refused.status_code == 429
    assert "as often as you may" in refused.json()["detail"]
    assert int(refused["Retry-After"]) > 0
    assert api_client_for(alice).get(notes_url(game)).status_code == 200  # reading is not counted
    assert put(bob, game, "bob's").status_code == 200  # counted per player
    assert GameNote.objects.get(game=game, user=alice).text == "two"


def test_notes_are_in_no_export_and_in_the_owners_data_download(alice, bob, game):
    put(alice, game, "my secret plan")
    finished = finish(game)
    export = api_client_for(bob).get(reverse("games_api:export", args=[finished.id]))
    assert export.status_code == 200
    assert "my secret plan" not in export.content.decode()
    assert "my secret plan" not in json.dumps(
        client_for(bob).get(reverse("accounts:data_download")).json()
    )

    mine = client_for(alice).get(reverse("accounts:data_download")).json()

    assert [n["text"] for n in mine["game_notes"]] == ["my secret plan"]
    assert mine["game_notes"][0]["game_id"] == str(game.id)


def test_a_finished_games_player_keeps_their_notes(alice, game):
    put(alice, game, "what I learnt")
    finish(game)
    assert api_client_for(alice).get(notes_url(game)).json()["text"] == "what I learnt"
    assert put(alice, game, "and more").status_code == 200


def test_notes_go_with_the_account(alice, bob, game):
    put(alice, game, "alice's")
    put(bob, game, "bob's")

    account_delete(user=alice, password=PASSWORD)

    assert list(GameNote.objects.values_list("text", flat=True)) == ["bob's"]


def test_the_notes_are_in_the_api_schema():
    schema = Client().get("/api/schema/").content.decode()
    assert "/api/games/{game_id}/notes/" in schema


def test_the_board_pages_queries_do_not_grow_with_notes(alice, make_user, start_game, game):
    """One query for a seated player's notes (none for a watcher); the page's whole budget is
    `tests/games/web/test_query_budgets.py`'s."""
    from tests.games.web.test_query_budgets import count_queries

    client = client_for(alice)
    url = reverse("games:detail", args=[game.id])
    without = count_queries(client, url)
    put(alice, game, "a plan")
    for i in range(5):
        other = start_game(alice, make_user(f"rival{i}"))
        put(alice, other, f"plan {i}")

    assert count_queries(client, url) == without
    assert "a plan" in client.get(url).content.decode()


@pytest.mark.parametrize("text", [0, True, None, ["a"], {"a": 1}], ids=repr)
def test_notes_that_are_not_text_are_refused(alice, game, text):
    put(alice, game, "kept")

    refused = put(alice, game, text)

    assert refused.status_code == 400
    assert GameNote.objects.get(game=game, user=alice).text == "kept"
