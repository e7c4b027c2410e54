"""Time zones: the browser's on sign-up, a picker of real zones grouped by region, and every time
on the site followed by its zone, in the player's zone (visitors: UTC)."""

import datetime as dt
import re
import zoneinfo

import pytest
from django.template import Context, Template
from django.urls import reverse
from django.utils import timezone

from accounts.templatetags.local_time import local_time
from games.models import Game, Seat
from tests.support.factories import PASSWORD
from tests.support.play import play_forward

pytestmark = pytest.mark.django_db


def sign_up(client, **extra):
    return client.post(
        reverse("account_signup"),
        {
            "username": "dora",
            "email": "dora@example.com",
            "password1": PASSWORD,
            "password2": PASSWORD,
            **extra,
        },
    )


def set_zone(user, name: str) -> None:
    user.profile.time_zone = name
    user.profile.save()


# -- sign-up --------------------------------------------------------------------------------


def test_the_sign_up_form_has_a_hidden_time_zone_field_that_its_script_fills(client):
    html = client.get(reverse("account_signup")).content.decode()

    assert re.search(r'<input type="hidden" name="time_zone"[^>]*>', html)
    # The script is a file of its own (the site's Content-Security-Policy runs no inline one).
    script = re.search(r'<script src="([^"]*accounts/time_zone\.js)"', html)
    assert script
    body = b"".join(client.get(script.group(1)).streaming_content).decode()
    assert "Intl.DateTimeFormat().resolvedOptions().timeZone" in body


def test_the_browser_time_zone_is_saved_on_sign_up(client, mailoutbox, django_user_model):
    response = sign_up(client, time_zone="Asia/Seoul")

    assert response.status_code == 302
    assert django_user_model.objects.get(username="dora").profile.time_zone == "Asia/Seoul"


def test_without_a_time_zone_from_the_browser_the_player_starts_on_utc(
    client, mailoutbox, django_user_model
):
    sign_up(client, time_zone="")

    assert django_user_model.objects.get(username="dora").profile.time_zone == "UTC"


def test_an_alias_the_browser_may_report_is_accepted(client, mailoutbox, django_user_model):
    # Some browsers still say "Asia/Calcutta" for Asia/Kolkata: the time zone database knows it.
    sign_up(client, time_zone="Asia/Calcutta")

    assert django_user_model.objects.get(username="dora").profile.time_zone == "Asia/Calcutta"


def test_an_unknown_time_zone_is_refused_under_a_picker_to_choose_from(
    client, mailoutbox, django_user_model
):
    response = sign_up(client, time_zone="Mars/Olympus_Mons")

    assert response.status_code == 200
    assert response.context["form"].errors["time_zone"] == [
        "“Mars/Olympus_Mons” is not a known time zone. Choose one from the list, such as "
        "Europe/Paris or America/New_York."
    ]
    assert not django_user_model.objects.filter(username="dora").exists()
    assert mailoutbox == []
    html = response.content.decode()
    field = re.search(r'id="field-time_zone">(.*?)</ul>', html, re.S).group(1)
    assert '<select name="time_zone"' in field
    assert '<optgroup label="Asia">' in field
    assert field.index("<select") < field.index("is not a known time zone")


# -- the settings page's picker -------------------------------------------------------------


def picker(html: str) -> str:
    return re.search(r'<select name="time_zone".*?</select>', html, re.S).group(0)


def test_the_settings_picker_groups_real_zones_by_region(alice, client_for):
    html = picker(client_for(alice).get(reverse("accounts:settings")).content.decode())

    groups = re.findall(r'<optgroup label="([^"]+)">', html)
    assert groups[:4] == ["Africa", "America", "Antarctica", "Arctic"]
    assert {"Asia", "Europe", "Australia", "Pacific", "Indian", "Atlantic"} <= set(groups)
    # UTC first, on its own; then each region's places by name.
    assert re.search(r'<select name="time_zone"[^>]*>\s*<option value="UTC" selected>', html)
    europe = re.search(r'<optgroup label="Europe">(.*?)</optgroup>', html, re.S).group(1)
    assert '<option value="Europe/Paris">Paris</option>' in europe
    america = re.search(r'<optgroup label="America">(.*?)</optgroup>', html, re.S).group(1)
    assert '<option value="America/Argentina/Buenos_Aires">Argentina / Buenos Aires' in america
    # The aliases kept for old software are not offered.
    for alias in ("US/Eastern", "Etc/GMT+5", "EST5EDT", "Cuba"):
        assert f'value="{alias}"' not in html
    assert html.count("<option") > 300


@pytest.mark.parametrize(
    ("current", "old"),
    [
        ("Asia/Kolkata", "Asia/Calcutta"),
        ("Europe/Kyiv", "Europe/Kiev"),
        ("Asia/Ho_Chi_Minh", "Asia/Saigon"),
        ("America/Argentina/Buenos_Aires", "America/Buenos_Aires"),
    ],
)
def test_the_picker_offers_each_zone_once_by_its_current_name(alice, client_for, current, old):
    html = picker(client_for(alice).get(reverse("accounts:settings")).content.decode())

    assert f'value="{current}"' in html
    assert f'value="{old}"' not in html  # an old name the database keeps as an alias
    assert html.count(">Kolkata<") + html.count(">Calcutta<") == 1


def test_a_player_on_an_old_region_name_still_sees_it_chosen(alice, client_for):
    set_zone(alice, "Asia/Calcutta")

    html = picker(client_for(alice).get(reverse("accounts:settings")).content.decode())

    assert '<option value="Asia/Calcutta" selected>Asia/Calcutta</option>' in html
    assert '<option value="Asia/Kolkata">Kolkata</option>' in html


