"""The scripts' players (after `django.setup()`): accounts, their sessions and API tokens, their
games, their devices and webhooks; the soak's players (`Player`, each move it sent in a `Record`);
the abuse run's innocent player (`Victim`) and what it measures (`Figures`); open boards that
wait for a game's moves (`Board`, `keep_board`) and the players who make them (`Mover`); the
seeds of many at once are in `harness.seeds`.
"""

from __future__ import annotations

import asyncio
import http.client
import os
import random
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

from harness.clients import Client, Http, Reply, aget, plain_get
from harness.report import say, within
from harness.sinks import Smtp
from harness.stack import Stack, Sweeper, task_times

SAMPLE_TIMEOUT = 60.0  # the longest the victim waits for what it measures
LIVE_WAIT = 3.0  # the victim's board waits this long for a change, in each sample


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


# -- the soak's players -----------------------------------------------------------------------


@dataclass(frozen=True)
class Attempt:
    game: str
    ply: int
    seat: int
    move: str
    at: float
    status: int  # 0: no answer


@dataclass
class Record:
    """What the players saw, shared by their threads."""

    attempts: list[Attempt] = field(default_factory=list)
    errors: list[tuple[float, str]] = field(default_factory=list)  # 5xx or no answer
    games_created: int = 0
    # A player's round that failed in this script (an answer of a shape it did not expect).
    failures: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def attempt(self, attempt: Attempt) -> None:
        with self.lock:
            self.attempts.append(attempt)

    def error(self, what: str) -> None:
        with self.lock:
            self.errors.append((time.time(), what))


class Player:
    """One account playing every game it is in through the API, in a thread of its own."""

    def __init__(self, name: str, token: str, port: int, record: Record, stop: threading.Event):
        self.name, self.record, self.stop = name, record, stop
        self.http = Http(port, token)
        self.rng = random.Random(name)
        self.opponents: list[str] = []  # the players this one invites
        self.level = ""  # the computer level it plays against
        self.thread = threading.Thread(target=self.run, name=name, daemon=True)

    def call(self, method: str, path: str, body: Any = None) -> Reply | None:
        """The answer, or None when there was none (counted as an error); the API's per-second
        throttle is waited out."""
        while True:
            try:
                # Sent once: a POST whose answer is lost may have been written, and is recorded so.
                reply = self.http.request(method, path, body, attempts=1)
            except (OSError, http.client.HTTPException) as exc:
                self.record.error(f"{method} {path}: no answer ({type(exc).__name__})")
                return None
            if reply.status == 429 and not self.stop.is_set():
                self.stop.wait(min(5.0, float(reply.headers.get("retry-after", 1))))
                continue
            if reply.status >= 500:
                self.record.error(f"{method} {path}: {reply.status} {reply.body[:200]!r}")
            return reply

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                self.round()
            except Exception as exc:  # noqa: BLE001 (a loss in the report; the player goes on)
                with self.record.lock:
                    self.record.failures.append(f"{self.name}: {exc!r}")
            self.stop.wait(0.2)

    def round(self) -> None:
        invitations = self.call("GET", "/api/invitations/")
        if invitations is not None and invitations.status == 200:
            for game in invitations.data.get("results", []):
                self.call("POST", f"/api/invitations/{game['id']}/accept/")
        listed = self.call("GET", "/api/games/?page_size=30")
        if listed is None or listed.status != 200:
            return
        games = listed.data if isinstance(listed.data, list) else listed.data.get("results", [])
        going = [g for g in games if g["status"] in ("open", "active")]
        self.refill(going)
        for game in going:
            if self.stop.is_set():
                return
            if game["status"] == "active" and game.get("is_my_turn"):
                self.play(str(game["id"]))

    def refill(self, going: list[dict[str, Any]]) -> None:
        """A new game for each opponent (and the computer) this player has none with."""
        mine = [g for g in going if g["created_by"] == self.name]
        for opponent in self.opponents:
            if not any(opponent in {p["username"] for p in g["players"]} for g in mine):
                self.create([{"kind": "invite", "username": opponent}])
        if not any(any(p["bot_level"] for p in g["players"]) for g in mine):
            self.create([{"kind": "computer", "level": self.level}])

    def create(self, seats: list[dict[str, str]]) -> None:
        reply = self.call("POST", "/api/games/", {"players": 2, "seats": seats})
        if reply is not None and reply.status == 201:
            with self.record.lock:
                self.record.games_created += 1

    def play(self, game_id: str) -> None:
        detail = self.call("GET", f"/api/games/{game_id}/")
        if detail is None or detail.status != 200:
            return
        view = detail.data
        if not view["viewer_can_move"] or not view["legal_moves"]:
            return
        move = self.rng.choice(view["legal_moves"])
        ply = view["ply"]
        reply = self.call(
            "POST", f"/api/games/{game_id}/moves/", {"move": move, "expected_ply": ply}
        )
        status = reply.status if reply is not None else 0
        self.record.attempt(Attempt(game_id, ply, view["viewer_seat"], move, time.time(), status))


