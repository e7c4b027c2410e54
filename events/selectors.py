"""The events' reads: lists, an event's entrants, tables, results, standings and crosstable, a
player's events, and the facts entering one needs (rating, games finished, a second account)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Exists, F, OuterRef, Q, QuerySet

from accounts.models import User
from events import formats
from events.formats.scoring import Crosstable
from events.models import Bye, Entry, Event, EventTable, League, Season
from games.models import Game, Seat
from ratings.selectors import lopsided_partners, player_rating
from ratings.skill import INITIAL_DISPLAY


def entrant_rating(user: User) -> float:
    """The rating an event seeds and limits `user` by: their shown rating, or the starting one
    before their first rated game."""
    rating = player_rating(user=user)
    return float(rating) if rating is not None else float(round(INITIAL_DISPLAY))


def finished_games_count(user: User) -> int:
    """The games `user` has finished (played to the end or resigned), studies aside."""
    return Seat.objects.filter(
        user=user, game__status=Game.Status.FINISHED, game__is_study=False
    ).count()


def email_skeleton(address: str) -> str:
    """An address as the same mailbox: lower case, without a "+tag", and for Gmail without the
    dots it ignores. Two accounts with one skeleton are taken for one person."""
    local, _at, domain = address.strip().lower().rpartition("@")
    local = local.split("+", 1)[0]
    if domain in ("gmail.com", "googlemail.com"):
        local, domain = local.replace(".", ""), "gmail.com"
    return f"{local}@{domain}" if local else ""


def same_person(user: User, user_ids: Iterable[Any]) -> bool:
    """Whether one of `user_ids` looks like another account of the person behind `user`, by the
    signals fair play uses: the same mailbox (`email_skeleton`), or a lopsided pair (many games
    together, nearly all won by one: `ratings.selectors.lopsided_partners`)."""
    ids = list(user_ids)
    if not ids:
        return False
    mine = email_skeleton(user.email or "")
    if mine:
        emails = User.objects.filter(pk__in=ids).exclude(email="").values_list("email", flat=True)
        if any(email_skeleton(e) == mine for e in emails):
            return True
    return bool(lopsided_partners(user_id=user.pk, among=ids))


def get_event(event_id: Any) -> Event | None:
    try:
        return Event.objects.select_related("organiser", "season__league").get(pk=int(event_id))
    except (Event.DoesNotExist, TypeError, ValueError, OverflowError):
        return None


def events_list(
    *, status: str | None = None, format: str | None = None, table_size: int | None = None
) -> QuerySet[Event]:
    """Events, newest first, with their entrant counts (`entrant_count`), filtered; a league's
    divisions are listed with their league, not here."""
    events = Event.objects.filter(season__isnull=True).select_related("organiser")
    if status:
        events = events.filter(status=status)
    if format:
        events = events.filter(format=format)
    if table_size:
        events = events.filter(table_size=table_size)
    return events.annotate(
        entrant_count=Count("entries", filter=Q(entries__withdrawn_at__isnull=True))
    ).order_by("-created_at", "-pk")


def entries_of(event: Event) -> list[Entry]:
    return list(Entry.objects.filter(event=event).select_related("user", "user__profile"))


def entry_of(event: Event, user: User | Any) -> Entry | None:
    if not getattr(user, "is_authenticated", False):
        return None
    return Entry.objects.filter(event=event, user=user).first()


def tables_of(event: Event) -> list[EventTable]:
    return list(
        EventTable.objects.filter(event=event).select_related("game").order_by("round", "number")
    )


def _table_result(table: EventTable, seats: list[Seat]) -> formats.TableResult | None:
    """How a finished table ended for the event: the game's places, except that a player whose
    time ran out until the computer took over (or who resigned) comes after those who played on
    (a timeout counts as a loss)."""
    by_user = {s.user_id: s for s in seats}
    if any(by_user.get(u) is None or by_user[u].place is None for u in table.players):
        return None
    out = {
        u: by_user[u].resigned_at is not None or (by_user[u].autoplay and by_user[u].timeouts > 0)
        for u in table.players
    }
    keys = {u: (out[u], by_user[u].place) for u in table.players}
    placings = tuple(1 + sum(1 for k in keys.values() if k < keys[u]) for u in table.players)
    return formats.TableResult(
        seats=tuple(table.players),
        placings=placings,
        scores=tuple(by_user[u].final_score or 0 for u in table.players),
    )


def results_by_game(event: Event) -> dict[Any, formats.TableResult]:
    """The results of the event's finished tables by their game's id, in the order they were
    played (2 queries)."""
    tables = list(
        EventTable.objects.filter(event=event, game__status=Game.Status.FINISHED).order_by(
            "round", "number"
        )
    )
    seats: dict[Any, list[Seat]] = {}
    for seat in Seat.objects.filter(game_id__in=[t.game_id for t in tables]):
        seats.setdefault(seat.game_id, []).append(seat)
    results = {t.game_id: _table_result(t, seats.get(t.game_id, [])) for t in tables}
    return {game_id: r for game_id, r in results.items() if r is not None}


def table_results(event: Event) -> list[formats.TableResult]:
    """The results of the event's finished tables, in the order they were played."""
    return list(results_by_game(event).values())


