"""Helpers for the tests of a game's life around the moves: invitations declined and seats given
again, resigning, rematches. Emails go to Django's locmem outbox; tasks run in-process once the
write commits (`django_capture_on_commit_callbacks(execute=True)`, here `committed()`)."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from django.core import mail

import azul
from games import selectors, services
from games.models import Game

SITE_URL = "https://azul.example"


@pytest.fixture(autouse=True)
def _mail_settings(settings):
    settings.SITE_URL = SITE_URL
    settings.SITE_NAME = "Azul"
    settings.NOTIFY_GRACE_SECONDS = 120
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"


@pytest.fixture
def committed(django_capture_on_commit_callbacks) -> Callable[..., Any]:
    """`committed(service, **kwargs)`: call a service and run what it asked to happen once it
    commits (emails, the computer's moves), as a real request would."""

    def call(service: Callable[..., Any], **kwargs: Any) -> Any:
        with django_capture_on_commit_callbacks(execute=True):
            return service(**kwargs)

    return call


def emails(kind: str, to: Any = None) -> list[Any]:
    """The notification emails of `kind` in the outbox (to this user, if given)."""
    return [
        m
        for m in mail.outbox
        if m.extra_headers.get("X-Azul-Notification") == kind and (to is None or m.to == [to.email])
    ]


def invite_game(creator: Any, *others: Any, **settings: Any) -> Game:
    """A game waiting for `others` to answer their invitations."""
    return services.game_create(
        creator=creator,
        num_players=1 + len(others),
        variant=settings.get("variant", "colored"),
        days_per_move=settings.get("days_per_move", 3),
        seats=[services.SeatSpec(kind="invite", username=o.username) for o in others],
    )


def play_until_over(game: Game, users: dict[int, Any], committed: Callable, limit: int = 400):
    """Play legal moves for the people to move (the computer plays its seats by itself) until
    the game is over; returns it."""
    rng = random.Random(5)
    for _ in range(limit):
        game = selectors.game_get(game_id=game.id)
        if game.status != Game.Status.ACTIVE:
            return game
        state = azul.State.from_dict(game.state)
        position = next(p for p in state.to_move if p in users)
        move = str(azul.random_move(state, rng, position))
        committed(
            services.move_submit,
            game_id=game.id,
            user=users[position],
            move=move,
            expected_ply=game.ply,
        )
    raise AssertionError("the game did not end")


def positions(game: Game) -> dict[Any, int]:
    """user id -> position, for the game's players."""
    return {s.user_id: s.position for s in game.seats.all() if s.user_id is not None}


@pytest.fixture
def clients_by_name(alice, bob, carol, api_client_for) -> dict[str, Any]:
    """API clients of alice, bob and carol, by username."""
    return {u.username: api_client_for(u) for u in (alice, bob, carol)}