# -- the abuse run's innocent player ------------------------------------------------------------


@dataclass
class Figures:
    replies: dict[str, list[float]] = field(default_factory=dict)  # level -> seconds
    emails: list[float] = field(default_factory=list)
    sweeps: list[tuple[str, str, float]] = field(default_factory=list)  # (task, id, sent at)
    sweep_starts: list[float] = field(default_factory=list)
    sweep_ends: list[float] = field(default_factory=list)
    live: list[float] = field(default_factory=list)  # the victim's board waits, answered after
    live_bad: Counter = field(default_factory=Counter)  # their answers other than 204/304/200
    missing: Counter = field(default_factory=Counter)


def invitation_grace() -> float:
    from django.conf import settings

    return float(getattr(settings, "NOTIFY_INVITATION_GRACE_SECONDS", 0))


class Victim:
    def __init__(self, port: int, user: Any, token: str, smtp: Smtp, started: float) -> None:
        self.http = Http(port, token)
        self.live_port = 0
        self.session = ""
        self.user, self.smtp, self.started = user, smtp, started
        self.games: dict[str, str] = {}
        self.invited = 0
        self.rng = random.Random(7)
        # What a phase needs: the quick level, the sweeps' sender, the stack (its sweeps' log).
        self.level = "greedy"
        self.sweeper: Sweeper | None = None
        self.stack: Stack | None = None

    def note(self, phase: str, text: str) -> None:
        say(f"  [{time.monotonic() - self.started:6.1f} s, {phase}] {text}")

    def _fresh_game(self, level: str) -> str:
        reply = self.http.request(
            "POST",
            "/api/games/",
            {"players": 2, "seats": [{"kind": "computer", "level": level}]},
        )
        if reply.status != 201:
            raise RuntimeError(f"the victim could not start a game: {reply.status} {reply.body!r}")
        return str(reply.data["id"])

    def view(self, game: str) -> dict:
        """The game as the victim's API shows it (the victim's own per-second rate waited out)."""
        while True:
            reply = self.http.request("GET", f"/api/games/{game}/")
            if reply.status == 200:
                return reply.data
            if reply.status != 429:
                raise RuntimeError(f"the victim's game: {reply.status} {reply.body[:200]!r}")
            time.sleep(float(reply.headers.get("retry-after", 1)))

    @staticmethod
    def wait_past(game: str, ply: int, deadline: float) -> bool:
        """Until the game is past `ply` (polled in the database every 10 ms), or the deadline."""
        from games.models import Game

        while time.monotonic() < deadline:
            now = Game.objects.filter(pk=game).values_list("ply", flat=True).first()
            if now is not None and now > ply:
                return True
            time.sleep(0.01)
        return False

    def reply_sample(self, level: str, figures: Figures, phase: str) -> None:
        """One move of the victim's, and the time until the computer's answer is in the game."""
        deadline = time.monotonic() + SAMPLE_TIMEOUT
        while time.monotonic() < deadline:
            game = self.games.get(level) or self._fresh_game(level)
            self.games[level] = game
            view = self.view(game)
            if view["status"] != "active":
                self.games.pop(level)
                continue
            if not view["viewer_can_move"]:  # the computer moves first: its answer to nothing
                self.wait_past(game, view["ply"], deadline)
                continue
            move = self.rng.choice(view["legal_moves"])
            body = {"move": move, "expected_ply": view["ply"]}
            reply = self.http.request("POST", f"/api/games/{game}/moves/", body)
            answered = time.monotonic()
            if reply.status != 201:
                self.note(phase, f"the victim's move: {reply.status} {reply.body[:200]!r}")
                continue
            after = reply.data
            if after["status"] != "active" or after["viewer_can_move"]:
                continue  # no answer to wait for: the game ended, or it is the victim's again
            if self.wait_past(game, after["ply"], deadline):
                seconds = time.monotonic() - answered
                figures.replies.setdefault(level, []).append(seconds)
                self.note(phase, f"computer's reply ({level}): {seconds:.2f} s")
                return
        figures.missing[f"reply {level}"] += 1
        figures.replies.setdefault(level, []).append(float("inf"))
        self.note(phase, f"computer's reply ({level}): none within {SAMPLE_TIMEOUT:.0f} s")

    def email_sample(self, figures: Figures, phase: str) -> None:
        """An invitation to a third player, and its email's delay past its due time."""
        from notifications.models import Notification

        self.invited += 1
        third = bench_user(f"abuse_third{self.invited}")
        reply = self.http.request(
            "POST",
            "/api/games/",
            {"players": 2, "seats": [{"kind": "invite", "username": third.username}]},
        )
        if reply.status != 201:
            self.note(phase, f"the victim's invitation: {reply.status} {reply.body[:200]!r}")
            figures.missing["email"] += 1
            figures.emails.append(float("inf"))
            return
        game = reply.data["id"]
        deadline = time.monotonic() + SAMPLE_TIMEOUT + invitation_grace()
        due = None
        while time.monotonic() < deadline:
            if due is None:
                due = (
                    Notification.objects.filter(
                        recipient=third, game_id=game, kind=Notification.Kind.INVITATION
                    )
                    .values_list("send_after", flat=True)
                    .first()
                )
            arrived = self.smtp.arrived(third.email)
            if due is not None and arrived:
                seconds = arrived[0] - due.timestamp()
                figures.emails.append(seconds)
                grace = f" (due {due.timestamp() - self.created_at(game):.1f} s after creation)"
                self.note(phase, f"invitation's email: {seconds:.2f} s after due{grace}")
                return
            time.sleep(0.02)
        figures.missing["email"] += 1
        figures.emails.append(float("inf"))
        self.note(phase, f"invitation's email: none within {SAMPLE_TIMEOUT:.0f} s of its due time")

    def live_sample(self, figures: Figures, phase: str) -> None:
        """What the victim's board page does: wait for its game to change (`LIVE_WAIT` s, as the
        computer's game stands still meanwhile); answered 204 once the wait is over."""
        from games.models import Game

        game = next(iter(self.games.values()), None)
        if game is None:
            return
        ply = Game.objects.values_list("ply", flat=True).get(pk=game)
        path = f"/games/{game}/live/?wait={LIVE_WAIT:g}&since={ply}"
        began = time.monotonic()
        try:
            cookie = {"Cookie": f"sessionid={self.session}"}
            status = plain_get(self.live_port, path, cookie, timeout=SAMPLE_TIMEOUT).status
        except OSError:
            status = 0
        took = time.monotonic() - began
        if status in (200, 204, 304):
            figures.live.append(took)
            self.note(phase, f"board's live wait ({LIVE_WAIT:g} s): {status} after {took:.2f} s")
        else:
            figures.live.append(float("inf"))
            figures.live_bad[f"{status or 'no answer'} {within(took)}"] += 1
            self.note(phase, f"board's live wait ({LIVE_WAIT:g} s): {status} after {took:.1f} s")

    def phase(
        self,
        name: str,
        figures: Figures,
        *,
        seconds_: float,
        emails: int,
        rounds: int,
        progress: Callable[[], str] | None = None,
    ) -> None:
        """A phase of measures: for `seconds_` and at least `rounds` rounds, each a reply of
        its quick level (`self.level`), one of `strong`, one of the quick level again and a
        board's wait, and an invitation's email until there are `emails`; the sweeps sent
        meanwhile (by `self.sweeper`), and measured at its end (in `self.stack`'s log)."""
        level, sweeper, stack = self.level, self.sweeper, self.stack
        assert sweeper is not None and stack is not None
        sweeper.run(figures.sweeps)
        began = time.monotonic()
        done = 0
        last_progress = began
        while done < rounds or time.monotonic() - began < seconds_:
            self.reply_sample(level, figures, name)
            self.reply_sample("strong", figures, name)
            self.reply_sample(level, figures, name)
            self.live_sample(figures, name)
            if len(figures.emails) < emails:
                self.email_sample(figures, name)
            done += 1
            if progress and time.monotonic() - last_progress > 10:
                self.note(name, progress())
                last_progress = time.monotonic()
            if time.monotonic() - began > 3 * seconds_ + 60:
                break
        sweeper.halt()
        collect_sweeps(stack, figures, name, self.note)

    @staticmethod
    def created_at(game: str) -> float:
        from games.models import Game

        return Game.objects.values_list("created_at", flat=True).get(pk=game).timestamp()


