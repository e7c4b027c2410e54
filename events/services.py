"""The events' writes: created, entered, left, started, moved on round by round, finished.

Every write that touches an event runs in one transaction that holds the event's row
(`lock_event`), so two registrations for the last place, or two workers moving the same round
on, are one after the other; the second sees what the first did. The tables are ordinary games
(`games.services.game_create_seated`), and what ends them is the games' own path: the event
reads their results (`selectors.table_results`) and, once a round's are all in, seats the next
one (`event_advance`, sent by `receivers.game_finished` and found again by the sweep).
"""

from __future__ import annotations

import contextlib
import hmac
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.locking import lock_player
from accounts.models import User
from core.tasks import send
from events import formats, telling
from events.errors import (
    AlreadyEntered,
    EventConflict,
    EventFull,
    EventLimit,
    EventNotFound,
    InvalidEvent,
    NotEligible,
    NotEntered,
    NotOrganiser,
    RegistrationClosed,
)
from events.models import (
    CODE_MAX,
    DESCRIPTION_MAX,
    ENTRANTS_MAX,
    NAME_MAX,
    ROUND_ROBIN_MAX,
    Bye,
    Entry,
    Event,
    EventTable,
)
from events.selectors import (
    entrant_rating,
    finished_games_count,
    same_person,
    table_results,
)
from games.errors import GameError
from games.models import DAYS_PER_MOVE_CHOICES, Game
from games.services.endings import game_resign
from games.services.setup import game_create_seated

ADVANCE_TASK = "events.tasks.event_advance"
START_TASK = "events.tasks.event_start"
SWISS_ROUNDS_MAX = 20
STARTS_AHEAD_MAX = timedelta(days=90)


def lock_event(event_id: Any) -> Event:
    """The event, its row held until the transaction ends; EventNotFound for an unknown id."""
    try:
        return Event.objects.select_for_update().get(pk=int(event_id))
    except (Event.DoesNotExist, TypeError, ValueError, OverflowError):
        raise EventNotFound() from None


# -- settings -------------------------------------------------------------------------------


@dataclass(frozen=True)
class EventSettings:
    """What an organiser chooses for a new event (the form's and the API's fields)."""

    name: str
    format: str
    table_size: int
    max_entrants: int
    description: str = ""
    variant: str = Game.Variant.COLORED
    days_per_move: int = 3
    rated: bool = True
    rating_min: int | None = None
    rating_max: int | None = None
    min_games: int = 0
    invitation_code: str = ""
    starts_at: datetime | None = None
    rounds: int | None = None
    advance: int | None = None


