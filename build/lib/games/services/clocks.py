"""The players' clocks: when a turn ends, and vacations that stop a player's clocks. (The
server's move when a turn's time has run out is a move: `moves.timeouts_play`.)"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _

from accounts.models import Profile, User
from games.errors import InvalidAction
from games.models import Game, Seat
from games.selectors import seats_to_move


def turn_deadline(game: Game, seats: list[Seat], to_move: Collection[int]) -> datetime:
    """When the turn of the players at `to_move` ends: the game's pace from now, and, if one of
    them is on vacation, the rest of their vacation on top (their clock is stopped)."""
    now = timezone.now()
    paused = [
        seat.user.profile.vacation_left(now)
        for seat in seats
        if seat.position in to_move and seat.user is not None and not seat.played_by_computer
    ]
    return now + timedelta(days=game.days_per_move) + max(paused, default=timedelta(0))


def vacation_start(*, user: User, days: Any) -> Profile:
    """Stop the player's clocks for `days` days from now: every deadline of theirs moves by that
    much (the turns they are to move in now, and, through `turn_deadline`, the turns that come
    to them meanwhile), and opponents see until when they are away. Counted against
    VACATION_DAYS_A_YEAR in the calendar year it starts; a player back early ends it
    (`vacation_end`) and gets back the days not taken."""
    now = timezone.now()
    with transaction.atomic():
        profile = Profile.objects.select_for_update().get(user=user)
        if profile.vacation_until is not None and profile.on_vacation(now):
            raise InvalidAction(
                _("You are on vacation already, until %(until)s UTC.")
                % {"until": date_format(profile.vacation_until, "j F Y, H:i")},
                status_code=409,
            )
        left = profile.vacation_days_left(now.year)
        if type(days) is not int or not 1 <= days <= left:
            raise InvalidAction(
                _(
                    "A vacation is 1 to %(left)s days this year (you have %(left)s left), not"
                    " %(days)s."
                )
                % {"left": left, "days": repr(days)}
                if left
                else _("You have no vacation days left this year.")
            )
        pause = timedelta(days=days)
        waiting = seats_to_move().filter(user=user, game__status=Game.Status.ACTIVE)
        games = Game.objects.select_for_update().filter(
            pk__in=waiting.values("game_id"), turn_deadline__isnull=False
        )
        # Locked first, like every write to a game, so a move in between cannot undo it.
        Game.objects.filter(pk__in=[g.pk for g in games]).update(
            turn_deadline=F("turn_deadline") + pause
        )
        if profile.vacation_year != now.year:
            profile.vacation_year, profile.vacation_days_used = now.year, 0
        profile.vacation_until = now + pause
        profile.vacation_days_used += days
        # Saving the profile gives each of the player's games a new version (games.apps), so
        # boards show the vacation at once.
        profile.save(update_fields=["vacation_until", "vacation_year", "vacation_days_used"])
    return profile


def vacation_end(*, user: User) -> tuple[Profile, int]:
    """End the player's vacation now, before its time: their clocks run again, every deadline
    of theirs moves back by the time the vacation had left (so a turn's time is counted as if
    the vacation had been booked to end now), and the whole days not taken are theirs again
    this year. A day begun counts as taken: a 5-day vacation ended after 1 day and 3 hours took
    2 days, and gives 3 back. Returns the profile and the days given back."""
    now = timezone.now()
    with transaction.atomic():
        profile = Profile.objects.select_for_update().get(user=user)
        if profile.vacation_until is None or not profile.on_vacation(now):
            raise InvalidAction(_("You are not on vacation."), status_code=409)
        left = profile.vacation_until - now
        waiting = seats_to_move().filter(user=user, game__status=Game.Status.ACTIVE)
        games = Game.objects.select_for_update().filter(
            pk__in=waiting.values("game_id"), turn_deadline__isnull=False
        )
        # Locked first, like every write to a game. The deadlines set while the player was
        # away (`turn_deadline`) carry the vacation's rest too, so they come back the same way.
        Game.objects.filter(pk__in=[g.pk for g in games]).update(
            turn_deadline=F("turn_deadline") - left
        )
        given_back = min(left.days, profile.vacation_days_used)
        profile.vacation_days_used -= given_back
        profile.vacation_until = now
        profile.save(update_fields=["vacation_until", "vacation_days_used"])
    return profile, given_back