def collect_sweeps(stack: Stack, figures: Figures, phase: str, note: Callable) -> None:
    deadline = time.monotonic() + 30
    while True:
        times = task_times(stack.log("sweeps"))
        if all(task_id in times for _, task_id, _ in figures.sweeps):
            break
        if time.monotonic() > deadline:
            break
        time.sleep(0.5)
    for name, task_id, sent in figures.sweeps:
        start, end = times.get(task_id, (None, None))
        if start is None or end is None:
            figures.missing["sweep"] += 1
            figures.sweep_starts.append(float("inf"))
            figures.sweep_ends.append(float("inf"))
            note(phase, f"{name}: not run within 30 s of the phase's end")
            continue
        # The log's times are to the millisecond: a start a hair before the send is 0.
        figures.sweep_starts.append(max(0.0, start - sent))
        figures.sweep_ends.append(max(0.0, end - sent))
    if figures.sweep_ends:
        note(
            phase,
            f"{len(figures.sweeps)} sweeps: sent to started max {max(figures.sweep_starts):.2f} s,"
            f" to finished max {max(figures.sweep_ends):.2f} s",
        )


def samples(quiet: Figures, flood: Figures, level: str) -> str:
    """How many samples each phase has of each figure."""
    return (
        f"samples quiet/flood: {level} {len(quiet.replies.get(level, []))}/"
        f"{len(flood.replies.get(level, []))}, strong {len(quiet.replies.get('strong', []))}/"
        f"{len(flood.replies.get('strong', []))}, emails {len(quiet.emails)}/{len(flood.emails)},"
        f" sweeps {len(quiet.sweep_ends)}/{len(flood.sweep_ends)}, live waits"
        f" {len(quiet.live)}/{len(flood.live)}"
    )