def settings_problem(s: EventSettings, *, now: datetime) -> InvalidEvent | None:
    """What is wrong with `s`, as the error to raise; None when they make an event."""
    if not s.name.strip() or len(s.name) > NAME_MAX:
        return InvalidEvent(
            _("An event's name is 1 to %(most)s characters.") % {"most": NAME_MAX}, field="name"
        )
    if len(s.description) > DESCRIPTION_MAX:
        return InvalidEvent(
            _("A description is at most %(most)s characters.") % {"most": DESCRIPTION_MAX},
            field="description",
        )
    if s.format not in Event.Format.values:
        return InvalidEvent(
            _("The format is one of: %(formats)s.") % {"formats": ", ".join(Event.Format.values)},
            field="format",
        )
    if s.table_size not in (2, 3, 4):
        return InvalidEvent(_("A table seats 2, 3 or 4 players."), field="table_size")
    if s.variant not in Game.Variant.values:
        return InvalidEvent(_("The wall is colored or gray."), field="variant")
    if s.days_per_move not in [d for d, _label in DAYS_PER_MOVE_CHOICES]:
        return InvalidEvent(
            _("Days per move is one of %(days)s.")
            % {"days": ", ".join(str(d) for d, _label in DAYS_PER_MOVE_CHOICES)},
            field="days_per_move",
        )
    most = ROUND_ROBIN_MAX if s.format == Event.Format.ROUND_ROBIN else ENTRANTS_MAX
    least = max(s.table_size, 3 if s.format == Event.Format.ROUND_ROBIN else 2)
    if not least <= s.max_entrants <= most:
        return InvalidEvent(
            _("This event takes %(least)s to %(most)s players.") % {"least": least, "most": most},
            field="max_entrants",
        )
    if s.rating_min is not None and s.rating_max is not None and s.rating_min > s.rating_max:
        return InvalidEvent(_("The lowest rating is above the highest."), field="rating_min")
    if len(s.invitation_code) > CODE_MAX or (
        s.invitation_code and not s.invitation_code.isprintable()
    ):
        return InvalidEvent(
            _("An invitation code is at most %(most)s printable characters.") % {"most": CODE_MAX},
            field="invitation_code",
        )
    if s.starts_at is not None:
        if s.starts_at <= now:
            return InvalidEvent(_("The start is in the past."), field="starts_at")
        if s.starts_at > now + STARTS_AHEAD_MAX:
            return InvalidEvent(
                _("An event starts within %(days)s days.") % {"days": STARTS_AHEAD_MAX.days},
                field="starts_at",
            )
    if s.format == Event.Format.SWISS and not (
        s.rounds is not None and 1 <= s.rounds <= SWISS_ROUNDS_MAX
    ):
        return InvalidEvent(
            _("A Swiss has 1 to %(most)s rounds.") % {"most": SWISS_ROUNDS_MAX}, field="rounds"
        )
    if s.format == Event.Format.ELIMINATION and not (
        s.advance is not None and 1 <= s.advance < s.table_size
    ):
        return InvalidEvent(
            _("1 to %(most)s players of each table go on.") % {"most": s.table_size - 1},
            field="advance",
        )
    return None


def event_create(*, organiser: User, settings_: EventSettings) -> Event:
    """A new event, open for registration, organised by `organiser` (within their limits:
    `EVENTS_MAX_OPEN` not yet finished, `EVENTS_MAX_PER_DAY` created in a day)."""
    now = timezone.now()
    problem = settings_problem(settings_, now=now)
    if problem is not None:
        raise problem
    with transaction.atomic():
        lock_player(organiser.pk)
        mine = Event.objects.filter(organiser=organiser)
        if (
            mine.filter(status__in=[Event.Status.REGISTRATION, Event.Status.RUNNING]).count()
            >= settings.EVENTS_MAX_OPEN
        ):
            raise EventLimit(
                _("You organise %(most)s events that have not finished: that is the most at once.")
                % {"most": settings.EVENTS_MAX_OPEN}
            )
        if mine.filter(created_at__gt=now - timedelta(days=1)).count() >= (
            settings.EVENTS_MAX_PER_DAY
        ):
            raise EventLimit(
                _("You created %(most)s events in the last day: that is the most a day.")
                % {"most": settings.EVENTS_MAX_PER_DAY}
            )
        s = settings_
        event = Event.objects.create(
            organiser=organiser,
            name=s.name.strip(),
            description=s.description.strip(),
            format=s.format,
            table_size=s.table_size,
            variant=s.variant,
            days_per_move=s.days_per_move,
            rated=s.rated,
            max_entrants=s.max_entrants,
            rating_min=s.rating_min,
            rating_max=s.rating_max,
            min_games=s.min_games,
            invitation_code=s.invitation_code,
            starts_at=s.starts_at,
            rounds=s.rounds if s.format == Event.Format.SWISS else None,
            advance=s.advance if s.format == Event.Format.ELIMINATION else None,
        )
    return event


# -- entering and leaving -------------------------------------------------------------------


def _require_registration(event: Event) -> None:
    if event.status != Event.Status.REGISTRATION:
        raise RegistrationClosed(
            _("Registration for this event is closed: it is %(status)s.")
            % {"status": event.get_status_display().lower()}
        )


