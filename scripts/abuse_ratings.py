"""The review's rating farm, replayed: how far a second account carries a rating and a leaderboard
place, with the fair-play rules off (as before issue 28) and on.

    python scripts/abuse_ratings.py                 # 40 games, on a database of its own
    python scripts/abuse_ratings.py --games 40 --moves 6

Creates (if needed) and migrates a database of its own (`azul_abuse_ratings`, or
ABUSE_RATINGS_DATABASE_URL), seeds a community (`manage.py seed_history --players 30 --games
600 --flush`, whose top players are the leaderboard to beat), then, in this process through the
API (DRF's test client, throttles on), for each mode: two fresh accounts of one person play
`--games` invite-accept-resign games (the accounts take turns to create and invite, the second
account resigns at once; with `--moves N`, N moves are played first, to get past the "first
moves" rule), and it prints the first account's rating, its rank on `/api/leaderboard/`
(or why it is not listed), the rated games among the flood, the top five before and after, and
the time it took.

The review measured, before: a rating from 1066 to 1947 and first place in 24 s.
"""

from __future__ import annotations

import argparse
import logging
import os
import time

from harness.stack import ensure_database

DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/azul_abuse_ratings"

# The rules off: what the site did before issue 28.
RULES_OFF = {
    "RATINGS_MIN_OWN_MOVES": 0,
    "RATINGS_PAIR_GAMES_PER_DAY": 10**9,
    "RATINGS_PAIR_GAMES_PER_WEEK": 10**9,
    "RATINGS_MIN_OPPONENTS": 0,
}


def setup(url: str) -> None:
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "azul_site.settings")
    os.environ["ALLOWED_HOSTS"] = "testserver,localhost"
    # Tasks run in this process and the cache is its own: nothing reaches a shared Redis.
    os.environ["REDIS_URL"] = ""
    os.environ["CELERY_BROKER_URL"] = ""
    import django

    django.setup()
    from django.conf import settings

    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    logging.disable(logging.WARNING)


def post(client, url: str, body: dict | None = None):
    """A POST as a paced script sends it: waits out the API's per-second throttle (429)."""
    while True:
        response = client.post(url, body, format="json")
        if response.status_code != 429:
            return response
        time.sleep(float(response.headers.get("Retry-After", 1)))


def top(client, n: int = 5) -> list[str]:
    body = client.get("/api/leaderboard/", {"page_size": n}).json()
    return [f"{r['rank']}. {r['username']} {r['rating']}" for r in body["results"]]


def farm(mode: str, games: int, moves: int) -> dict:
    from django.conf import settings
    from rest_framework.test import APIClient

    from accounts.models import User
    from games.models import Game
    from ratings.models import RatedGame, Rating
    from tests.support.play import play_forward

    stamp = int(time.time() * 1000) % 10**8
    hostile = User.objects.create_user(f"farmer{mode}{stamp}", f"f{mode}{stamp}@example.test")
    alt = User.objects.create_user(f"alt{mode}{stamp}", f"a{mode}{stamp}@example.test")
    clients = {}
    for user in (hostile, alt):
        clients[user] = APIClient()
        clients[user].force_authenticate(user)
    public = APIClient()
    board_before = top(public)
    regulars_before = dict(Rating.objects.values_list("user_id", "rating"))

    ids = []
    started = time.perf_counter()
    for number in range(games):
        creator, invited = (hostile, alt) if number % 2 else (alt, hostile)
        made = post(
            clients[creator],
            "/api/games/",
            {"players": 2, "seats": [{"kind": "invite", "username": invited.username}]},
        )
        assert made.status_code == 201, made.content
        game_id = made.json()["id"]
        accepted = post(clients[invited], f"/api/games/{game_id}/invitation/", {"accept": True})
        assert accepted.status_code == 200, accepted.content
        if moves:
            play_forward(Game.objects.get(pk=game_id), moves=moves, seed=number)
        resigned = post(clients[alt], f"/api/games/{game_id}/resign/")
        assert resigned.status_code == 200, resigned.content
        ids.append(game_id)
    elapsed = time.perf_counter() - started

    me = clients[hostile].get("/api/leaderboard/").json()["me"]
    rating = Rating.objects.filter(user=hostile).values_list("rating", flat=True).first()
    regulars_after = dict(Rating.objects.values_list("user_id", "rating"))
    moved = sum(1 for pk, value in regulars_before.items() if regulars_after.get(pk) != value)
    return {
        "mode": mode,
        "settings": {k: getattr(settings, k) for k in RULES_OFF},
        "rated": RatedGame.objects.filter(game_id__in=ids).count(),
        "rating": None if rating is None else round(rating),
        "rank": None if me is None else me["rank"],
        "games_needed": None if me is None else me["games_needed"],
        "opponents_needed": None if me is None else me["opponents_needed"],
        "elapsed": elapsed,
        "top_before": board_before,
        "top_after": top(public),
        "regular_ratings_moved": moved,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--moves", type=int, default=0, help="moves played before resigning")
    parser.add_argument("--reuse", action="store_true", help="keep the seeded community")
    args = parser.parse_args()

    url = os.environ.get("ABUSE_RATINGS_DATABASE_URL", DEFAULT_DB)
    ensure_database(url)
    setup(url)
    from django.core.management import call_command
    from django.test.utils import override_settings

    from games.models import Game

    call_command("migrate", verbosity=0)
    if not args.reuse or not Game.objects.filter(status="finished").exists():
        with open(os.devnull, "w") as quiet:
            call_command("seed_history", players=30, games=600, flush=True, stdout=quiet)

    results = []
    with override_settings(**RULES_OFF):
        results.append(farm("off", args.games, args.moves))
    results.append(farm("on", args.games, args.moves))

    print(f"{args.games} invite-accept-resign games between two accounts of one person", end="")
    print(f" ({args.moves} moves before each resignation)" if args.moves else "")
    for r in results:
        where = (
            f"rank {r['rank']}"
            if r["rank"]
            else "not on the leaderboard"
            + (
                f" (needs {r['games_needed']} more games, {r['opponents_needed']} more opponents)"
                if r["games_needed"] is not None
                else " (no rated game)"
            )
        )
        print(
            f"  rules {r['mode']:>3}: {r['rated']:>2} of {args.games} rated, rating "
            f"{r['rating'] if r['rating'] is not None else 'none'}, {where}; "
            f"{r['elapsed']:.1f} s; other players' ratings moved: {r['regular_ratings_moved']}"
        )
        print(f"             top 5 before: {', '.join(r['top_before'])}")
        print(f"             top 5 after:  {', '.join(r['top_after'])}")


if __name__ == "__main__":
    main()
