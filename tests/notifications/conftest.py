"""Fixtures and helpers for the notification tests: games in a known position, the mails sent
by kind, a failing mail backend and a real SMTP server on the loopback."""

from __future__ import annotations

import random
import smtplib
from typing import Any

import pytest
from django.core import mail
from django.core.mail.backends.base import BaseEmailBackend

import azul
from games import selectors, services
from games.models import Game
from tests.smtp import Recorder
from tests.smtp import smtp_server as serve_smtp

SITE_URL = "https://azul.example"


@pytest.fixture(autouse=True)
def _notification_settings(settings):
    settings.SITE_URL = SITE_URL
    settings.SITE_NAME = "Azul"
    settings.NOTIFY_GRACE_SECONDS = 120
    settings.NOTIFY_MAX_ATTEMPTS = 3
    settings.NOTIFY_DIGEST_HOUR = 8
    settings.NOTIFY_UNSUBSCRIBE_MAX_AGE_DAYS = 90
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"


@pytest.fixture
def start_game(start_game):
    """Started games (see tests/conftest.py) with an empty outbox: what starting them sent
    (invitations, "game started", the first "your turn") is not what these tests are about."""
    from notifications.models import Notification

    def start(*args: Any, **kwargs: Any) -> Game:
        game = start_game(*args, **kwargs)
        Notification.objects.all().delete()
        mail.outbox.clear()
        return game

    return start


def only_these(notify_more: Any) -> Any:
    """Run `notify_more()` (moves played to set a position up, say), then drop what it sent."""
    from notifications.models import Notification

    result = notify_more()
    Notification.objects.all().delete()
    mail.outbox.clear()
    return result


def sent(kind: str | None = None) -> list[Any]:
    """The notification emails in the locmem outbox, of `kind` if given."""
    return [
        m
        for m in mail.outbox
        if "X-Azul-Notification" in m.extra_headers
        and (kind is None or m.extra_headers["X-Azul-Notification"] == kind)
    ]


def game_url(game: Game) -> str:
    return f"{SITE_URL}/games/{game.id}/"


def position_of(game: Game, user: Any) -> int:
    return next(s.position for s in game.seats.all() if s.user_id == user.pk)


def to_move(game: Game) -> list[int]:
    return azul.State.from_dict(game.state).to_move


def play_one(game: Game, rng: random.Random | None = None) -> Game:
    """Play a legal move for the (first) player to move; returns the game after it."""
    game = selectors.game_get(game_id=game.id)
    state = azul.State.from_dict(game.state)
    player = state.to_move[0]
    user = next(s.user for s in game.seats.all() if s.position == player)
    moves = azul.legal_moves(state, player)
    move = rng.choice(moves) if rng is not None else moves[0]
    services.move_submit(game_id=game.id, user=user, move=str(move), expected_ply=game.ply)
    return selectors.game_get(game_id=game.id)


def waiting_for(game: Game, user: Any) -> Game:
    """`game`, played on until it is `user`'s turn (and nobody else's), the emails of those
    moves dropped."""

    def play_on() -> Game:
        played = selectors.game_get(game_id=game.id)
        for _ in range(10):
            if to_move(played) == [position_of(played, user)]:
                return played
            played = play_one(played)
        raise AssertionError(f"never {user}'s turn")

    return only_these(play_on)


class FailingBackend(BaseEmailBackend):
    """An SMTP server that drops the connection on every message."""

    attempts = 0

    def send_messages(self, email_messages):
        FailingBackend.attempts += 1
        raise smtplib.SMTPServerDisconnected("Connection unexpectedly closed")


@pytest.fixture
def smtp_server(settings):
    """A real SMTP server on a free loopback port, with Django's SMTP backend pointed at it."""
    recorder = Recorder()
    with serve_smtp(recorder, settings):
        yield recorder
