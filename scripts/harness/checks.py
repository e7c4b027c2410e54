"""Checks of a run: the soak's (every move sent against the games' logs, the logs against the
engine, the stack having settled, and each notification's deliveries per channel, email, push and
webhook, counted in one place: nothing lost, nothing twice) and the abuse run's (the limits a
hostile account must be held to, watched in the database).
"""

from __future__ import annotations

import email
import io
import os
import re
import threading
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any

from harness.players import Record
from harness.report import say
from harness.sinks import ReachSink, Smtp

GAME_ID = re.compile(r"/games/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/")


def check_game_logs(env: dict[str, str]) -> tuple[int, list[str]]:
    """`manage.py check_game_logs`' exit, and a loss when it is not 0 (the logs disagree with
    the engine). Run in this process, whose Django is the site's of `env` (`django_setup`): in
    a process of its own, it imported the site again (2-3 s of the run)."""
    from django.core.management import CommandError, call_command

    assert os.environ.get("DATABASE_URL") == env["DATABASE_URL"], "django_setup(env) first"
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("check_game_logs", stdout=out, stderr=err)
    except CommandError as exc:
        return 1, [f"check_game_logs exited 1: {exc}\n{err.getvalue()[-2000:]}"]
    return 0, []


# -- the notifications' deliveries, per channel (counted in one place) ----------------------------


def delivery_balance(arrived: Counter, marked: Counter, held: Counter) -> tuple[int, int, int]:
    """(twice, lost, sent then killed) for one channel. A sender killed between the send and
    marking the row sent leaves the row pending under its claim: that arrival is at-least-once
    delivery doing its job (it is sent again once the claim runs out), counted apart; any
    other arrival beyond the rows marked sent is a duplicate."""
    twice = lost = killed = 0
    for key in set(arrived) | set(marked):
        extra = arrived[key] - marked[key]
        if extra > 0:
            allowed = min(extra, held[key])
            killed += allowed
            twice += extra - allowed
        elif extra < 0:
            lost -= extra
    return twice, lost, killed


@dataclass
class Deliveries:
    """The notifications' counts at one moment, each per (recipient, kind, game id): the emails
    at the sink and the outbox's rows marked sent; per channel (push, webhook), what arrived at
    the sink, the deliveries marked sent and those still pending under a live claim (a sender
    killed while it held them); and what is due or held now."""

    emails_at_sink: Counter
    emails_sent: Counter
    emails_due: int
    emails_held: int  # due, but held by a killed sender's claim until it runs out
    arrived: dict[str, Counter]
    marked: dict[str, Counter]
    claimed: dict[str, Counter]
    deliveries_due: int
    deliveries_held: int

    def email_duplicates(self) -> dict[Any, int]:
        at_sink, sent = self.emails_at_sink, self.emails_sent
        return {k: at_sink[k] - sent[k] for k in at_sink if at_sink[k] > sent[k]}

    def email_missing(self) -> dict[Any, int]:
        at_sink, sent = self.emails_at_sink, self.emails_sent
        return {k: sent[k] - at_sink[k] for k in sent if sent[k] > at_sink[k]}

    def balance(self, channel: str) -> tuple[int, int, int]:
        """(twice, lost, sent then killed) of the channel."""
        return delivery_balance(self.arrived[channel], self.marked[channel], self.claimed[channel])

    def balanced(self) -> bool:
        return all(self.balance(channel)[:2] == (0, 0) for channel in self.arrived)

    def caught_up(self) -> bool:
        """Nothing due, and the sink holds as many emails as rows were marked sent."""
        sent, at_sink = sum(self.emails_sent.values()), sum(self.emails_at_sink.values())
        return self.emails_due == 0 and sent == at_sink and self.deliveries_due == 0

    def state(self) -> str:
        counts = {
            c: (sum(self.arrived[c].values()), sum(self.marked[c].values())) for c in self.arrived
        }
        return (
            f"{self.emails_due} emails due, {sum(self.emails_at_sink.values())}/"
            f"{sum(self.emails_sent.values())} sent, {self.emails_held} held by a killed sender's"
            f" claim; {self.deliveries_due} push/webhook due ({self.deliveries_held} held),"
            f" push {counts['push'][0]}/{counts['push'][1]},"
            f" webhook {counts['webhook'][0]}/{counts['webhook'][1]}"
        )

    def judge(self) -> tuple[list[str], str, str]:
        """The losses (an email, push notice or webhook call that went twice, or was marked sent
        and never arrived), and the report's lines of the emails and of push and webhooks."""
        losses: list[str] = []
        at_sink, sent = self.emails_at_sink, self.emails_sent
        duplicates, missing = self.email_duplicates(), self.email_missing()
        for key, extra in duplicates.items():
            losses.append(f"email sent {extra} more time(s) than its rows: {key}")
        for key, lacking in missing.items():
            losses.append(f"email marked sent but not at the sink ({lacking}): {key}")
        kinds = Counter(k[1] for k in at_sink.elements())
        emails = (
            f"{sum(at_sink.values())} ({', '.join(f'{k} {n}' for k, n in kinds.items())});"
            f" rows marked sent {sum(sent.values())}; duplicates {sum(duplicates.values())},"
            f" missing {sum(missing.values())}"
        )
        channels = []
        for channel in ("push", "webhook"):
            twice, lost, killed = self.balance(channel)
            if twice:
                losses.append(f"{channel}: {twice} arrived more times than their deliveries")
            if lost:
                losses.append(f"{channel}: {lost} deliveries marked sent never arrived")
            channels.append(
                f"{channel} {sum(self.arrived[channel].values())} arrived,"
                f" {sum(self.marked[channel].values())} marked sent, twice {twice}, lost {lost},"
                f" sent before its sender was killed {killed}"
            )
        return losses, emails, "; ".join(channels)


