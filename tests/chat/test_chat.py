"""A game's chat through the API and the board page: alice and bob play, carol watches."""

from __future__ import annotations

import datetime
import re

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.models import Block
from chat import services
from chat.models import Message, Report
from games.models import Game

pytestmark = pytest.mark.django_db


def chat_url(game) -> str:
    return reverse("chat_api:chat", args=[game.id])


@pytest.fixture
def game(start_game, alice, bob):
    return start_game(alice, bob)


def post(client, game, text):
    return client.post(chat_url(game), {"text": text}, format="json")


def test_two_players_chat(game, alice, bob, api_client_for):
    a, b = api_client_for(alice), api_client_for(bob)
    response = post(a, game, "  good luck!  ")
    assert response.status_code == 201, response.json()
    assert response.json()["text"] == "good luck!"
    assert response.json()["ply"] == game.ply
    assert post(b, game, "you too\nhave fun").status_code == 201

    page = b.get(chat_url(game)).json()
    assert [m["text"] for m in page["messages"]] == ["good luck!", "you too\nhave fun"]
    assert [m["is_viewer"] for m in page["messages"]] == [False, True]
    assert page["can_write"] is True
    newest = page["messages"][-1]["id"]
    assert a.get(chat_url(game), {"after": newest}).json()["messages"] == []
    assert len(a.get(chat_url(game), {"before": newest}).json()["messages"]) == 1


def test_newest_messages_capped_with_a_cursor(game, alice, api_client_for):
    Message.objects.bulk_create(
        Message(game=game, author=alice, text=f"m{i}", ply=0) for i in range(60)
    )
    client = api_client_for(alice)
    page = client.get(chat_url(game)).json()
    assert len(page["messages"]) == 50 and page["has_more"]
    assert page["messages"][-1]["text"] == "m59"
    older = client.get(chat_url(game), {"before": page["messages"][0]["id"]}).json()
    assert [m["text"] for m in older["messages"]] == [f"m{i}" for i in range(10)]
    assert not older["has_more"]


def test_a_spectator_is_refused_unless_every_player_allowed(
    game, alice, bob, carol, api_client_for
):
    post(api_client_for(alice), game, "hello")
    watcher = api_client_for(carol)
    response = watcher.get(chat_url(game))
    assert response.status_code == 403
    assert "hello" not in response.content.decode()
    assert post(watcher, game, "hi").status_code == 403

    Game.objects.filter(pk=game.pk).update(
        status=Game.Status.FINISHED,
        finished_at=datetime.datetime.now(tz=datetime.UTC),
    )
    services.privacy_set(user=alice, spectators_may_read=True)
    assert watcher.get(chat_url(game)).status_code == 403  # bob has not allowed it
    services.privacy_set(user=bob, spectators_may_read=True)
    page = watcher.get(chat_url(game)).json()
    assert [m["text"] for m in page["messages"]] == ["hello"]
    assert page["can_write"] is False
    assert post(watcher, game, "hi").status_code == 403


def test_no_such_game_is_a_404(alice, api_client_for):
    client = api_client_for(alice)
    assert client.get("/api/games/not-a-game/chat/").status_code == 404
    assert client.get("/api/games/00000000-0000-0000-0000-000000000000/chat/").status_code == 404


def test_writing_closes_some_days_after_the_game_finished(game, alice, api_client_for):
    client = api_client_for(alice)
    now = datetime.datetime.now(tz=datetime.UTC)
    Game.objects.filter(pk=game.pk).update(
        status=Game.Status.FINISHED, finished_at=now - datetime.timedelta(days=6)
    )
    assert post(client, game, "well played").status_code == 201
    Game.objects.filter(pk=game.pk).update(finished_at=now - datetime.timedelta(days=8))
    response = post(client, game, "late")
    assert response.status_code == 403
    assert response.json()["code"] == "chat_closed"