# -- open boards and their movers (bench_live's) ---------------------------------------------------

LONG_POLL_SECONDS = 55  # a board's wait: as long as a round lasts, so that no wait ends on its own


@dataclass
class Board:
    game: str
    cookie: str
    ply: int
    etag: str | None = None
    told: list[tuple[int, float]] = field(default_factory=list)  # (ply, when)
    loaded: list[tuple[int, float]] = field(default_factory=list)
    errors: int = 0


async def keep_board(board: Board, live_port: int, site_port: int, stop: asyncio.Event, armed):
    """What a board page does: long-poll, and load the board once told; until `stop`."""
    cookie = {"Cookie": f"sessionid={board.cookie}"}
    conn: list = [None, None]
    first = True
    while not stop.is_set():
        # The page's first look names the ply it shows; the next ones, the ETag they were given.
        path = f"/games/{board.game}/live/?wait={LONG_POLL_SECONDS}&since={board.ply}"
        headers = {**cookie, "If-None-Match": board.etag} if board.etag else cookie
        task = asyncio.ensure_future(aget(live_port, path, headers, conn))
        if first:
            armed()
            first = False
        try:
            status, headers, body = await task
        except (ConnectionError, asyncio.IncompleteReadError, OSError):
            board.errors += 1
            await asyncio.sleep(1)
            continue
        now = time.perf_counter()
        if status in (204, 304):
            board.etag = headers.get("etag")
            continue
        if status != 200:
            board.errors += 1
            await asyncio.sleep(1)
            continue
        ply = board.ply = orjson.loads(body)["ply"]
        board.told.append((ply, now))
        board.etag = headers.get("etag")
        status, _, _ = await aget(site_port, f"/games/{board.game}/board/", cookie)
        if status == 200:
            board.loaded.append((ply, time.perf_counter()))
        else:
            board.errors += 1
    if conn[1] is not None:
        conn[1].close()