def count_deliveries(smtp: Smtp, sink: ReachSink) -> Deliveries:
    """What the soak counts of the notifications: the emails at the SMTP sink against the
    outbox's rows, and the push notices and webhook calls at the reach sink against their
    deliveries (ChannelDelivery), each per (recipient, kind, game id).

    An email whose sender was killed while it held the row is not due until its claim runs
    out (notifications.outbox.CLAIM, minutes): it is counted apart, as held. Had it reached
    the sink before the kill, the sink would hold one message more than the rows marked sent
    (a duplicate once it is sent again), which the email check reports."""
    from django.db.models import Q
    from django.utils import timezone

    from notifications.models import ChannelDelivery, Notification

    now = timezone.now()

    # The emails: the sink's messages, per (recipient, kind, game id); the outbox's rows.
    at_sink: Counter = Counter()
    with smtp.lock:
        messages = list(smtp.messages)
    for _, recipients, raw in messages:
        message = email.message_from_bytes(raw)
        kind = message.get("X-Azul-Notification", "")
        # A digest is about no one game (its row has none), though it links to several.
        game = GAME_ID.search(raw.decode(errors="replace")) if kind != "digest" else None
        for to in recipients:
            at_sink[(to, kind, game.group(1) if game else "")] += 1
    rows = Notification.objects.filter(status=Notification.Status.SENT).values_list(
        "recipient__email", "kind", "game_id"
    )
    sent = Counter((to.lower(), kind, str(game) if game else "") for to, kind, game in rows)
    pending = Notification.objects.filter(status=Notification.Status.PENDING, send_after__lte=now)
    held = pending.filter(claimed_until__gte=now).count()
    due = pending.filter(Q(claimed_until__isnull=True) | Q(claimed_until__lt=now)).count()

    # The push notices and webhook calls: what reached the sink, per channel and (player,
    # kind, game); the deliveries marked sent, and those pending under a live claim.
    arrived: dict[str, Counter] = {"push": Counter(), "webhook": Counter()}
    for channel, name in (("push", "push"), ("hook", "webhook")):
        for _, player, payload in sink.arrived(channel):
            arrived[name][(player, payload.get("kind", ""), payload.get("game_id") or "")] += 1

    def per_channel(deliveries: Any) -> dict[str, Counter]:
        keys: dict[str, Counter] = {"push": Counter(), "webhook": Counter()}
        for channel, username, kind, game in deliveries.values_list(
            "channel",
            "notification__recipient__username",
            "notification__kind",
            "notification__game_id",
        ):
            keys[channel][(username, kind, str(game) if game else "")] += 1
        return keys

    marked = per_channel(ChannelDelivery.objects.filter(status=ChannelDelivery.Status.SENT))
    claimed = per_channel(
        ChannelDelivery.objects.filter(
            status=ChannelDelivery.Status.PENDING, claimed_until__gte=now
        )
    )
    pending_deliveries = ChannelDelivery.objects.filter(
        status=ChannelDelivery.Status.PENDING, send_after__lte=now
    )
    deliveries_held = pending_deliveries.filter(claimed_until__gte=now).count()
    return Deliveries(
        emails_at_sink=at_sink,
        emails_sent=sent,
        emails_due=due,
        emails_held=held,
        arrived=arrived,
        marked=marked,
        claimed=claimed,
        deliveries_due=pending_deliveries.count() - deliveries_held,
        deliveries_held=deliveries_held,
    )