@pytest.mark.parametrize(
    "text, reason",
    [
        ("", "Write a message first."),
        ("   \n ", "Write a message first."),
        ("x" * 10_000, "at most 500"),
        ("x" * 501, "at most 500"),
        ("nul\x00here", "NUL"),
        ("bell\x07", "control characters"),
        ("evil \u202eoh", "direction"),
        ("isolate \u2066x\u2069", "direction"),
    ],
)
def test_hostile_messages_are_refused(game, alice, api_client_for, text, reason):
    response = post(api_client_for(alice), game, text)
    assert response.status_code == 400, response.content
    assert reason in response.json()["detail"]
    assert not Message.objects.exists()


def test_exactly_500_characters_pass(game, alice, api_client_for):
    assert post(api_client_for(alice), game, "é" * 500).status_code == 201


def test_html_is_stored_as_text_and_shown_inertly(game, alice, bob, api_client_for, client_for):
    hostile = '<script>alert(1)</script><a href="https://evil.example">x</a>'
    assert post(api_client_for(alice), game, hostile).status_code == 201
    assert api_client_for(bob).get(chat_url(game)).json()["messages"][0]["text"] == hostile
    page = client_for(bob).get(reverse("games:detail", args=[game.id])).content.decode()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<script>alert(1)" not in page
    assert 'href="https://evil.example"' not in page


def test_rate_limit_per_minute_with_retry_after(game, alice, api_client_for):
    client = api_client_for(alice)
    for i in range(10):
        assert post(client, game, f"m{i}").status_code == 201
    response = post(client, game, "one too many")
    assert response.status_code == 429
    assert 1 <= int(response["Retry-After"]) <= 60
    assert "10 messages a minute" in response.json()["detail"]
    assert Message.objects.count() == 10


def test_rate_limit_per_day(game, alice, api_client_for):
    long_ago = datetime.datetime.now(tz=datetime.UTC) - datetime.timedelta(hours=2)
    Message.objects.bulk_create(
        Message(game=game, author=alice, text="x", ply=0) for _ in range(200)
    )
    Message.objects.update(created_at=long_ago)
    response = post(api_client_for(alice), game, "more")
    assert response.status_code == 429
    assert int(response["Retry-After"]) > 3600
    assert "200 messages a day" in response.json()["detail"]


def test_mute_a_game_and_a_player(game, alice, bob, api_client_for):
    post(api_client_for(bob), game, "from bob")
    a = api_client_for(alice)
    response = a.post(reverse("chat_api:mute", args=[game.id]), {"muted": True}, format="json")
    assert response.status_code == 204
    page = a.get(chat_url(game)).json()
    assert page["muted"] and page["messages"] == []
    a.post(reverse("chat_api:mute", args=[game.id]), {"muted": False}, format="json")
    assert len(a.get(chat_url(game)).json()["messages"]) == 1

    services.mute_player(user=alice, muted_id=bob.pk)
    assert a.get(chat_url(game)).json()["messages"] == []
    # Only for alice.
    assert len(api_client_for(bob).get(chat_url(game)).json()["messages"]) == 1


def test_block_hides_messages_both_ways(game, alice, bob, api_client_for):
    post(api_client_for(alice), game, "from alice")
    post(api_client_for(bob), game, "from bob")
    Block.objects.create(blocker=alice, blocked=bob)
    assert [m["text"] for m in api_client_for(alice).get(chat_url(game)).json()["messages"]] == [
        "from alice"
    ]
    assert [m["text"] for m in api_client_for(bob).get(chat_url(game)).json()["messages"]] == [
        "from bob"
    ]


def test_report_once_then_hide_shows_a_placeholder(game, alice, bob, api_client_for, client_for):
    message_id = post(api_client_for(bob), game, "rude words").json()["id"]
    a = api_client_for(alice)
    url = reverse("chat_api:report", args=[message_id])
    assert a.post(url, {"reason": "rude"}, format="json").status_code == 201
    assert a.post(url, {"reason": "rude"}, format="json").status_code == 409
    # Not one's own, nor a message one cannot read.
    assert api_client_for(bob).post(url, {"reason": "x"}, format="json").status_code == 400
    report = Report.objects.get()
    assert report.reason == "rude"

    services.message_hide(message=report.message, moderator=alice)
    line = a.get(chat_url(game)).json()["messages"][0]
    assert line["hidden"] and line["text"] == "" and line["author"] == ""
    page = client_for(alice).get(reverse("games:detail", args=[game.id])).content.decode()
    assert "message hidden by a moderator" in page
    assert "rude words" not in page


