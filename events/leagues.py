"""Leagues: a player joins and leaves; a season starts and, once over, rolls over to the next
(the writes); and what the pages and the API read of them (the reads).

A season's divisions are ordinary events (a round robin "all at once", `Event.season` and
`Event.level` set, no organiser): they are created with their entries and started by
`services.event_start`, which seats them as it seats any round robin, and they finish as any
event does. A season is over once every division has finished, or at its `ends_at` (a division
still playing then is ranked as it stands; its games play on, and count for ratings, but no
longer for the league). The next season is formed by `events.formats.league.next_divisions`
from the final standings (`selectors.standings_of`) and the members still registered.

Every write holds the league's row (`lock_league`), so a join, a leave and a rollover are one
after the other: the rollover reads the members once, and a second rollover of the same season
finds it closed and forms nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.db.models import Count, Exists, OuterRef, Q, QuerySet
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.models import User
from events import formats, selectors, services
from events.errors import (
    AlreadyEntered,
    EventConflict,
    EventError,
    EventLimit,
    NotEligible,
    NotEntered,
)
from events.formats.league import DIVISION_MIN, next_divisions
from events.models import NAME_MAX, Entry, Event, League, LeagueMember, Season

JOINS_PER_DAY = 10
"""How often one player may join leagues in a day (joining and leaving again and again is
the only thing a member can repeat)."""
HISTORY_MAX = 50
"""The most divisions a player's league history shows, newest first."""
SLUG_MAX = League._meta.get_field("slug").max_length or 50
DIVISIONS_PER_PAGE = 6
"""Divisions with their standings on one page of a league's page."""


class LeagueNotFound(EventError):
    status_code = 404
    code = "league_not_found"
    default_message = gettext_lazy("There is no such league.")


# -- reads ------------------------------------------------------------------------------------


def leagues_list() -> QuerySet[League]:
    """Every league by name, with its members counted (`member_count`)."""
    return League.objects.annotate(member_count=Count("members")).order_by("name", "pk")


def _is_slug(slug: Any) -> bool:
    """Whether `slug` could name a league: a string that PostgreSQL can compare (no NUL)."""
    return isinstance(slug, str) and 0 < len(slug) <= SLUG_MAX and "\x00" not in slug


def get_league(slug: Any) -> League | None:
    return leagues_list().filter(slug=slug).first() if _is_slug(slug) else None


def current_season(league: League) -> Season | None:
    """The league's latest season: the one running, or the last one played."""
    return Season.objects.filter(league=league).order_by("-number").first()


def is_member(league: League, user: User | Any) -> bool:
    if not getattr(user, "is_authenticated", False):
        return False
    return LeagueMember.objects.filter(league=league, user=user).exists()


def divisions_of(season: Season) -> QuerySet[Event]:
    """The season's divisions, top first."""
    return Event.objects.filter(season=season).order_by("level", "pk")


@dataclass(frozen=True)
class Division:
    event: Event
    lines: list[selectors.StandingsLine]


def divisions_with_standings(events: Sequence[Event]) -> list[Division]:
    return [Division(event, selectors.standings_of(event)) for event in events]


def division_of(season: Season, user: User | Any) -> Event | None:
    """The division of `season` that `user` plays in, if any."""
    if not getattr(user, "is_authenticated", False):
        return None
    return divisions_of(season).filter(entries__user=user).first()


@dataclass(frozen=True)
class HistoryLine:
    league: League
    season: Season
    division: Event
    rank: int | None  # None while the division has no result
    players: int


def league_history(user: User) -> list[HistoryLine]:
    """The divisions `user` played in, newest first (at most `HISTORY_MAX`), with where they
    stood in each (their final place once it finished)."""
    entries = (
        Entry.objects.filter(user=user, event__season__isnull=False)
        .select_related("event__season__league")
        .order_by("-event__season__starts_at", "-event__pk")[:HISTORY_MAX]
    )
    out = []
    for entry in entries:
        event = entry.event
        assert event.season is not None  # filtered so
        lines = selectors.standings_of(event)
        rank = next((line.row.rank for line in lines if line.user.pk == user.pk), None)
        played = any(line.row.played for line in lines)
        out.append(
            HistoryLine(
                league=event.season.league,
                season=event.season,
                division=event,
                rank=rank if played else None,
                players=len(lines),
            )
        )
    return out


def seasons_due(now: datetime) -> QuerySet[Season]:
    """Seasons not closed whose end came, or whose divisions have all finished."""
    playing = Event.objects.filter(season=OuterRef("pk")).exclude(
        status__in=[Event.Status.FINISHED, Event.Status.CANCELLED]
    )
    return (
        Season.objects.filter(closed_at__isnull=True)
        .filter(Q(ends_at__lte=now) | ~Exists(playing))
        .order_by("ends_at", "pk")
    )


# -- joining and leaving ---------------------------------------------------------------------


def lock_league(slug: Any) -> League:
    """The league, its row held until the transaction ends; LeagueNotFound for an unknown one."""
    league = (
        League.objects.select_for_update().filter(slug=slug).first() if _is_slug(slug) else None
    )
    if league is None:
        raise LeagueNotFound()
    return league


def _count_join(user: User) -> None:
    """EventLimit once `user` joined `JOINS_PER_DAY` times in a day (counted in the cache: with
    it away, joins are not counted, and the other checks still hold)."""
    key = f"leagues:joins:{user.pk}"
    cache.add(key, 0, timeout=24 * 3600)
    try:
        joins = cache.incr(key)
    except ValueError:  # gone between the two calls
        joins = 1
    if joins > JOINS_PER_DAY:
        raise EventLimit(
            _("You have joined leagues %(most)s times today: that is the most a day.")
            % {"most": JOINS_PER_DAY}
        )


