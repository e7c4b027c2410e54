"""The one set of factories: people with verified addresses, their logged-in clients, and games
made the ways players make them (through the services or the API) or built finished outright.

Personas: alice and bob play, carol watches (fixtures in tests/conftest.py call these). Every
person has the password `PASSWORD`.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from games import services
from games.models import Game, Seat
from tests.support.urls import games_url

PASSWORD = "tile-drafter-4827"
SESSION_BACKEND = "allauth.account.auth_backends.AuthenticationBackend"
FINISHED_BASE = timezone.make_aware(dt.datetime(2026, 3, 1, 12, 0), dt.UTC)
"""When `finished_game` ends its games (less `days_ago`)."""


def user(username: str, email: str | None = None, verified: bool = True, password: str = PASSWORD):
    """A user whose email (default `<username>@example.com`) is recorded as the primary address,
    verified unless `verified=False` (as allauth would after sign-up)."""
    from allauth.account.models import EmailAddress

    email = email or f"{username}@example.com"
    made = get_user_model().objects.create_user(username=username, email=email, password=password)
    EmailAddress.objects.create(user=made, email=email, primary=True, verified=verified)
    return made


def client_for(person) -> Client:
    """A new test client with `person` logged in (a forced session login: django-axes rejects
    the test client's `login()`, which authenticates without a request)."""
    client = Client()
    client.force_login(person, backend=SESSION_BACKEND)
    return client


def api_client_for(person) -> APIClient:
    """A DRF APIClient acting as `person` (authentication forced)."""
    client = APIClient()
    client.force_authenticate(user=person)
    return client


def invite_game(creator, *others, variant: str = "colored", days_per_move: int = 3) -> Game:
    """A game waiting for `others` to answer their invitations."""
    return services.game_create(
        creator=creator,
        num_players=1 + len(others),
        variant=variant,
        days_per_move=days_per_move,
        seats=[services.SeatSpec(kind="invite", username=o.username) for o in others],
    )


def start_game(creator, *others, variant: str = "colored", days_per_move: int = 3) -> Game:
    """A started game of `creator` and `others`, every invitation accepted."""
    game = invite_game(creator, *others, variant=variant, days_per_move=days_per_move)
    for other in others:
        # The last acceptance starts the game, and answers with it and its seats.
        game = services.invitation_respond(game_id=game.id, user=other, accept=True)
    return game


def against_computer(
    person, computers: int = 1, level: str = "greedy", variant: str = "colored"
) -> Game:
    """A started game of `person` against `computers` computer seats (it starts at once)."""
    return services.game_create(
        creator=person,
        num_players=1 + computers,
        variant=variant,
        days_per_move=3,
        seats=[services.SeatSpec(kind="computer", level=level)] * computers,
    )


def create_game_by_api(creator, seats: list[dict], players: int | None = None, **extra) -> dict:
    """A game `creator` creates through the API (`seats` as the API takes them): its view."""
    body = {"players": players or len(seats) + 1, "seats": seats, **extra}
    response = api_client_for(creator).post(games_url(), body, format="json")
    assert response.status_code == 201, response.json()
    return response.json()


def active_game_by_api(creator, invited) -> dict:
    """A two-player colored game through the API: `creator` invited `invited`, who accepted."""
    game = create_game_by_api(creator, [{"kind": "invite", "username": invited.username}])
    response = api_client_for(invited).post(
        games_url(game["id"], "invitation"), {"accept": True}, format="json"
    )
    assert response.status_code == 200, response.json()
    assert response.json()["status"] == "active"
    return response.json()


def finished_game(
    seats: list[tuple[Any, int, int]],
    *,
    variant: str = "colored",
    days_ago: int = 0,
    study: bool = False,
) -> Game:
    """A finished game built outright with `seats` (a user, or None for a computer; the final
    score; the place), ended `days_ago` days before 1 March 2026 noon: for tests that need exact
    scores and places rather than a played game."""
    creator = next(person for person, _, _ in seats if person is not None)
    ended = FINISHED_BASE - dt.timedelta(days=days_ago)
    game = Game.objects.create(
        variant=variant,
        num_players=len(seats),
        status=Game.Status.FINISHED,
        created_by=creator,
        started_at=ended - dt.timedelta(days=10),
        finished_at=ended,
        ply=100,
        is_study=study,
    )
    Seat.objects.bulk_create(
        Seat(
            game=game,
            position=i,
            kind=Seat.Kind.HUMAN if person is not None else Seat.Kind.COMPUTER,
            user=None if study else person,
            name=person.username if study and person is not None else "",
            final_score=score,
            place=place,
        )
        for i, (person, score, place) in enumerate(seats)
    )
    return game
