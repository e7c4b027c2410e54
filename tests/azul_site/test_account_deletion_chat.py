"""A player deleting their account chooses what becomes of their chat messages (#59): they stay
in their games, shown as by "deleted player", or they go from every game's chat. The page says
both, and does what was chosen."""

from __future__ import annotations

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse

from chat.models import Message, Report
from tests.chat.test_chat import chat_url, post
from tests.support.factories import PASSWORD, client_for

pytestmark = pytest.mark.django_db

DELETE_URL = reverse("accounts:delete_account")


@pytest.fixture
def chats(start_game, alice, bob, carol, api_client_for):
    """Two games alice chatted in, with bob and carol answering; carol reported one of alice's
    messages."""
    first, second = start_game(alice, bob), start_game(alice, carol)
    post(api_client_for(alice), first, "hello from alice")
    post(api_client_for(bob), first, "hello from bob")
    post(api_client_for(alice), second, "alice again")
    post(api_client_for(carol), second, "carol here")
    report_url = reverse("chat_api:report", args=[Message.objects.get(text="alice again").pk])
    answer = api_client_for(carol).post(report_url, {"reason": "rude"}, format="json")
    assert answer.status_code == 201, answer.json()
    return first, second


def delete(person, **form: str):
    client = client_for(person)
    return client.post(DELETE_URL, {"password": PASSWORD, **form})


def chat_lines(client, game) -> list[tuple[str, str]]:
    return [(m["author"], m["text"]) for m in client.get(chat_url(game)).json()["messages"]]


def test_the_page_offers_the_choice_and_says_what_each_does(alice):
    text = client_for(alice).get(DELETE_URL).content.decode()

    assert "Your chat messages are removed from every game's chat if you choose so" in text
    assert 'name="chat_messages" value="keep" id="id_chat_messages_keep" checked' in text
    assert 'name="chat_messages" value="remove"' in text


def test_messages_chosen_to_go_leave_every_games_chat(chats, alice, bob, carol, api_client_for):
    first, second = chats
    bob_page = client_for(bob)
    board = reverse("games:detail", args=[first.id])
    assert "hello from alice" in bob_page.get(board).content.decode()  # the panel, cached

    response = delete(alice, chat_messages="remove")

    assert response.status_code == 302
    [goodbye] = [str(m) for m in get_messages(response.wsgi_request)]
    assert goodbye == "Your account and your chat messages were deleted. Goodbye."
    assert chat_lines(api_client_for(bob), first) == [("bob", "hello from bob")]
    assert chat_lines(api_client_for(carol), second) == [("carol", "carol here")]
    assert not Message.objects.filter(author=alice).exists()
    assert not Report.objects.exists()  # carol's report went with the message
    page = bob_page.get(board).content.decode()
    assert "hello from alice" not in page and "hello from bob" in page


def test_messages_kept_stay_as_a_deleted_players(chats, alice, bob, api_client_for):
    first, _ = chats

    response = delete(alice, chat_messages="keep")

    assert response.status_code == 302
    [goodbye] = [str(m) for m in get_messages(response.wsgi_request)]
    assert goodbye == "Your account was deleted. Goodbye."
    assert chat_lines(api_client_for(bob), first) == [
        ("deleted player", "hello from alice"),
        ("bob", "hello from bob"),
    ]
    assert Message.objects.filter(author=alice).count() == 2


def test_an_unknown_choice_deletes_nothing(chats, alice):
    response = delete(alice, chat_messages="shred")

    assert response.status_code == 400
    assert "Choose whether your chat messages stay or go" in response.content.decode()
    alice.refresh_from_db()
    assert alice.deleted_at is None
    assert Message.objects.filter(author=alice).count() == 2