def test_reports_are_limited_per_day(game, alice, bob, api_client_for):
    ids = [
        Message.objects.create(game=game, author=bob, text=f"m{i}", ply=0).pk
        for i in range(services.REPORTS_PER_DAY + 1)
    ]
    client = api_client_for(alice)
    for message_id in ids[:-1]:
        url = reverse("chat_api:report", args=[message_id])
        assert client.post(url, {"reason": "spam"}, format="json").status_code == 201
    url = reverse("chat_api:report", args=[ids[-1]])
    response = client.post(url, {"reason": "spam"}, format="json")
    assert response.status_code == 429 and "Retry-After" in response


def test_a_suspended_player_cannot_write(game, alice, bob, api_client_for):
    services.chat_suspend(user=alice, days=3, moderator=bob)
    response = post(api_client_for(alice), game, "hello")
    assert response.status_code == 403
    assert response.json()["code"] == "chat_suspended"
    assert post(api_client_for(bob), game, "hello").status_code == 201


def test_the_chat_is_in_the_schema(alice, api_client_for):
    schema = api_client_for(alice).get("/api/schema/", {"format": "json"}).json()
    operations = schema["paths"]["/api/games/{game_id}/chat/"]
    assert {"get", "post"} <= set(operations)
    assert "429" in operations["post"]["responses"]


# -- the board page -------------------------------------------------------------------------------


def test_board_page_panel_and_no_javascript_form(game, alice, bob, carol, client_for):
    client = client_for(alice)
    page = client.get(reverse("games:detail", args=[game.id])).content.decode()
    assert 'id="chat"' in page and 'for="chat-text"' in page and 'aria-live="polite"' in page
    response = client.post(reverse("chat:post", args=[game.id]), {"text": "hi bob"})
    assert response.status_code == 302
    page = client_for(bob).get(reverse("games:detail", args=[game.id])).content.decode()
    assert "hi bob" in page
    # A spectator of a game in progress sees no chat.
    page = client_for(carol).get(reverse("games:detail", args=[game.id])).content.decode()
    assert 'id="chat"' not in page and "hi bob" not in page
    assert (
        client_for(carol).post(reverse("chat:post", args=[game.id]), {"text": "x"}).status_code
        == 403
    )


def test_no_javascript_form_says_what_was_refused(game, alice, client_for):
    client = client_for(alice)
    response = client.post(reverse("chat:post", args=[game.id]), {"text": "a\x00b"}, follow=True)
    assert "NUL" in response.content.decode()
    assert not Message.objects.exists()


def _chat_answers(response) -> str:
    """The answers the board's chat panel shows (`chat.panels.BOARD_PLACE`), focused as the
    page loads; nothing said at the top of the page."""
    page = response.content.decode()
    assert '<ul class="messages">' not in page
    panel = page[page.index('id="chat"') :]
    answers = re.findall(r'<p class="message form-answer [^"]*"[^>]*autofocus>(.*?)</p>', panel)
    return " ".join(answers)


def test_no_javascript_answers_are_beside_the_chat_forms(game, alice, bob, client_for):
    """Without the page's script, what the chat's forms did is said in the chat panel, which
    the page goes to (no fragment: it would keep the focus from the answer)."""
    message = Message.objects.create(game=game, author=bob, text="rude", ply=game.ply)
    client = client_for(alice)
    board = reverse("games:detail", args=[game.id])

    reported = client.post(
        reverse("chat:report", args=[game.id]), {"message": message.id, "reason": "rude"}
    )
    assert reported.url == board
    assert "a moderator will look" in _chat_answers(client.get(board))
    again = client.post(
        reverse("chat:report", args=[game.id]),
        {"message": message.id, "reason": "rude"},
        follow=True,
    )
    assert "reported this message already" in _chat_answers(again)
    muted = client.post(reverse("chat:mute", args=[game.id]), {"muted": "1"}, follow=True)
    assert "chat is muted" in _chat_answers(muted)
    # Said once: the next look at the board says nothing.
    assert _chat_answers(client.get(board)) == ""