def settled(smtp: Smtp, sink: ReachSink) -> tuple[bool, str]:
    """Whether the stack caught up: no game waits on the computer, no notification is due, and
    the sinks hold what the rows marked sent say."""
    from django.db import close_old_connections

    from games.models import Seat
    from games.selectors.turns import computer_turns_waiting

    close_old_connections()
    waiting = len(computer_turns_waiting(Seat.BotLevel.values))
    counted = count_deliveries(smtp, sink)
    state = f"{waiting} games wait on the computer, {counted.state()}"
    return waiting == 0 and counted.caught_up() and counted.balanced(), state


def settle(smtp: Smtp, sink: ReachSink, limit: float) -> tuple[bool, str, float]:
    """Waits up to `limit` seconds for the stack to settle: whether it did, its state, and the
    seconds it took."""
    began = time.monotonic()
    while True:
        done, state = settled(smtp, sink)
        if done or time.monotonic() - began > limit:
            return done, state, time.monotonic() - began
        time.sleep(0.25)  # a few queries a look: looking often ends the wait sooner


# -- the moves and the computer's answers ----------------------------------------------------------


def computer_worst_answer() -> tuple[float, str]:
    """The longest time from a log entry to the computer's move after it."""
    from django.db.models import F, Window
    from django.db.models.functions import Lag

    from games.models import LogEntry, Seat

    computers = set(Seat.objects.filter(kind=Seat.Kind.COMPUTER).values_list("game_id", "position"))
    rows = LogEntry.objects.annotate(
        before=Window(Lag("created_at"), partition_by=[F("game_id")], order_by=F("number").asc())
    ).values_list("game_id", "number", "kind", "player", "created_at", "before")
    worst, where = 0.0, ""
    for game, number, kind, player, at, before in rows:
        if kind != "move" or (game, player) not in computers or before is None:
            continue
        took = (at - before).total_seconds()
        if took > worst:
            worst, where = took, f"game {game}, entry {number}"
    return worst, where


def check_moves(record: Record) -> tuple[list[str], dict[str, int]]:
    """Losses between what the players sent and the logs, and the figures."""
    from games.models import LogEntry, Seat

    problems: list[str] = []
    games = {a.game for a in record.attempts}
    entries = {
        (str(game), number): (player, data)
        for game, number, player, data in LogEntry.objects.filter(kind="move").values_list(
            "game_id", "number", "player", "data"
        )
    }
    people = {
        (str(game), position)
        for game, position in Seat.objects.exclude(kind=Seat.Kind.COMPUTER).values_list(
            "game_id", "position"
        )
    }
    sent = {(a.game, a.ply, a.seat, a.move) for a in record.attempts}
    accepted = [a for a in record.attempts if 200 <= a.status < 300]
    for a in accepted:
        entry = entries.get((a.game, a.ply))
        if entry is None:
            problems.append(
                f"lost: {a.move!r} in game {a.game} at ply {a.ply}, answered {a.status}"
            )
        elif (entry[0], move_text(entry[1])) != (a.seat, a.move):
            problems.append(
                f"game {a.game} ply {a.ply}: answered {a.status} to seat {a.seat}'s {a.move!r},"
                f" the log has seat {entry[0]}'s {move_text(entry[1])!r}"
            )
    by_people = 0
    for (game, number), (player, data) in entries.items():
        if (game, player) not in people:
            continue
        by_people += 1
        if (game, number, player, move_text(data)) not in sent:
            problems.append(
                f"game {game} entry {number}: seat {player}'s {move_text(data)!r},"
                " sent by no player"
            )
    figures = {
        "moves sent": len(record.attempts),
        "moves accepted": len(accepted),
        "moves refused (4xx)": sum(1 for a in record.attempts if 400 <= a.status < 500),
        "moves unanswered or 5xx": sum(
            1 for a in record.attempts if a.status in (0,) or a.status >= 500
        ),
        "people's moves in the logs": by_people,
        "computers' moves in the logs": len(entries) - by_people,
        "games played in": len(games),
    }
    return problems, figures


