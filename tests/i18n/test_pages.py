"""The site in Korean: the browser's language picks it, the switcher changes it (and remembers
it on a signed-in player's profile), and pages, errors and emails follow."""

from __future__ import annotations

import re

import pytest
from django.core import mail
from django.test import Client
from django.urls import reverse

import azul
from accounts.models import Profile
from tests.support.factories import PASSWORD, invite_game
from tests.support.play import play_forward
from tests.support.urls import games_url

pytestmark = pytest.mark.django_db

HANGUL = re.compile("[가-힣]")
KO = {"HTTP_ACCEPT_LANGUAGE": "ko-KR,ko;q=0.9,en;q=0.5"}
EN = {"HTTP_ACCEPT_LANGUAGE": "en-US,en;q=0.9"}


@pytest.fixture
def pages(alice, bob, start_game) -> dict[str, str]:
    """Each page a visitor can open, by name (a board of a game in progress among them)."""
    game = start_game(alice, bob)
    return {
        "home": reverse("home"),
        "lobby": reverse("games:lobby"),
        "history": reverse("games:history"),
        "leaderboard": reverse("ratings:leaderboard"),
        "board": reverse("games:detail", args=[game.id]),
        "rules": reverse("rules"),
        "sign-in": reverse("account_login"),
        "sign-up": reverse("account_signup"),
    }


# What each page says in Korean, where its words are in the catalog today (a page not listed is
# still checked for Korean text and lang="ko").
HEADINGS = {
    "home": "내 속도로 즐기는 아줄",
    "history": "끝난 게임",
    "leaderboard": "순위표",
    "rules": "아줄 하는 법",
}
PAGE_NAMES = ["home", "lobby", "history", "leaderboard", "board", "rules", "sign-in", "sign-up"]
SIGNED_IN_ONLY = {"board"}
SIGNED_OUT_ONLY = {"sign-in", "sign-up"}


def clients(name: str, alice, client_for) -> list[Client]:
    """A visitor's and a signed-in player's client, for the pages each of them can open."""
    visitor = [] if name in SIGNED_IN_ONLY else [Client()]
    player = [] if name in SIGNED_OUT_ONLY else [client_for(alice)]
    return visitor + player


def text(response) -> str:
    assert response.status_code == 200, response.status_code
    return response.content.decode()


@pytest.mark.parametrize("name", PAGE_NAMES)
def test_a_korean_browser_gets_the_page_in_korean(pages, alice, client_for, name):
    for client in clients(name, alice, client_for):
        page = text(client.get(pages[name], **KO))
        assert '<html lang="ko">' in page
        assert HANGUL.search(page.replace("한국어", "")), f"{name}: no Korean on the page"
        if name in HEADINGS:
            assert HEADINGS[name] in page
        # The switcher offers the other language, in that language.
        assert 'name="language" value="en"' in page and ">English</button>" in page


@pytest.mark.parametrize("name", PAGE_NAMES)
def test_an_english_browser_gets_english_with_no_korean_but_the_switcher(
    pages, alice, client_for, name
):
    for client in clients(name, alice, client_for):
        page = text(client.get(pages[name], **EN))
        assert '<html lang="en">' in page
        assert 'name="language" value="ko"' in page and 'lang="ko">한국어</button>' in page
        assert not HANGUL.search(page.replace("한국어", ""))


def test_without_accept_language_the_site_is_in_english():
    page = text(Client().get(reverse("home")))
    assert '<html lang="en">' in page and "Azul, at your own pace" in page


def test_the_switcher_sets_a_cookie_that_wins_over_the_browser():
    client = Client()
    assert "내 속도로 즐기는 아줄" in text(client.get(reverse("home"), **KO))
    response = client.post(reverse("set_language"), {"language": "en", "next": "/history/"}, **KO)
    assert response.status_code == 302 and response["Location"] == "/history/"
    assert response.cookies["django_language"].value == "en"
    page = text(client.get(reverse("home"), **KO))
    assert '<html lang="en">' in page and "Azul, at your own pace" in page

    client.post(reverse("set_language"), {"language": "ko", "next": "/"})
    assert "내 속도로 즐기는 아줄" in text(client.get(reverse("home"), **EN))