def _board_queries(client, game) -> int:
    cache.clear()
    with CaptureQueriesContext(connection) as queries:
        response = client.get(reverse("games:detail", args=[game.id]))
    assert response.status_code == 200
    return len(queries)


def test_board_page_queries_do_not_grow_with_the_messages(game, alice, bob, client_for):
    client = client_for(alice)
    Message.objects.create(game=game, author=bob, text="one", ply=0)
    one = _board_queries(client, game)
    Message.objects.bulk_create(
        Message(game=game, author=bob if i % 2 else alice, text=f"m{i}", ply=0) for i in range(49)
    )
    assert _board_queries(client, game) == one


def test_the_kept_panel_follows_new_messages_mutes_and_blocks(
    game, alice, bob, client_for, api_client_for
):
    """The panel is kept as rendered until its chat changes: a page shows a new message, a
    mute and a block at once."""
    url = reverse("games:detail", args=[game.id])
    viewer = client_for(bob)
    assert "No messages yet." in viewer.get(url).content.decode()
    post(api_client_for(alice), game, "first words")
    assert "first words" in viewer.get(url).content.decode()
    viewer.post(reverse("chat:mute_player", args=[game.id]), {"player": alice.pk, "muted": "1"})
    assert "first words" not in viewer.get(url).content.decode()
    viewer.post(reverse("chat:mute_player", args=[game.id]), {"player": alice.pk, "muted": "0"})
    assert "first words" in viewer.get(url).content.decode()
    block = Block.objects.create(blocker=alice, blocked=bob)
    assert "first words" not in viewer.get(url).content.decode()
    block.delete()
    assert "first words" in viewer.get(url).content.decode()


def test_a_kept_panel_carries_each_requests_csrf_token(game, alice, client_for):
    url = reverse("games:detail", args=[game.id])
    for _ in range(2):
        page = client_for(alice).get(url).content.decode()
        assert "\x00" not in page
        assert 'name="csrfmiddlewaretoken" value="' in page


# -- data -----------------------------------------------------------------------------------------


def test_the_data_download_holds_the_players_messages(game, alice, bob, api_client_for):
    from azul_site.player_data import player_data

    post(api_client_for(alice), game, "mine")
    post(api_client_for(bob), game, "not mine")
    messages = player_data(user=alice)["chat_messages"]
    assert [(m["game"], m["text"]) for m in messages] == [(str(game.id), "mine")]


def test_a_deleted_players_messages_show_deleted_player(game, alice, bob, api_client_for):
    from azul_site.account_deletion import account_delete
    from tests.support.factories import PASSWORD

    post(api_client_for(alice), game, "bye")
    account_delete(user=alice, password=PASSWORD)
    line = api_client_for(bob).get(chat_url(game)).json()["messages"][0]
    assert line["author"] == "deleted player" and line["author_username"] is None


# -- the replay -----------------------------------------------------------------------------------


def test_the_replay_shows_each_message_from_its_ply(
    finished_colored, alice, bob, carol, client_for, django_assert_max_num_queries
):
    game = finished_colored
    Message.objects.create(game=game, author=alice, text="<i>early</i>", ply=2)
    Message.objects.create(game=game, author=bob, text="late", ply=game.ply)
    client = client_for(alice)
    url = reverse("games:replay", args=[game.id])
    at_1 = client.get(url, {"ply": 1}).content.decode()
    assert "early" not in at_1
    at_2 = client.get(url, {"ply": 2}).content.decode()
    assert "&lt;i&gt;early&lt;/i&gt;" in at_2 and "late" not in at_2
    points = client.get(reverse("games:replay_points", args=[game.id])).json()["points"]
    assert sum("&lt;i&gt;early" in p for p in points) == game.ply - 1
    # A spectator sees none of it: the players did not allow it.
    assert "early" not in client_for(carol).get(url, {"ply": 2}).content.decode()