def move_text(data: Any) -> str:
    move = data.get("move") if isinstance(data, dict) else data
    return move if isinstance(move, str) else str(move)


# -- the limits a hostile account must be held to --------------------------------------------------


class Watch:
    """What the hostile account has at once, read from the database every half second."""

    def __init__(self, user: Any) -> None:
        self.user = user
        self.most: Counter = Counter()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.loop, daemon=True)

    def halt(self) -> None:
        self.stop.set()

    def loop(self) -> None:
        from django.db import connection

        from analysis.models import Analysis
        from games.models import Game, Seat

        # As the README says the limits count: unfinished games the player sits at (not an
        # invitation they have not accepted, nor a seat they resigned); lobby games: theirs,
        # waiting for players, with a seat anyone may take.
        seated = Seat.objects.filter(user=self.user, resigned_at__isnull=True).exclude(
            invitation=Seat.Invitation.PENDING
        )
        mine = Game.objects.filter(
            status__in=[Game.Status.OPEN, Game.Status.ACTIVE], pk__in=seated.values("game_id")
        )
        computers = Seat.objects.filter(kind=Seat.Kind.COMPUTER)
        masters = computers.filter(bot_level=Seat.BotLevel.MASTER)
        open_seats = Seat.objects.filter(kind=Seat.Kind.HUMAN, user__isnull=True, name="").exclude(
            invitation=Seat.Invitation.DECLINED
        )
        lobby = Game.objects.filter(
            status=Game.Status.OPEN, created_by=self.user, pk__in=open_seats.values("game_id")
        )
        try:
            while not self.stop.is_set():
                now = {
                    "computer games": mine.filter(pk__in=computers.values("game_id")).count(),
                    "master games": mine.filter(pk__in=masters.values("game_id")).count(),
                    "lobby games": lobby.count(),
                    "analyses pending": Analysis.objects.filter(
                        requested_by=self.user, status=Analysis.Status.PENDING
                    ).count(),
                    "games created": Game.objects.filter(created_by=self.user).count(),
                }
                for name, value in now.items():
                    self.most[name] = max(self.most[name], value)
                self.stop.wait(0.5)
        finally:
            connection.close()


def rate_count(rate: str) -> int:
    return int(rate.split("/")[0])


def limits_held(watch: Watch, live_held_at_once: int, live_wait: int) -> bool:
    """The most the hostile account had at once against each limit, printed: whether all held."""
    from django.conf import settings

    rates = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
    most = watch.most
    limits = [
        ("games created (an hour)", most["games created"], rate_count(rates["game_create"])),
        ("computer games at once", most["computer games"], settings.GAMES_MAX_COMPUTER_GAMES),
        ("master games at once", most["master games"], settings.GAMES_MAX_MASTER_GAMES),
        ("lobby games at once", most["lobby games"], settings.GAMES_MAX_LOBBY_GAMES),
        (
            "analyses pending at once",
            most["analyses pending"],
            settings.ANALYSIS_MAX_PENDING_PER_PLAYER,
        ),
        ("live waits held at once", live_held_at_once, settings.LIVE_MAX_WAITS_PER_PLAYER),
    ]
    held = True
    say("\nThe limits (the most the hostile account had at once: by the database; live waits: by")
    say(f"their answers: those answered 204/304 after waiting out their {live_wait} s):")
    for name, value, limit in limits:
        ok = value <= limit
        held &= ok
        say(f"  {name:<26} {value:>4}  (limit {limit}) {'held' if ok else 'NOT HELD'}")
    return held
