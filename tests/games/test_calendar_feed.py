"""The calendar feed (issue #35): a secret, revocable address per player, read by calendar apps
without signing in, listing the deadline of each game waiting for that player's move (with the
opponents and the game's link), and nothing else. The feed is parsed as a calendar app would,
with `icalendar`."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from icalendar import Calendar

import azul
from accounts.models import Profile
from azul_site.account_deletion import account_delete
from core.ops.error_reports import scrub_path
from games import services
from games.models import CalendarFeed, Game, Seat
from games.services.players import calendar_feed_renew
from tests.support.factories import PASSWORD, client_for, start_game
from tests.support.play import finish, waiting_for

pytestmark = pytest.mark.django_db

HANGUL = re.compile("[가-힣]")
SETTINGS_PAGE = "/settings/"
NEW = "/settings/calendar/new/"
OFF = "/settings/calendar/off/"


def feed_path(token: str) -> str:
    return reverse("games:calendar_feed", args=[token])


def read(token: str, **headers):
    """The feed as a calendar app reads it: no session, no cookie."""
    return Client().get(feed_path(token), headers=headers)


def events(response) -> list:
    assert response.status_code == 200, response.content
    return Calendar.from_ical(response.content).walk("VEVENT")


def game_link(game: Game) -> str:
    return settings.SITE_URL + reverse("games:detail", args=[game.id])


def fresh(game: Game) -> Game:
    return Game.objects.get(pk=game.pk)


def second(moment: dt.datetime) -> dt.datetime:
    """A time as iCalendar writes it: to the second."""
    return moment.replace(microsecond=0)


@pytest.fixture
def alice_feed(alice) -> str:
    return calendar_feed_renew(user=alice).token


def test_the_feed_lists_each_game_waiting_for_my_move_with_opponents_link_and_deadline(
    alice, bob, carol, dave, alice_feed
):
    mine = fresh(waiting_for(start_game(alice, bob), alice))
    threesome = fresh(waiting_for(start_game(carol, alice, dave), alice))
    theirs = waiting_for(start_game(alice, carol), carol)  # not my move
    over = finish(start_game(alice, dave))

    response = read(alice_feed)

    assert response["Content-Type"] == "text/calendar; charset=utf-8"
    assert response["Cache-Control"] == "private, max-age=300"
    assert response["X-Robots-Tag"] == "noindex"
    assert response["ETag"].startswith('"')
    calendar = Calendar.from_ical(response.content)
    assert str(calendar["X-PUBLISHED-TTL"]) == "PT1H"
    assert calendar["REFRESH-INTERVAL"].to_ical() == b"PT1H"
    by_link = {str(event["URL"]): event for event in events(response)}
    assert set(by_link) == {game_link(mine), game_link(threesome)}
    assert game_link(theirs) not in response.content.decode()
    assert game_link(over) not in response.content.decode()

    event = by_link[game_link(mine)]
    assert str(event["SUMMARY"]) == "Your move in Azul against bob"
    assert game_link(mine) in str(event["DESCRIPTION"])
    end = event.decoded("DTEND")
    assert end == second(mine.turn_deadline) and end.utcoffset() == dt.timedelta(0)
    assert event.decoded("DTSTART") == end - dt.timedelta(minutes=30)
    assert "Z" in event["DTEND"].to_ical().decode()  # written in UTC
    assert str(event["UID"]).startswith(f"azul-{mine.id}-{mine.ply}@")
    assert event.decoded("DTSTAMP") == event.decoded("LAST-MODIFIED") == second(mine.updated_at)
    (alarm,) = event.walk("VALARM")
    assert alarm.decoded("TRIGGER") == -dt.timedelta(hours=1)
    assert alarm["TRIGGER"].params["RELATED"] == "END"

    names = str(by_link[game_link(threesome)]["SUMMARY"])
    assert names == "Your move in Azul against carol, dave"


def test_nothing_hidden_is_in_it(alice, bob, alice_feed):
    game = fresh(waiting_for(start_game(alice, bob), alice))
    body = read(alice_feed).content.decode()
    assert game.deal_seed and game.deal_seed not in body
    for seat in game.seats.all():
        assert not seat.deal_contribution or seat.deal_contribution not in body
    assert "bag" not in body.lower() and "factories" not in body.lower()


def test_the_uid_stays_while_the_turn_does_and_changes_with_the_next_turn(alice, bob, alice_feed):
    game = waiting_for(start_game(alice, bob), alice)
    (before,) = events(read(alice_feed))
    (again,) = events(read(alice_feed))
    assert before["UID"] == again["UID"]

    services.move_submit(**_first_move(fresh(game), alice))
    game = waiting_for(fresh(game), alice)
    (after,) = events(read(alice_feed))
    assert after["UID"] != before["UID"]
    assert str(after["UID"]).startswith(f"azul-{game.id}-")


def _first_move(game: Game, person) -> dict:
    state = game.engine_state()
    position = next(s.position for s in game.seats.all() if s.user_id == person.pk)
    return {
        "game_id": game.id,
        "user": person,
        "move": str(azul.legal_moves(state, position)[0]),
        "expected_ply": game.ply,
    }


def test_a_vacation_moves_the_deadline_as_the_site_shows_it(alice, bob, alice_feed):
    game = waiting_for(start_game(alice, bob), alice)
    (before,) = events(read(alice_feed))

    services.vacation_start(user=alice, days=3)

    (during,) = events(read(alice_feed))
    assert during["UID"] == before["UID"]
    assert during.decoded("DTEND") == second(fresh(game).turn_deadline)
    assert during.decoded("DTEND") - before.decoded("DTEND") == dt.timedelta(days=3)


def test_an_unchanged_feed_is_answered_304(alice, bob, alice_feed):
    game = waiting_for(start_game(alice, bob), alice)
    first = read(alice_feed)
    etag = first["ETag"]

    same = read(alice_feed, if_none_match=etag)
    weak = read(alice_feed, if_none_match=f'"other", W/{etag}')

    assert same.status_code == weak.status_code == 304
    assert same.content == b"" and same["ETag"] == etag
    assert read(alice_feed, if_none_match='"other"').status_code == 200

    services.move_submit(**_first_move(fresh(game), alice))  # no longer my move
    changed = read(alice_feed, if_none_match=etag)
    assert changed.status_code == 200 and changed["ETag"] != etag
    assert events(changed) == []


def test_a_new_address_and_turning_off_stop_the_old_one_at_once(alice, bob, client_for):
    waiting_for(start_game(alice, bob), alice)
    client = client_for(alice)

    made = client.post(NEW)

    assert made.status_code == 302 and made["Location"].endswith("/settings/")
    first = CalendarFeed.objects.get(user=alice).token
    assert len(events(read(first))) == 1

    client.post(NEW)
    second = CalendarFeed.objects.get(user=alice).token
    assert second != first
    assert read(first).status_code == 404
    assert len(events(read(second))) == 1

    client.post(OFF)
    assert read(second).status_code == 404
    assert not CalendarFeed.objects.filter(user=alice).exists()
    assert client.get(SETTINGS_PAGE).status_code == 200


def test_each_players_feed_shows_their_own_turns_only(alice, bob, carol, alice_feed):
    waits_for_alice = waiting_for(start_game(alice, bob), alice)
    waits_for_bob = waiting_for(start_game(bob, carol), bob)
    bob_feed = calendar_feed_renew(user=bob).token

    alices = {str(e["URL"]) for e in events(read(alice_feed))}
    bobs = {str(e["URL"]) for e in events(read(bob_feed))}

    assert alices == {game_link(waits_for_alice)}
    assert bobs == {game_link(waits_for_bob)}
    (event,) = events(read(bob_feed))
    assert str(event["SUMMARY"]) == "Your move in Azul against carol"


@pytest.mark.parametrize(
    "token",
    ["x", "a" * 43, "a" * 200, "not a token", "%2e%2e", "\u00e9" * 43],
    ids=["short", "unknown", "long", "spaces", "escaped", "unicode"],
)
def test_a_garbage_token_is_404(alice, alice_feed, token):
    response = read(token)
    assert response.status_code == 404
    assert response["X-Robots-Tag"] == "noindex"
    assert alice_feed not in response.content.decode()


def test_a_nul_in_the_address_is_refused_before_any_lookup(alice, alice_feed):
    response = Client().get(f"/calendar/{alice_feed[:20]}%00{alice_feed[20:]}.ics")
    assert response.status_code == 400
    assert read(alice_feed).status_code == 200


def test_a_deleted_account_has_no_feed(alice, bob, alice_feed):
    waiting_for(start_game(alice, bob), alice)
    account_delete(user=alice, password=PASSWORD)
    assert read(alice_feed).status_code == 404
    assert not CalendarFeed.objects.filter(user=alice).exists()


def test_the_feed_is_in_the_players_language(alice, bob, alice_feed):
    waiting_for(start_game(alice, bob), alice)
    Profile.objects.filter(user=alice).update(language="ko", time_zone="Asia/Seoul")

    # A calendar app's own language does not matter: the player's does.
    response = read(alice_feed, accept_language="en-US,en;q=0.9")

    (event,) = events(response)
    assert HANGUL.search(str(event["SUMMARY"])) and "bob" in str(event["SUMMARY"])
    assert HANGUL.search(str(event["DESCRIPTION"]))
    assert "Asia/Seoul" in str(event["DESCRIPTION"])
    assert event.decoded("DTEND").utcoffset() == dt.timedelta(0)


def test_the_settings_page_offers_the_feed_without_script(alice, client_for):
    client = client_for(alice)
    page = client.get(SETTINGS_PAGE).content.decode()
    assert 'id="calendar-feed"' in page
    assert "Subscribe in your calendar" in page
    assert f'action="{NEW}"' in page and "csrfmiddlewaretoken" in page
    assert 'id="calendar-feed-url"' not in page  # no address yet

    client.post(NEW)
    token = CalendarFeed.objects.get(user=alice).token
    page = client.get(SETTINGS_PAGE).content.decode()

    url = settings.SITE_URL + feed_path(token)
    assert f'value="{url}"' in page and "readonly" in page
    assert '<label for="calendar-feed-url">' in page
    assert 'href="webcal://' + url.split("://", 1)[1] + '"' in page
    assert f'action="{OFF}"' in page and "Make a new address" in page
    assert "<script>" not in page  # the copy button's script is a static file


def test_the_settings_page_in_korean(alice, client_for):
    client = client_for(alice)
    client.cookies["django_language"] = "ko"
    client.post(NEW)
    page = client.get(SETTINGS_PAGE).content.decode()
    panel = page[page.index('id="calendar-feed"') :]
    panel = panel[: panel.index("</section>")]
    assert "Subscribe in your calendar" not in panel
    assert "Make a new address" not in panel
    assert len(HANGUL.findall(panel)) > 20


def test_a_hostile_account_can_neither_read_nor_revoke_anothers_feed(
    alice, bob, mallory, alice_feed
):
    waiting_for(start_game(alice, bob), alice)
    hostile = client_for(mallory)

    hostile.post(NEW)
    hostile.post(OFF)
    hostile.post(NEW)
    page = hostile.get(SETTINGS_PAGE).content.decode()
    mallorys = CalendarFeed.objects.get(user=mallory).token

    assert alice_feed not in page
    assert CalendarFeed.objects.get(user=alice).token == alice_feed
    assert events(read(mallorys)) == []
    # Her own feed read past its limit does not touch alice's.
    for _ in range(61):
        read(mallorys)
    assert read(mallorys).status_code == 429
    assert len(events(read(alice_feed))) == 1
    # Signed in or not, her session does not open alice's feed by another address.
    assert hostile.get(feed_path(mallorys)).status_code == 429
    assert hostile.get(feed_path("b" * 43)).status_code == 404
    # Nor can anyone but a signed-in player change a feed, nor with a GET.
    assert Client().post(NEW).status_code == 302
    assert client_for(alice).get(OFF).status_code == 405
    assert CalendarFeed.objects.get(user=alice).token == alice_feed


def test_reading_a_feed_too_often_is_429_with_retry_after(alice, bob, alice_feed):
    other = calendar_feed_renew(user=bob).token
    for _ in range(60):
        assert read(alice_feed).status_code == 200

    refused = read(alice_feed)

    assert refused.status_code == 429
    assert 0 < int(refused["Retry-After"]) <= 3600
    assert read(other).status_code == 200


def test_changing_the_address_too_often_is_refused_with_a_message(alice, alice_feed):
    client = client_for(alice)
    for _ in range(20):
        client.post(NEW)
    kept = CalendarFeed.objects.get(user=alice).token

    refused = client.post(NEW, follow=True)

    assert "as often as you may" in refused.content.decode()
    assert CalendarFeed.objects.get(user=alice).token == kept
    assert client.post(OFF) and CalendarFeed.objects.filter(user=alice).exists()


def test_the_feeds_queries_do_not_grow_with_its_games(alice, players, alice_feed):
    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert read(alice_feed).status_code == 200
        return len(captured)

    others = players(4)
    waiting_for(start_game(alice, others[0]), alice)
    one = queries()
    for other in others[1:]:
        waiting_for(start_game(alice, other), alice)
    waiting_for(start_game(alice, others[1], others[2]), alice)

    assert len(events(read(alice_feed))) == 5
    assert queries() == one <= 4


def test_no_token_reaches_the_logs(alice, alice_feed, caplog):
    calendar_feed_renew(user=alice)  # alice_feed is replaced: its address answers 404
    new = CalendarFeed.objects.get(user=alice).token
    with caplog.at_level("DEBUG"):
        assert read(alice_feed).status_code == 404
        for _ in range(61):
            read(new)
        assert read(new).status_code == 429
        # The log is caught here: another page's 404 is in it, with its path.
        assert Client().get("/no-such-page-marker/").status_code == 404
    assert "/no-such-page-marker/" in "\n".join(r.getMessage() for r in caplog.records)
    logged = "\n".join(f"{r.getMessage()} {vars(r)}" for r in caplog.records)
    assert alice_feed not in logged and new not in logged


def test_an_error_report_leaves_the_token_out(alice_feed):
    scrubbed = scrub_path(settings.SITE_URL + feed_path(alice_feed) + "?x=1")
    assert alice_feed not in scrubbed and scrubbed.endswith("/calendar/[Filtered]")


def test_a_seat_the_computer_plays_for_me_is_not_my_move(alice, bob, alice_feed):
    game = waiting_for(start_game(alice, bob), alice)
    assert len(events(read(alice_feed))) == 1

    # As after a third timeout or a resignation: the computer moves for the seat.
    Seat.objects.filter(game=game, user=alice).update(autoplay=True)

    assert events(read(alice_feed)) == []
