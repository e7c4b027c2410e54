"""The scripts' players (after `django.setup()`): accounts, their sessions and API tokens, their
games, their devices and webhooks; and the web benchmarks' seed.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass, field
from typing import Any


def bench_user(name: str) -> Any:
    """A verified player for the scripts."""
    from allauth.account.models import EmailAddress
    from django.contrib.auth import get_user_model

    u, _ = get_user_model().objects.get_or_create(
        username=name, defaults={"email": f"{name}@bench.test"}
    )
    EmailAddress.objects.get_or_create(
        user=u, email=u.email, defaults={"primary": True, "verified": True}
    )
    return u


def bench_session(user: Any) -> str:
    """The key of a new signed-in session of `user`, for a page's session cookie."""
    from django.conf import settings
    from django.contrib.sessions.backends.db import SessionStore

    store = SessionStore()
    store["_auth_user_id"] = str(user.pk)
    store["_auth_user_backend"] = settings.AUTHENTICATION_BACKENDS[-1]
    store["_auth_user_hash"] = user.get_session_auth_hash()
    store.create()
    return str(store.session_key)


def api_token(user: Any, name: str = "bench") -> str:
    """A new API token of `user`'s: runs share players, so each run's token replaces the last,
    within the limit per player."""
    from accounts.services import token_create

    user.api_tokens.all().delete()
    return token_create(user=user, name=name)[1]


def two_player_game(a: Any, b: Any) -> Any:
    """A game of `a` and `b`, started: `a` invited `b`, who accepted."""
    from games import selectors, services

    game = services.game_create(
        creator=a,
        num_players=2,
        variant="colored",
        days_per_move=3,
        seats=[services.SeatSpec(kind="invite", username=b.username)],
    )
    services.invitation_respond(game_id=game.id, user=b, accept=True)
    return selectors.game_get(game_id=game.id)


def devices_and_webhooks(user: Any, reach: Any) -> None:
    """One device and one signed JSON webhook for the player, both at `reach` (a ReachSink)."""
    from notifications.models import PushSubscription, Webhook

    device = reach.device(user.username)
    PushSubscription.objects.create(
        user=user,
        name="soak",
        endpoint=reach.push_url(user.username),
        p256dh=device.p256dh,
        auth=device.auth,
    )
    secret = os.urandom(16).hex()
    Webhook.objects.create(
        user=user, name="soak", url=reach.hook_url(user.username), style="json", secret=secret
    )
    reach.hook_secrets[user.username] = secret


# -- the web benchmarks' seed ----------------------------------------------------------------------


@dataclass
class Seed:
    long_game: str
    long_ply: int
    session_cookie: str
    watcher_token: str
    # Per client thread: {username: token} and the ids of that pair's games.
    pairs: list[tuple[dict[str, str], list[str]]] = field(default_factory=list)


def seed_pairs(concurrency: int, games_per_pair: int, long_moves: int) -> Seed:
    """Every game deleted; a long game of `long_moves` moves and its watcher; and per client a
    pair of players with `games_per_pair` games between them (bench_web's scenarios)."""
    import django

    django.setup()
    import azul
    from games import selectors, services
    from games.models import Game

    Game.objects.all().delete()

    rng = random.Random(1)
    watcher = bench_user("bench_watcher")
    a, b = bench_user("bench_long_a"), bench_user("bench_long_b")
    long_game = two_player_game(a, b)
    by_seat = {s.position: s.user for s in long_game.seats.all()}
    for _ in range(long_moves):
        game = selectors.game_get(game_id=long_game.id)
        state = azul.State.from_dict(game.state)
        if game.status != Game.Status.ACTIVE or not state.to_move:
            break
        position = state.to_move[0]
        move = str(azul.random_move(state, rng, position))
        services.move_submit(
            game_id=game.id, user=by_seat[position], move=move, expected_ply=game.ply
        )
    long_game = selectors.game_get(game_id=long_game.id)

    result = Seed(
        long_game=str(long_game.id),
        long_ply=long_game.ply,
        session_cookie=bench_session(watcher),
        watcher_token=api_token(watcher),
    )
    for i in range(concurrency):
        p, q = bench_user(f"bench_p{i}a"), bench_user(f"bench_p{i}b")
        games = [str(two_player_game(p, q).id) for _ in range(games_per_pair)]
        result.pairs.append(({p.username: api_token(p), q.username: api_token(q)}, games))
    return result
