"""The game as the last move left it, kept in the cache so that the next move need not read it.

A move reads its game (with seats, users and profiles), checks and plays the move, and writes it
with one statement that applies only if the game is still the version read
(`services.move_submit`). Players often move in quick succession, and a computer player answers
at once, so the game that a move reads is usually the one the move before it wrote. Each move
therefore leaves a snapshot of its game here, and the next move through the API gets it in the
round trip to the cache that authenticates its token (`azul_site.prefetch`) instead of reading
the game from the database.

A snapshot is never trusted on its own. A move played on one is written only if the game is
still that version, and a refusal found on one (a stale ply, not your turn, an illegal move) is
checked again against the database, since the snapshot may be older than the game. A missing,
stale or unreadable snapshot costs only the database read that it was meant to save.

The snapshot is written without waiting for the cache's answer (`set_without_reply`): it is a
shortcut, not worth a round trip of its own. It holds what the game's readers see (the public
state, the seats and the players' names), never anything hidden, and lives for
`SNAPSHOT_SECONDS`, as long as players may be expected to be at the table.

It also holds the game's state as the engine's `State`, so that the next move need not parse
`state` again in a process that has not seen this version of the game (each of the site's
worker processes sees a few of a game's moves).
"""

from __future__ import annotations

import hashlib
import logging
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Model
from django.db.models.base import ModelState

from accounts.models import Profile
from azul_site.cache import set_without_reply
from games import engine
from games.engine.state import FORMAT_VERSION, Board
from games.models import SEAT_RELATED, Game, Seat

logger = logging.getLogger(__name__)

SNAPSHOT_SECONDS = 600

# What a game read with its seats holds of their users and profiles (`SEAT_RELATED`): never more,
# so that a user's other fields, which it does not show, stay out of the snapshot.
_USER_FIELDS = ("id", *SEAT_RELATED["user"])
_PROFILE_FIELDS = ("id", "user_id", *SEAT_RELATED["user__profile"])


@cache
def _format() -> str:
    """A digest of the models' fields and the engine's state's attributes, so that a deploy that
    changes them reads none of the snapshots taken before it."""
    models = (Game, Seat, get_user_model(), Profile)
    shape = [
        f"{m._meta.label}:{','.join(f.attname for f in m._meta.concrete_fields)}" for m in models
    ]
    shape += [f"{c.__name__}:{','.join(c.__slots__)}" for c in (engine.State, Board)]
    shape.append(f"state format {FORMAT_VERSION}")
    return hashlib.sha256(";".join(shape).encode()).hexdigest()[:12]


def key(game_id: uuid.UUID) -> str:
    """The cache key of a game's snapshot."""
    return f"games:snapshot:{_format()}:{game_id}"


def _values(instance: Model | None, only: Sequence[str] | None = None) -> dict[str, Any] | None:
    """The field values an instance holds: its attributes but those Django and this project
    keep beside them, which start with an underscore (deferred fields are not there); with
    `only`, just those fields and the keys."""
    if instance is None:
        return None
    values = instance.__dict__
    if only is not None:
        return {name: values[name] for name in only if name in values}
    return {name: value for name, value in values.items() if name[0] != "_"}


def _instance(model: type[Model], values: dict[str, Any] | None, db: str) -> Any:
    """An instance of `model` with these field values, as stored: built as unpickling builds
    one, without `__init__` (whose work, filling every field, the values already did)."""
    if values is None:
        return None
    instance = model.__new__(model)
    instance.__dict__.update(values)
    instance._state = ModelState()
    instance._state.adding, instance._state.db = False, db
    return instance


def store_on_commit(game: Game) -> None:
    """Once the current transaction commits, leave `game` (as the caller has it: written, with
    its seats) as its game's snapshot."""
    seats = []
    for seat in game.seat_list():
        user = seat.user
        profile = getattr(user, "profile", None) if user is not None else None
        seats.append(
            (_values(seat), _values(user, _USER_FIELDS), _values(profile, _PROFILE_FIELDS))
        )
    value = (game._state.db, _values(game), seats, game.engine_state())
    cache_key = key(game.pk)
    transaction.on_commit(
        lambda: set_without_reply(cache_key, value, SNAPSHOT_SECONDS),
        using=game._state.db,
        robust=True,
    )


def load(value: Any, game_id: uuid.UUID) -> Game | None:
    """The game of a snapshot read from the cache, with its seats, their users and profiles
    linked as `Game.objects.get_with_seats` links them; None when `value` is not a snapshot of
    that game."""
    links = _links()
    try:
        db, game_values, seat_values, parsed = value
        if game_values["id"] != game_id or not isinstance(parsed, engine.State | None):
            return None
        game = _instance(Game, game_values, db)
        seats = []
        for seat_fields, user_fields, profile_fields in seat_values:
            seat, user = _instance(Seat, seat_fields, db), _instance(links.user, user_fields, db)
            links.seat_game.set_cached_value(seat, game)
            links.seat_user.set_cached_value(seat, user)
            if user is not None:
                profile = _instance(Profile, profile_fields, db)
                links.user_profile.set_cached_value(user, profile)
                if profile is not None:
                    links.profile_user.set_cached_value(profile, user)
                if user.pk == game.created_by_id:
                    links.game_creator.set_cached_value(game, user)
            seats.append(seat)
    except (TypeError, ValueError, KeyError, AttributeError):  # not a snapshot after all
        logger.warning("unreadable snapshot of game %s", game_id, exc_info=True)
        return None
    game.attach_seats(seats)
    game.mark_as_read()
    game.attach_engine_state(parsed)
    return game


@dataclass(frozen=True)
class _Links:
    user: type[Model]
    seat_game: Any
    seat_user: Any
    game_creator: Any
    profile_user: Any
    user_profile: Any


@cache
def _links() -> _Links:
    """The relations a snapshot's instances are linked by, as `select_related` links them."""
    profile_user = Profile._meta.get_field("user")
    return _Links(
        user=get_user_model(),
        seat_game=Seat._meta.get_field("game"),
        seat_user=Seat._meta.get_field("user"),
        game_creator=Game._meta.get_field("created_by"),
        profile_user=profile_user,
        user_profile=profile_user.remote_field,
    )