def test_the_replay_points_read_the_chat_once(finished_colored, alice, client_for):
    game = finished_colored
    client = client_for(alice)
    url = reverse("games:replay_points", args=[game.id])
    cache.clear()
    with CaptureQueriesContext(connection) as without:
        client.get(url)
    Message.objects.bulk_create(
        Message(game=game, author=alice, text=f"m{i}", ply=i) for i in range(30)
    )
    cache.clear()
    with CaptureQueriesContext(connection) as with_messages:
        client.get(url)
    assert len(with_messages) == len(without)


# -- the emails -----------------------------------------------------------------------------------


def test_the_your_turn_email_carries_the_messages_since_the_last_move(
    start_game, alice, bob, api_client_for, django_capture_on_commit_callbacks, site_mail
):
    from django.core import mail

    from tests.support.mail import forget_notifications, send_now
    from tests.support.play import to_move_user

    game = start_game(alice, bob)
    forget_notifications()
    waiting = to_move_user(game)  # whose turn it is: the one a "your turn" email goes to
    mover = alice if waiting == bob else bob
    hostile = "<script>x</script> & \u00e9"
    assert post(api_client_for(mover), game, hostile).status_code == 201
    assert post(api_client_for(waiting), game, "my own words").status_code == 201
    # A message alone sends no email.
    assert mail.outbox == []

    message = send_now(waiting, "your_turn", game, django_capture_on_commit_callbacks)
    text, html = message.body, message.alternatives[0].content
    assert "Messages since your last move:" in text
    assert hostile in text
    assert "&lt;script&gt;x&lt;/script&gt; &amp; \u00e9" in html and "<script>" not in html
    assert "my own words" not in text


def test_the_email_leaves_out_messages_written_before_the_players_last_move(
    start_game, alice, bob, api_client_for, django_capture_on_commit_callbacks, site_mail
):
    from chat.selectors import messages_since_last_move
    from tests.support.play import play_forward, to_move_user

    game = start_game(alice, bob)
    player = to_move_user(game)
    other = alice if player == bob else bob
    post(api_client_for(other), game, "before your move")
    game = play_forward(game, until=lambda g: to_move_user(g) == player and g.ply > 1)
    post(api_client_for(other), game, "after your move")
    assert [line.text for line in messages_since_last_move(game=game, user_id=player.pk)] == [
        "after your move"
    ]


def test_the_export_holds_the_chat_only_if_every_player_allowed_it(
    finished_colored, alice, bob, api_client_for
):
    game = finished_colored
    Message.objects.create(game=game, author=alice, text="gg <b>", ply=game.ply)
    hidden = Message.objects.create(game=game, author=bob, text="rude", ply=game.ply)
    services.message_hide(message=hidden, moderator=alice)
    url = reverse("games_api:export", args=[game.id])
    client = api_client_for(alice)
    assert client.get(url).json()["chat"] is None
    services.privacy_set(user=alice, spectators_may_read=True)
    assert client.get(url).json()["chat"] is None
    services.privacy_set(user=bob, spectators_may_read=True)
    exported = client.get(url).json()
    assert [(m["author"], m["text"]) for m in exported["chat"]] == [("alice", "gg <b>")]
    # The file still imports as a study (the chat is left out of it).
    for number, player in enumerate(exported["players"], start=1):
        player["name"] = f"Player {number}"
    response = client.post(reverse("games_api:import"), exported, format="json")
    assert response.status_code == 201, response.json()


def test_in_korean(game, alice, client_for, api_client_for):
    page = client_for(alice).get(reverse("games:detail", args=[game.id]), HTTP_ACCEPT_LANGUAGE="ko")
    html = page.content.decode()
    assert "채팅" in html and "다른 플레이어에게 보낼 메시지" in html
    response = api_client_for(alice).post(
        chat_url(game), {"text": "a\x00"}, format="json", HTTP_ACCEPT_LANGUAGE="ko"
    )
    assert "NUL 문자" in response.json()["detail"]