def test_the_switcher_refuses_an_unknown_language_and_a_foreign_next():
    client = Client()
    response = client.post(
        reverse("set_language"), {"language": "xx", "next": "https://evil.example/"}
    )
    assert response.status_code == 302 and response["Location"] == "/"
    assert "django_language" not in response.cookies
    assert client.get(reverse("set_language")).status_code == 405


def test_a_signed_in_players_choice_is_kept_for_their_emails(alice, client_for):
    client = client_for(alice)
    assert Profile.objects.get(user=alice).language == "en"
    client.post(reverse("set_language"), {"language": "ko", "next": "/"})
    assert Profile.objects.get(user=alice).language == "ko"
    client.post(reverse("set_language"), {"language": "en", "next": "/"})
    assert Profile.objects.get(user=alice).language == "en"


def test_signing_up_in_korean_makes_korean_the_email_language(client, mailoutbox):
    response = client.post(
        reverse("account_signup"),
        {
            "username": "minji",
            "email": "minji@example.com",
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
        **KO,
    )
    assert response.status_code == 302
    assert Profile.objects.get(user__username="minji").language == "ko"
    english = client.post(
        reverse("account_signup"),
        {
            "username": "dora",
            "email": "dora@example.com",
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
        **EN,
    )
    assert english.status_code == 302
    assert Profile.objects.get(user__username="dora").language == "en"


def test_emails_go_in_the_recipients_language(
    alice, bob, carol, settings, django_capture_on_commit_callbacks
):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    Profile.objects.filter(user=bob).update(language="ko")
    mail.outbox.clear()
    # Invitations still waiting for an answer: one answered before its email goes sends none.
    with django_capture_on_commit_callbacks(execute=True):
        invite_game(alice, bob, carol)
    invitations = {
        m.to[0]: m
        for m in mail.outbox
        if m.extra_headers.get("X-Azul-Notification") == "invitation"
    }
    korean, english = invitations["bob@example.com"], invitations["carol@example.com"]
    assert korean.subject == "[Azul] alice 님이 게임에 초대했습니다"
    assert "bob 님, 안녕하세요." in korean.body and "한 수에 3일" in korean.body
    html = korean.alternatives[0].content
    assert '<html lang="ko">' in html and "수락 또는 거절" in html
    assert english.subject == "[Azul] alice invites you to a game"
    assert not HANGUL.search(english.body + english.alternatives[0].content)


def test_an_illegal_move_is_explained_in_the_players_language(
    alice, bob, start_game, api_client_for
):
    game = start_game(alice, bob)
    state = azul.State.from_dict(game.state)
    mover = {0: alice, 1: bob}[state.to_move[0]]
    client = api_client_for(mover)
    body = {"move": "F1 blue 9", "expected_ply": game.ply}
    korean = client.post(games_url(game.id, "moves"), body, format="json", **KO).json()
    assert "패턴 라인 번호는 1~5 사이여야 합니다" in korean["detail"], korean
    english = client.post(games_url(game.id, "moves"), body, format="json", **EN).json()
    assert "the pattern line must be from 1 to 5, not 9" in english["detail"], english


def test_page_scripts_have_a_catalog_in_the_pages_language():
    """`/jsi18n/` gives the scripts `gettext()` and friends, with the Korean strings marked in
    static/ (none yet: the catalog is then Django's functions alone)."""
    response = Client().get(reverse("javascript-catalog"), **KO)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/javascript")
    script = response.content.decode()
    assert "django.gettext = function" in script
    assert "django.pluralidx = function" in script


# -- every kind of page, in Korean -----------------------------------------------------------------

# Sentences of our own templates and code, in English: none of them is on a Korean page.
ENGLISH = [
    "Azul, at your own pace",
    "Azul by correspondence: one move a day is plenty.",
    ">Log out<",
    ">Log in<",
    ">Settings<",
    ">Leaderboard<",
    "Games waiting for players",
    "Save settings",
    "Profile and notifications",
    "When it is my turn",
    "Shown to other players instead of your username.",
    "Starting player marker",
    "Pattern lines",
    "Floor line",
    ": place here",
    "Game over",
    "Replay so far",
    "How to play Azul",
    "Page not found",
    "Number of players",
]


def assert_korean(page: str, name: str) -> None:
    assert '<html lang="ko">' in page, name
    assert HANGUL.search(page.replace("한국어", "")), f"{name}: no Korean"
    english = [sentence for sentence in ENGLISH if sentence in page]
    assert not english, f"{name}: English on the Korean page: {english}"


@pytest.fixture
def finished_game(alice, bob, start_game):
    """A game that ended: bob resigned, and the computer played his seat out at once."""
    from games import services

    game = start_game(alice, bob)
    return services.game_resign(game_id=game.id, user=bob)


def test_every_kind_of_page_is_in_korean(alice, bob, start_game, finished_game, client_for):
    game = start_game(alice, bob)
    player = client_for(alice)
    visitor = Client()
    signed_in = {
        "home (signed in)": reverse("home"),
        "lobby": reverse("games:lobby"),
        "my games": reverse("games:my_games"),
        "new game": reverse("games:new"),
        "board in play": reverse("games:detail", args=[game.id]),
        "finished board": reverse("games:detail", args=[finished_game.id]),
        "replay": reverse("games:replay", args=[finished_game.id]),
        "history": reverse("games:history"),
        "leaderboard": reverse("ratings:leaderboard"),
        "player page": reverse("accounts:player", args=[bob.username]),
        "settings": reverse("accounts:settings"),
        "rules": reverse("rules"),
    }
    signed_out = {
        "home (signed out)": reverse("home"),
        "sign-in": reverse("account_login"),
        "sign-up": reverse("account_signup"),
    }
    for name, url in signed_in.items():
        assert_korean(text(player.get(url, **KO)), name)
    for name, url in signed_out.items():
        assert_korean(text(visitor.get(url, **KO)), name)

    finished = text(player.get(signed_in["finished board"], **KO))
    assert "게임 종료" in finished or "게임이 끝났습니다" in finished
    assert 'id="analysis"' in finished

    board = text(player.get(signed_in["board in play"], **KO))
    assert "선 플레이어 마커" in board
    # The board's script gets its strings from the catalog, loaded before it.
    catalog, script = reverse("javascript-catalog"), "games/board.js"
    assert catalog in board and board.index(catalog) < board.index(script)

    missing = visitor.get("/no-such-page/", **KO)
    assert missing.status_code == 404
    assert_korean(missing.content.decode(), "404 page")


def test_a_form_error_is_in_korean(alice, client_for):
    response = client_for(alice).post(
        reverse("games:new"),
        {"num_players": "2", "variant": "colored", "days_per_move": "3", "seat2_kind": "invite"},
        **KO,
    )
    page = text(response)
    assert_korean(page, "new game with an error")
    assert 'class="errorlist' in page


def test_a_refused_vacation_and_the_settings_form_in_korean(alice, client_for):
    client = client_for(alice)
    page = text(client.post(reverse("games:vacation"), {"days": "99"}, **KO))
    assert_korean(page, "settings with an error")
    assert "일일 요약" in page and "바로" in page


def test_the_your_turn_email_is_in_korean(alice, bob, start_game):
    from notifications.email import content as emails
    from notifications.models import Notification

    game = start_game(alice, bob)
    # The player who completed the table hears it is their turn; the other hears that the game
    # started, and of their turn only after a move: make one if the first turn is theirs.
    if not Notification.objects.filter(kind=Notification.Kind.YOUR_TURN, game=game).exists():
        play_forward(game, moves=1)
    notification = Notification.objects.select_related("recipient__profile").get(
        kind=Notification.Kind.YOUR_TURN, game=game
    )
    Profile.objects.filter(user=notification.recipient).update(language="ko")
    notification.recipient.profile.refresh_from_db()
    message = emails.build(notification, to="player@example.com").message
    html = message.alternatives[0].content
    assert HANGUL.search(message.subject), message.subject
    assert HANGUL.search(message.body) and '<html lang="ko">' in html
    for sentence in ("It is your turn", "your move", "Open the game"):
        assert sentence not in message.body + html, sentence


def test_the_board_scripts_strings_are_in_the_korean_catalog():
    script = Client().get(reverse("javascript-catalog"), **KO).content.decode()
    assert "\\uc911\\uc559" in script or "중앙" in script  # "the centre"
    stale = "The game moved on while you were choosing"
    assert stale in script  # the key, with its Korean beside it
    english = Client().get(reverse("javascript-catalog"), **EN).content.decode()
    assert stale not in english