@dataclass(frozen=True)
class StandingsLine:
    row: formats.StandingsRow
    user: User
    withdrawn: bool


def standings_of(
    event: Event,
    *,
    entries: list[Entry] | None = None,
    results: list[formats.TableResult] | None = None,
) -> list[StandingsLine]:
    """The event's standings (`events.formats.standings`), the withdrawn ones after the rest.
    A page that has read the event's `entries` and `results` already passes them."""
    by_user = {e.user_id: e for e in (entries_of(event) if entries is None else entries)}
    entrants = [formats.Entrant(id=u, rating=e.rating) for u, e in by_user.items()]
    byes = list(Bye.objects.filter(event=event).values_list("user_id", flat=True))
    rows = formats.standings(
        entrants, table_results(event) if results is None else results, byes=byes
    )
    lines = [
        StandingsLine(r, by_user[r.entrant].user, not by_user[r.entrant].is_active) for r in rows
    ]
    return sorted(lines, key=lambda line: line.withdrawn)


def crosstable_of(
    event: Event,
    *,
    entries: list[Entry] | None = None,
    results: list[formats.TableResult] | None = None,
) -> Crosstable:
    """Who met whom, and each result (`events.formats.crosstable`); `entries` and `results` as
    for `standings_of`."""
    entrants = [
        formats.Entrant(id=e.user_id, rating=e.rating)
        for e in (entries_of(event) if entries is None else entries)
    ]
    return formats.crosstable(entrants, table_results(event) if results is None else results)


def event_of_game(game_id: Any) -> EventTable | None:
    """The event table a game is, with its event; None for a game of no event."""
    return EventTable.objects.filter(game_id=game_id).select_related("event").first()


def player_events(user: User) -> QuerySet[Entry]:
    """The events `user` entered, newest first, with their events."""
    return (
        Entry.objects.filter(user=user)
        .select_related("event", "event__season__league")
        .order_by("-event__created_at")
    )


def events_starting_for(user_id: Any) -> QuerySet[Event]:
    """The events `user_id` entered that have a start date and have not started (1 query)."""
    return Event.objects.filter(
        status=Event.Status.REGISTRATION,
        starts_at__isnull=False,
        entries__user_id=user_id,
        entries__withdrawn_at__isnull=True,
    ).order_by("starts_at", "pk")


def events_due_to_start(now: Any) -> QuerySet[Event]:
    """Events open for registration whose start date passed."""
    return Event.objects.filter(status=Event.Status.REGISTRATION, starts_at__lte=now)


def events_full_waiting() -> QuerySet[Event]:
    """Events with no start date that are full but have not started (their task was lost)."""
    return (
        Event.objects.filter(status=Event.Status.REGISTRATION, starts_at__isnull=True)
        .annotate(count=Count("entries"))
        .filter(count__gte=F("max_entrants"))
    )


def events_round_over() -> QuerySet[Event]:
    """Running events whose current round has no game still going (their task was lost)."""
    going = EventTable.objects.filter(
        event_id=OuterRef("pk"),
        round=OuterRef("current_round"),
        game__status__in=[Game.Status.OPEN, Game.Status.ACTIVE],
    )
    return Event.objects.filter(status=Event.Status.RUNNING).exclude(Exists(going))


def leagues() -> QuerySet[League]:
    return League.objects.annotate(member_count=Count("members")).order_by("name")


def current_season(league: League) -> Season | None:
    return league.seasons.order_by("-number").first()