def require_eligible(event: Event, user: User, code: str = "") -> None:
    """NotEligible unless `user` may enter `event` by its limits (its code, rating range, games
    finished) and no account of the same person is in it."""
    if event.invitation_code and not hmac.compare_digest(
        str(code).encode(), event.invitation_code.encode()
    ):
        raise NotEligible(_("This event is private: its invitation code is needed to enter."))
    rating = entrant_rating(user)
    if event.rating_min is not None and rating < event.rating_min:
        raise NotEligible(
            _("This event is for ratings of %(least)s and up; yours is %(rating)s.")
            % {"least": event.rating_min, "rating": round(rating)}
        )
    if event.rating_max is not None and rating > event.rating_max:
        raise NotEligible(
            _("This event is for ratings up to %(most)s; yours is %(rating)s.")
            % {"most": event.rating_max, "rating": round(rating)}
        )
    if event.min_games and finished_games_count(user) < event.min_games:
        raise NotEligible(
            _("This event is for players who have finished %(games)s games.")
            % {"games": event.min_games}
        )
    others = Entry.objects.filter(event=event, withdrawn_at__isnull=True).exclude(user=user)
    if same_person(user, others.values_list("user_id", flat=True)):
        raise NotEligible(_("Another account of yours is in this event already."))


def entry_register(*, event_id: Any, user: User, code: str = "") -> Entry:
    """Enter `user` into the event open for registration; it starts once full when it has no
    start date."""
    with transaction.atomic():
        event = lock_event(event_id)
        _require_registration(event)
        if Entry.objects.filter(event=event, user=user).exists():
            raise AlreadyEntered()
        if Entry.objects.filter(event=event).count() >= event.max_entrants:
            raise EventFull()
        require_eligible(event, user, code)
        entry = Entry.objects.create(event=event, user=user, rating=entrant_rating(user))
        telling.tell(kind=telling.ENTERED, event=event, recipient_ids=[user.pk])
        if event.starts_at is None and (
            Entry.objects.filter(event=event).count() >= event.max_entrants
        ):
            transaction.on_commit(lambda: send(START_TASK, [event.pk]))
    return entry


def _leave(event: Event, user_id: int, *, removed: bool) -> None:
    """`user_id` leaves `event`: before the start, their entry is gone; once it runs, the entry
    is kept, marked, and their games of it still going are resigned (the others play on)."""
    entry = Entry.objects.filter(event=event, user_id=user_id).first()
    if entry is None or entry.withdrawn_at is not None:
        raise NotEntered()
    if event.status == Event.Status.REGISTRATION:
        entry.delete()
        return
    if event.status != Event.Status.RUNNING:
        raise EventConflict(
            _("This event is %(status)s: nobody leaves it now.")
            % {"status": event.get_status_display().lower()}
        )
    entry.withdrawn_at = timezone.now()
    entry.removed = removed
    entry.save(update_fields=["withdrawn_at", "removed"])
    player = User.objects.get(pk=user_id)
    going = EventTable.objects.filter(
        event=event,
        game__status=Game.Status.ACTIVE,
        game__seats__user_id=user_id,
        game__seats__resigned_at__isnull=True,
    ).values_list("game_id", flat=True)
    for game_id in list(going):
        # One finished or resigned meanwhile has nothing left to give up.
        with contextlib.suppress(GameError):
            game_resign(game_id=game_id, user=player)


def entry_withdraw(*, event_id: Any, user: User) -> None:
    """`user` leaves the event (see `_leave`)."""
    with transaction.atomic():
        event = lock_event(event_id)
        _leave(event, user.pk, removed=False)


def entry_remove(*, event_id: Any, organiser: User, username: str) -> None:
    """The organiser takes a player out of their event (see `_leave`)."""
    with transaction.atomic():
        event = lock_event(event_id)
        if event.organiser_id != organiser.pk:
            raise NotOrganiser()
        user_id = (
            Entry.objects.filter(event=event, user__username__iexact=username)
            .values_list("user_id", flat=True)
            .first()
        )
        if user_id is None:
            raise NotEntered(_("%(name)s is not registered for this event.") % {"name": username})
        _leave(event, user_id, removed=True)