def league_join(*, slug: Any, user: User) -> LeagueMember:
    """`user` joins the league: they play from its next season (or its first)."""
    with transaction.atomic():
        league = lock_league(slug)
        if LeagueMember.objects.filter(league=league, user=user).exists():
            raise AlreadyEntered(_("You are in this league already."))
        members = LeagueMember.objects.filter(league=league).values_list("user_id", flat=True)
        if selectors.same_person(user, members):
            raise NotEligible(_("Another account of yours is in this league already."))
        _count_join(user)
        return LeagueMember.objects.create(league=league, user=user)


def league_leave(*, slug: Any, user: User) -> None:
    """`user` leaves the league: they finish the season they play in (its division is an event
    like any other), but are not placed in the next one."""
    with transaction.atomic():
        league = lock_league(slug)
        deleted, _rows = LeagueMember.objects.filter(league=league, user=user).delete()
        if not deleted:
            raise NotEntered(_("You are not in this league."))


# -- seasons ---------------------------------------------------------------------------------


def _division_name(league: League, number: int, level: int) -> str:
    # Stored once for every reader: in the site's language, not the language of whoever's
    # request or sweep formed it.
    with translation.override(settings.LANGUAGE_CODE):
        suffix = _(" · season %(season)s, division %(level)s") % {
            "season": number,
            "level": level,
        }
    return league.name[: NAME_MAX - len(suffix)] + suffix


def _form_season(
    league: League, number: int, divisions: list[list[int]], ratings: dict[int, float]
) -> Season:
    """Season `number` of `league`, starting now, with `divisions` (top first) as running round
    robins: each created with its entries, then started by `services.event_start`."""
    now = timezone.now()
    season = Season.objects.create(
        league=league,
        number=number,
        starts_at=now,
        ends_at=now + timedelta(days=league.season_days),
    )
    for level, players in enumerate(divisions, 1):
        event = Event.objects.create(
            name=_division_name(league, number, level),
            format=Event.Format.ROUND_ROBIN,
            table_size=league.table_size,
            variant=league.variant,
            days_per_move=league.days_per_move,
            rated=True,
            max_entrants=len(players),
            starts_at=now,
            season=season,
            level=level,
        )
        Entry.objects.bulk_create(
            [Entry(event=event, user_id=u, rating=ratings[u]) for u in players]
        )
        # The start date has come: event_start seats the round robin now, as for any event.
        services.event_start(event_id=event.pk)
    return season


def _ratings(user_ids: Sequence[int]) -> dict[int, float]:
    users = User.objects.in_bulk(list(user_ids))
    return {pk: selectors.entrant_rating(user) for pk, user in users.items()}


def _too_few(count: int) -> EventConflict:
    return EventConflict(
        _("A season needs at least %(least)s players in the league; it has %(count)s.")
        % {"least": DIVISION_MIN, "count": count}
    )


def season_start(*, league: League) -> Season:
    """The league's first season (or a new start after one that had too few to go on), its
    members placed in divisions by rating alone."""
    with transaction.atomic():
        league = lock_league(league.slug)
        if Season.objects.filter(league=league, closed_at__isnull=True).exists():
            raise EventConflict(_("This league has a season running already."))
        members = list(LeagueMember.objects.filter(league=league).values_list("user_id", flat=True))
        if len(members) < DIVISION_MIN:
            raise _too_few(len(members))
        ratings = _ratings(members)
        divisions = next_divisions(
            [],
            frozenset(),
            [formats.Entrant(u, ratings[u]) for u in members],
            size=league.division_size,
            movers=league.movers,
        )
        last = Season.objects.filter(league=league).order_by("-number").first()
        return _form_season(league, (last.number if last else 0) + 1, divisions, ratings)


def season_rollover(*, season_id: Any) -> Season | None:
    """Close the season once it is over (every division finished, or its end come) and form the
    next from its final standings: the next season, or None when the season is not over yet or
    the league has too few members left to play one. Safe to run twice or at once: under the
    league's lock, a closed season is left as it is, and its next season given back."""
    try:
        league_id = Season.objects.filter(pk=int(season_id)).values_list("league_id", flat=True)[0]
    except (IndexError, TypeError, ValueError, OverflowError):
        raise LeagueNotFound(_("There is no such season.")) from None
    with transaction.atomic():
        # The league first, as a join does: the members read below cannot change meanwhile.
        league = League.objects.select_for_update().get(pk=league_id)
        season = Season.objects.select_for_update().get(pk=int(season_id))
        if season.closed_at is not None:
            return Season.objects.filter(league=league, number=season.number + 1).first()
        now = timezone.now()
        divisions = list(divisions_of(season))
        over = all(d.status in (Event.Status.FINISHED, Event.Status.CANCELLED) for d in divisions)
        if not over and season.ends_at > now:
            return None
        orders = [[line.user.pk for line in selectors.standings_of(d)] for d in divisions]
        season.closed_at = now
        season.save(update_fields=["closed_at"])
        members = list(LeagueMember.objects.filter(league=league).values_list("user_id", flat=True))
        if len(members) < DIVISION_MIN:
            return None
        played = {u for order in orders for u in order}
        ratings = _ratings(members)
        nxt = next_divisions(
            orders,
            frozenset(members),
            [formats.Entrant(u, ratings[u]) for u in members if u not in played],
            size=league.division_size,
            movers=league.movers,
        )
        return _form_season(league, season.number + 1, nxt, ratings)


def seasons_roll_over(now: datetime, *, batch: int) -> int:
    """The sweep's part: every season due rolled over (at most `batch`); how many."""
    due = list(seasons_due(now).values_list("pk", flat=True)[:batch])
    for season_id in due:
        season_rollover(season_id=season_id)
    return len(due)