def test_a_player_on_an_alias_still_sees_it_chosen(alice, client_for):
    set_zone(alice, "US/Eastern")

    html = picker(client_for(alice).get(reverse("accounts:settings")).content.decode())

    assert '<optgroup label="Other">' in html
    assert '<option value="US/Eastern" selected>US/Eastern</option>' in html


def test_choosing_a_zone_on_the_settings_page_saves_it(alice, client_for):
    client = client_for(alice)
    form = client.get(reverse("accounts:settings")).context["form"]
    data = {name: form[name].value() for name in form.fields}
    data = {k: ("on" if v is True else v) for k, v in data.items() if v not in (False, None)}

    response = client.post(reverse("accounts:settings"), {**data, "time_zone": "Asia/Seoul"})

    assert response.status_code == 302
    alice.profile.refresh_from_db()
    assert alice.profile.time_zone == "Asia/Seoul"


# -- times shown with their zone ------------------------------------------------------------


MOMENT = dt.datetime(2026, 11, 23, 5, 5, tzinfo=dt.UTC)


@pytest.mark.parametrize(
    ("zone", "shown"),
    [
        ("Asia/Seoul", "23 Nov 2026, 14:05 KST"),
        ("Europe/Paris", "23 Nov 2026, 06:05 CET"),
        ("UTC", "23 Nov 2026, 05:05 UTC"),
        # The database has no letters for these: the offset, not a bare "+04".
        ("Asia/Dubai", "23 Nov 2026, 09:05 UTC+4"),
        ("America/Sao_Paulo", "23 Nov 2026, 02:05 UTC-3"),
        ("Asia/Kathmandu", "23 Nov 2026, 10:50 UTC+5:45"),
    ],
)
def test_local_time_says_the_zone(zone, shown):
    with timezone.override(zoneinfo.ZoneInfo(zone)):
        assert local_time(MOMENT) == shown


def test_local_time_puts_the_zone_where_a_format_has_t():
    with timezone.override(zoneinfo.ZoneInfo("Asia/Seoul")):
        assert local_time(MOMENT, "D j M, H:i T") == "Mon 23 Nov, 14:05 KST"
        assert local_time(MOMENT, "H:i") == "14:05 KST"
        rendered = Template("{% load local_time %}{{ m|local_time }}").render(
            Context({"m": MOMENT})
        )
    assert rendered == "23 Nov 2026, 14:05 KST"
    assert local_time(None) == ""


def test_the_board_shows_the_deadline_in_the_players_zone(alice, bob, start_game, client_for):
    set_zone(alice, "Asia/Seoul")
    set_zone(bob, "Asia/Dubai")
    game = start_game(alice, bob)
    deadline = game.turn_deadline

    for user, zone, label in ((alice, "Asia/Seoul", "KST"), (bob, "Asia/Dubai", "UTC+4")):
        html = client_for(user).get(reverse("games:detail", args=[game.id])).content.decode()
        local = deadline.astimezone(zoneinfo.ZoneInfo(zone))
        assert f"{local:%H:%M} {label}" in html, (user, label)


def test_my_games_and_home_show_deadlines_with_their_zone(alice, bob, start_game, client_for):
    set_zone(alice, "Asia/Seoul")
    game = start_game(alice, bob)
    if game.engine_state().to_move != [0]:
        game = play_forward(game, moves=1)  # alice's turn, so that her pages show her deadline
    assert game.engine_state().to_move == [0]
    local = game.turn_deadline.astimezone(zoneinfo.ZoneInfo("Asia/Seoul"))
    client = client_for(alice)

    for url in (reverse("games:my_games"), reverse("home")):
        html = client.get(url).content.decode()
        assert f"{local:%H:%M} KST" in html, url


def finished_game(alice, bob) -> Game:
    ended = dt.datetime(2026, 3, 1, 12, 0, tzinfo=dt.UTC)
    game = Game.objects.create(
        variant="colored",
        num_players=2,
        status=Game.Status.FINISHED,
        created_by=alice,
        started_at=ended - dt.timedelta(days=10),
        finished_at=ended,
        ply=100,
    )
    Seat.objects.bulk_create(
        [
            Seat(game=game, position=0, kind=Seat.Kind.HUMAN, user=alice, final_score=50, place=1),
            Seat(game=game, position=1, kind=Seat.Kind.HUMAN, user=bob, final_score=40, place=2),
        ]
    )
    return game


def test_the_history_and_player_pages_show_when_games_ended_with_the_zone(
    alice, bob, client, client_for
):
    finished_game(alice, bob)
    set_zone(alice, "Asia/Seoul")
    pages = (reverse("games:history"), reverse("accounts:player", args=["bob"]))

    for url in pages:
        # A visitor reads UTC, and is told so; the player reads their own time.
        assert "1 Mar 2026 12:00 UTC" in client.get(url).content.decode(), url
        assert "1 Mar 2026 21:00 KST" in client_for(alice).get(url).content.decode(), url


def test_the_token_date_on_the_settings_page_is_in_the_players_zone(alice, client_for):
    set_zone(alice, "Asia/Seoul")
    client = client_for(alice)
    client.post(reverse("accounts:token_create"), {"name": "bot", "expires_in": "30"})

    html = client.get(reverse("accounts:settings")).content.decode()

    # Created and expiring, both in Seoul's time.
    assert len(re.findall(r'<time datetime="[^"]+">\d+ \w+ \d{4}, \d\d:\d\d KST</time>', html)) == 2