def event_cancel(*, event_id: Any, organiser: User) -> Event:
    """The organiser calls off their event before it starts; those registered are told."""
    with transaction.atomic():
        event = lock_event(event_id)
        if event.organiser_id != organiser.pk:
            raise NotOrganiser()
        if event.status != Event.Status.REGISTRATION:
            raise EventConflict(
                _("Only an event that has not started can be cancelled; this one is %(status)s.")
                % {"status": event.get_status_display().lower()}
            )
        _cancel(event)
    return event


def _cancel(event: Event) -> None:
    event.status = Event.Status.CANCELLED
    event.finished_at = timezone.now()
    event.save(update_fields=["status", "finished_at"])
    telling.tell(
        kind=telling.CANCELLED,
        event=event,
        recipient_ids=list(Entry.objects.filter(event=event).values_list("user_id", flat=True)),
    )


def player_events_leave(*, user: User) -> None:
    """A player whose account goes: they leave every event they are in (their games of them
    resigned, as the account's games are) and organise none."""
    event_ids = Entry.objects.filter(
        user=user,
        withdrawn_at__isnull=True,
        event__status__in=[Event.Status.REGISTRATION, Event.Status.RUNNING],
    ).values_list("event_id", flat=True)
    for event_id in list(event_ids):
        with transaction.atomic():
            event = lock_event(event_id)
            with contextlib.suppress(NotEntered, EventConflict):
                _leave(event, user.pk, removed=False)
    Event.objects.filter(organiser=user).update(organiser=None)


# -- starting and moving on ----------------------------------------------------------------


def _entrants(event: Event) -> list[formats.Entrant]:
    """The event's players still in it, best rated first."""
    rows = Entry.objects.filter(event=event, withdrawn_at__isnull=True).values_list(
        "user_id", "rating"
    )
    return sorted(
        (formats.Entrant(id=user_id, rating=rating) for user_id, rating in rows),
        key=lambda e: (-e.rating, e.id),
    )


def _seat_round(
    event: Event, number: int, tables: Sequence[formats.Table], byes: Sequence[int]
) -> None:
    """Create round `number`'s games, one a table, and its byes."""
    users = User.objects.in_bulk({u for table in tables for u in table})
    for position, table in enumerate(tables, 1):
        game = game_create_seated(
            players=[users[u] for u in table],
            variant=event.variant,
            days_per_move=event.days_per_move,
            rated=event.rated,
            creator=event.organiser,
        )
        EventTable.objects.create(
            event=event, round=number, number=position, game=game, players=list(table)
        )
    Bye.objects.bulk_create([Bye(event=event, round=number, user_id=u) for u in byes])
    event.current_round = number
    event.save(update_fields=["current_round"])


def too_few(event: Event, count: int) -> bool:
    """Too few players to play the event's format."""
    least = max(event.table_size, 3 if event.format == Event.Format.ROUND_ROBIN else 2)
    return count < least


def event_start(*, event_id: Any) -> Event:
    """Start the event if it is due (its start date passed, or it is full and has none):
    seat its first round (a round robin's every table), or call it off with too few players.
    Safe to run twice: an event that started already is left as it is."""
    with transaction.atomic():
        event = lock_event(event_id)
        if event.status != Event.Status.REGISTRATION:
            return event
        count = Entry.objects.filter(event=event).count()
        due = (event.starts_at is not None and event.starts_at <= timezone.now()) or (
            event.starts_at is None and count >= event.max_entrants
        )
        if not due:
            return event
        if too_few(event, count):
            _cancel(event)
            return event
        # Seeded by the ratings they have now, not those they entered with.
        entries = list(Entry.objects.filter(event=event).select_related("user"))
        for entry in entries:
            entry.rating = entrant_rating(entry.user)
        Entry.objects.bulk_update(entries, ["rating"])
        event.status = Event.Status.RUNNING
        event.started_at = timezone.now()
        event.save(update_fields=["status", "started_at"])
        entrants = _entrants(event)
        if event.format == Event.Format.ROUND_ROBIN:
            _seat_round(
                event, 1, formats.round_robin([e.id for e in entrants], event.table_size), ()
            )
        elif event.format == Event.Format.SWISS:
            first = formats.swiss_round(entrants, [], table_size=event.table_size)
            _seat_round(event, 1, first.tables, first.byes)
        else:
            stage = formats.elimination_stage(
                [e.id for e in entrants], table_size=event.table_size, advance=event.advance or 1
            )
            _seat_round(event, 1, stage.tables, stage.byes)
        telling.tell(kind=telling.STARTED, event=event, recipient_ids=[e.id for e in entrants])
    return event