class Mover:
    """Makes moves through the site's API as the players would (token auth, `expected_ply`),
    and keeps when each was answered: {(game, ply after): (sent, answered)}."""

    def __init__(self, port: int, seeded: Any, seed: int = 1) -> None:
        """`seeded`: a `harness.seeds.Seeded`, the games' players and their tokens."""
        self.client = Client(port)
        self.seeded = seeded
        self.rng = random.Random(seed)
        self.views: dict[str, dict] = {}
        self.moves: dict[tuple[str, int], tuple[float, float]] = {}
        self.errors = 0

    def _view(self, game: str) -> dict:
        if game not in self.views:
            token = next(iter(self.seeded.players[game].values()))
            _, data, _ = self.client.request(
                "GET", f"/api/games/{game}/", {"Authorization": f"Token {token}"}
            )
            self.views[game] = orjson.loads(data)
        return self.views[game]

    def move(self, game: str) -> None:
        import azul

        view = self._view(game)
        if view["status"] != "active":
            return
        state = azul.State.from_dict(view["state"])
        position = state.to_move[0]
        username = next(p["username"] for p in view["players"] if p["position"] == position)
        move = azul.random_move(state, self.rng, position)
        headers = {
            "Authorization": f"Token {self.seeded.players[game][username]}",
            "Content-Type": "application/json",
        }
        body = orjson.dumps({"move": str(move), "expected_ply": view["ply"]})
        sent = time.perf_counter()
        status, data, _ = self.client.request("POST", f"/api/games/{game}/moves/", headers, body)
        answered = time.perf_counter()
        if status != 201:
            self.errors += 1
            self.views.pop(game, None)
            return
        self.views[game] = orjson.loads(data)
        self.moves[(game, self.views[game]["ply"])] = (sent, answered)

    def move_each(self, games: list[str]) -> None:
        """A move in each of `games`, one after the other."""
        for game in games:
            self.move(game)


def latencies(boards: list[Board], moves: dict, which: str, games: set[str] | None = None):
    """Seconds from each move's answer to each board of its game being told / loaded."""
    out = []
    for board in boards:
        if games is not None and board.game not in games:
            continue
        for ply, when in getattr(board, which):
            timing = moves.get((board.game, ply))
            if timing is not None:
                out.append(when - timing[1])
    return sorted(out)
