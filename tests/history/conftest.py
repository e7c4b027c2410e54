"""Finished games for the history tests: built directly (`finished_game`) where a test needs
exact scores and places, or played to the end through the services (`tests.ratings.conftest`)
where it needs real games and ratings."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest
from django.utils import timezone

from games.models import Game, Seat

BASE = timezone.make_aware(dt.datetime(2026, 3, 1, 12, 0), dt.UTC)


@pytest.fixture
def finished_game(db) -> Callable[..., Game]:
    """`finished_game([(alice, 50, 1), (bob, 40, 2)], variant="colored", days_ago=0,
    study=False)`: a finished game with those seats (a user, or None for a computer; the
    final score; the place), ended `days_ago` days before 1 March 2026 noon."""

    def make(
        seats: list[tuple[Any, int, int]],
        *,
        variant: str = "colored",
        days_ago: int = 0,
        study: bool = False,
    ) -> Game:
        creator = next(user for user, _, _ in seats if user is not None)
        ended = BASE - dt.timedelta(days=days_ago)
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
                kind=Seat.Kind.HUMAN if user is not None else Seat.Kind.COMPUTER,
                user=None if study else user,
                name=user.username if study and user is not None else "",
                final_score=score,
                place=place,
            )
            for i, (user, score, place) in enumerate(seats)
        )
        return game

    return make