def event_advance(*, event_id: Any) -> Event:
    """Once every table of the event's current round has ended: seat the next round (Swiss),
    the next stage (elimination), or finish the event. Safe to run twice or at once: under the
    event's lock, a round that is not over, or is over and moved on already, is left alone."""
    with transaction.atomic():
        event = lock_event(event_id)
        if event.status != Event.Status.RUNNING:
            return event
        current = EventTable.objects.filter(event=event, round=event.current_round)
        if current.exclude(game__status__in=[Game.Status.FINISHED, Game.Status.ABORTED]).exists():
            return event
        nxt = _next_round(event)
        if nxt is None:
            event.status = Event.Status.FINISHED
            event.finished_at = timezone.now()
            event.save(update_fields=["status", "finished_at"])
            telling.tell(
                kind=telling.FINISHED,
                event=event,
                recipient_ids=list(
                    Entry.objects.filter(event=event).values_list("user_id", flat=True)
                ),
            )
            return event
        _seat_round(event, event.current_round + 1, nxt.tables, nxt.byes)
        telling.tell(
            kind=telling.NEW_ROUND,
            event=event,
            recipient_ids=[e for t in nxt.tables for e in t] + list(nxt.byes),
        )
    return event


def _next_round(event: Event) -> formats.Round | None:
    """The round after the current one, or None when the event is over."""
    if event.format == Event.Format.ROUND_ROBIN:
        return None
    entrants = _entrants(event)
    results = table_results(event)
    byes = list(Bye.objects.filter(event=event).order_by("round").values_list("user_id", flat=True))
    if event.format == Event.Format.SWISS:
        if event.current_round >= (event.rounds or 1) or len(entrants) < event.table_size:
            return None
        return formats.swiss_round(entrants, results, table_size=event.table_size, byes=byes)
    # Elimination: the stage just played, rebuilt from its rows, decides who goes on.
    seeding = [
        e.id
        for e in sorted(
            (
                formats.Entrant(id=u, rating=r)
                for u, r in Entry.objects.filter(event=event).values_list("user_id", "rating")
            ),
            key=lambda e: (-e.rating, e.id),
        )
    ]
    stage = formats.Round(
        tables=tuple(
            tuple(t.players)
            for t in EventTable.objects.filter(event=event, round=event.current_round)
        ),
        byes=tuple(
            Bye.objects.filter(event=event, round=event.current_round).values_list(
                "user_id", flat=True
            )
        ),
    )
    still_in = {e.id for e in entrants}
    going = [
        e
        for e in formats.going_on(stage, results, seeding, advance=event.advance or 1)
        if e in still_in
    ]
    if formats.is_final(stage) or len(going) < 2:
        return None
    return formats.elimination_stage(going, table_size=event.table_size, advance=event.advance or 1)


def game_finished(*, game_id: Any) -> None:
    """A game ended: if it is an event's table, the event may move on, once this commits."""
    event_id = EventTable.objects.filter(game_id=game_id).values_list("event_id", flat=True).first()
    if event_id is not None:
        transaction.on_commit(lambda: send(ADVANCE_TASK, [event_id]))