# -- the moderators' queue ------------------------------------------------------------------------


def test_the_admin_queue_shows_the_context_and_hides_and_suspends(
    game, alice, bob, root, client_for, api_client_for
):
    post(api_client_for(alice), game, "before")
    bad = Message.objects.create(game=game, author=bob, text="<b>rude</b>", ply=game.ply)
    post(api_client_for(alice), game, "after")
    services.message_report(user=alice, message_id=bad.pk, reason="rude")
    report = Report.objects.get()
    admin = client_for(root)
    queue = admin.get(reverse("admin:chat_report_changelist")).content.decode()
    assert "&lt;b&gt;rude&lt;/b&gt;" in queue and "<b>rude</b>" not in queue
    detail = admin.get(reverse("admin:chat_report_change", args=[report.pk])).content.decode()
    assert "before" in detail and "after" in detail and "&lt;b&gt;rude" in detail

    changelist = reverse("admin:chat_report_changelist")
    admin.post(changelist, {"action": "hide_messages", "_selected_action": [report.pk]})
    bad.refresh_from_db()
    assert bad.is_hidden and bad.hidden_by == root
    assert Report.objects.get().status == Report.Status.RESOLVED

    form = admin.post(changelist, {"action": "suspend_authors", "_selected_action": [report.pk]})
    assert form.status_code == 200 and 'name="days"' in form.content.decode()
    admin.post(
        changelist,
        {"action": "suspend_authors", "_selected_action": [report.pk], "days": "3", "reason": "x"},
    )
    response = post(api_client_for(bob), game, "again")
    assert response.status_code == 403 and response.json()["code"] == "chat_suspended"


def test_ids_too_large_for_a_row_are_a_4xx(game, alice, api_client_for, client_for):
    client = api_client_for(alice)
    huge = "9" * 30
    assert client.get(chat_url(game), {"before": huge}).status_code == 400
    assert client.get(chat_url(game), {"after": huge}).status_code == 400
    report = client.post(f"/api/chat/messages/{huge}/report/", {"reason": "x"}, format="json")
    assert report.status_code == 404
    page = client_for(alice).post(
        reverse("chat:mute_player", args=[game.id]), {"player": huge, "muted": "1"}
    )
    assert page.status_code == 404


def test_mute_a_player_through_the_api(game, alice, bob, api_client_for):
    post(api_client_for(bob), game, "from bob")
    client = api_client_for(alice)
    url = reverse("chat_api:mute_player", args=["bob"])
    assert client.post(url, {"muted": True}, format="json").status_code == 204
    assert client.get(chat_url(game)).json()["messages"] == []
    assert client.post(url, {"muted": False}, format="json").status_code == 204
    assert len(client.get(chat_url(game)).json()["messages"]) == 1
    nobody = reverse("chat_api:mute_player", args=["nobody"])
    assert client.post(nobody, {"muted": True}, format="json").status_code == 404
    myself = reverse("chat_api:mute_player", args=["alice"])
    assert client.post(myself, {"muted": True}, format="json").status_code == 400


def test_no_chat_in_a_game_against_the_computer_alone(alice, bob, client_for):
    """Nobody to write to: the board offers no chat. A game with a seat for another person
    (taken, invited or open) has one."""
    from games import services as game_services

    def chat_offered(*seats) -> bool:
        game = game_services.game_create(
            creator=alice,
            num_players=len(seats) + 1,
            variant="colored",
            days_per_move=3,
            seats=list(seats),
        )
        return (
            'id="chat"'
            in client_for(alice).get(reverse("games:detail", args=[game.id])).content.decode()
        )

    assert not chat_offered(game_services.SeatSpec("computer", level="greedy"))
    assert chat_offered(
        game_services.SeatSpec("computer", level="greedy"),
        game_services.SeatSpec("invite", username=bob.username),
    )
    assert chat_offered(game_services.SeatSpec("open"))
