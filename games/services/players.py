"""What games keep of a player beyond their seats: their private notes on a game, their
calendar feed, the new version of their games when something games show of them changes, and
their leaving every game when they delete their account.

Notes: a player's private notes on a game are written by that player only, while they hold a
seat of it (a player who resigned or whose game ended keeps theirs). Nobody else learns whether
a game has notes: every refusal to someone without a seat is the game's 404.

Calendar feed (`models.CalendarFeed`): its secret address made, made anew (the old one stops
working at once) and turned off. Only the player acts on their own feed: the settings page's
forms name no feed, they act on the signed-in player's.

Versions: a game's version (`Game.updated_at`) is what every view and board cached for it is
keyed by: each write to the game gives it a new one, and so does a change, elsewhere, to what
it shows of its players (`games_touch_for_player`, called when a player or profile is saved:
`games.apps`).

Departures: a player leaves every game for good, because they deleted their account
(`azul_site.account_deletion`): each game is left through the service that leaves it for any
player, so that the others are told and the ratings follow the usual rules.

- a game they created that waits for players is cancelled (`game_cancel`);
- an invitation to a game waiting for players is declined (`invitation_respond`);
- a seat they took in another's game waiting for players is given up (`seat_give_up`): opened to
  the lobby again if they joined from it, or left declined (for its creator to decide) if they
  had accepted an invitation to it;
- a game in progress is resigned (`game_resign`);
- finished games keep their seat, which names them "deleted player" from now on.

Called inside the deletion's transaction, with the player's row locked and already marked
deleted (so every message these write names them "deleted player"). Each game is locked by its
own service, one at a time, as every write to a game locks it.
"""

from __future__ import annotations

import secrets
import unicodedata
from collections.abc import Callable, Iterable
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from games.errors import GameError, GameNotFound, InvalidAction
from games.models import CalendarFeed, Game, GameNote, InvitationDecline, Seat
from games.selectors.calendar import token_digest
from games.selectors.notes import seated
from games.services.endings import game_resign
from games.services.invitations import invitation_respond, tell_creator_declined
from games.services.playing import lock_game
from games.services.setup import game_cancel

# Notes.
# What a textarea may hold besides printable text: its line breaks and tabs.
ALLOWED_CONTROLS = frozenset("\n\t")


def note_text_clean(text: Any) -> str:
    """The note as it is kept (line breaks made "\\n"); InvalidAction (400) when it is not text,
    is too long or holds a control character other than a line break or a tab."""
    if not isinstance(text, str):
        raise InvalidAction(_("Notes must be text."))
    # Browsers send a textarea's line breaks as "\r\n".
    text = text.replace("\r\n", "\n")
    if len(text) > GameNote.MAX_LENGTH:
        raise InvalidAction(
            _("Notes can be at most %(limit)d characters long (these are %(length)d).")
            % {"limit": GameNote.MAX_LENGTH, "length": len(text)}
        )
    if any(unicodedata.category(c) == "Cc" and c not in ALLOWED_CONTROLS for c in text):
        raise InvalidAction(
            _("Notes cannot hold control characters other than line breaks and tabs.")
        )
    return text


def game_note_save(*, game_id: Any, user: User, text: Any) -> GameNote:
    """Keep `text` as `user`'s notes on the game (replacing what was there); GameNotFound when
    they hold no seat of it."""
    clean = note_text_clean(text)
    if not seated(game_id=game_id, user=user):
        raise GameNotFound()
    note, _created = GameNote.objects.update_or_create(
        game_id=game_id, user=user, defaults={"text": clean}
    )
    return note


def player_notes_forget(*, user_id: Any) -> None:
    """A player deletes their account: their notes go."""
    GameNote.objects.filter(user_id=user_id).delete()


# The calendar feed.
TOKEN_BYTES = 32
"""The token's randomness: 256 bits, 43 characters of URL-safe base64."""


def calendar_feed_renew(*, user: User) -> CalendarFeed:
    """Give `user`'s feed a new secret address: the first one, or one that replaces the old,
    which answers 404 from the moment this commits."""
    token = secrets.token_urlsafe(TOKEN_BYTES)
    feed, _created = CalendarFeed.objects.update_or_create(
        user=user,
        defaults={"token": token, "digest": token_digest(token), "created_at": timezone.now()},
    )
    return feed


def calendar_feed_turn_off(*, user: User) -> bool:
    """`user`'s feed has no address any more (the old one answers 404); whether there was one."""
    deleted, _by_model = CalendarFeed.objects.filter(user=user).delete()
    return bool(deleted)


def player_calendar_feed_forget(*, user_id: Any) -> None:
    """A player deletes their account: their feed goes (their row stays, marked deleted)."""
    CalendarFeed.objects.filter(user_id=user_id).delete()


# Versions.
# What a game shows of its players: the name (`accounts.names.player_name`) and that they are
# away (`vacation_until`). The viewer's language and time zone are part of the keys the views
# and boards are cached under, so a change of those needs no new version; nor do the email
# choices and the rest of a profile, nor a login.
USER_FIELDS_SHOWN = frozenset({"username"})
PROFILE_FIELDS_SHOWN = frozenset({"display_name", "vacation_until"})
# Set on the instance being saved, from `pre_save` to `post_save`.
_CHANGED = "_games_show_change"


def games_touch_for_player(*, user_id: Any) -> int:
    """Something games show of a player changed (their display name, username or vacation):
    give every game where they sit a new version, so that views and boards cached for the
    old one are not shown again. Returns the number of games."""
    return Game.objects.filter(seats__user_id=user_id).update(updated_at=timezone.now())


def _shown_fields_change(
    instance: Any, fields: frozenset[str], update_fields: Iterable[str] | None
) -> bool:
    """Whether saving `instance` changes one of `fields`: by the fields it saves when it names
    them (no query), else by the stored row (one query)."""
    if update_fields is not None:
        return not fields.isdisjoint(update_fields)
    stored = type(instance)._default_manager.filter(pk=instance.pk).values(*fields).first()
    return stored is None or any(stored[f] != getattr(instance, f) for f in fields)


def player_saving(
    sender: Any, instance: Any, raw: bool = False, update_fields: Any = None, **kwargs: Any
) -> None:
    """`pre_save` of a user or a profile: note whether the save changes what games show."""
    if raw or instance.pk is None:
        return  # a new player sits nowhere
    user_model = sender._meta.label == settings.AUTH_USER_MODEL
    fields = USER_FIELDS_SHOWN if user_model else PROFILE_FIELDS_SHOWN
    setattr(instance, _CHANGED, _shown_fields_change(instance, fields, update_fields))


def player_saved(sender: Any, instance: Any, created: bool, **kwargs: Any) -> None:
    """`post_save` of a user or a profile: a new version of their games if what games show of
    them changed."""
    if created or not instance.__dict__.pop(_CHANGED, False):
        return
    user_model = sender._meta.label == settings.AUTH_USER_MODEL
    games_touch_for_player(user_id=instance.pk if user_model else instance.user_id)


# Departures.
def seat_give_up(*, game_id: Any, user: User) -> None:
    """`user` gives up the seat they took in another player's game that waits for players:
    nothing to do if the game started or ended since, or they have no seat taken there."""
    with transaction.atomic():
        game = lock_game(game_id)
        seat = Seat.of_user(game.seat_list, user)
        if (
            game.status != Game.Status.OPEN
            or seat is None
            or seat.invitation == Seat.Invitation.PENDING
        ):
            return
        seat.user = None
        seat.deal_contribution = ""
        if seat.invitation == Seat.Invitation.ACCEPTED:
            # The creator chose this player: they choose again, as after a declined invitation.
            seat.invitation = Seat.Invitation.DECLINED
            seat.declined_by = user
            tell_creator_declined(game, seat, user)
        seat.save(update_fields=["user", "invitation", "declined_by", "deal_contribution"])
        game.save(update_fields=["updated_at"])


def player_games_leave(*, user: User) -> None:
    """`user` leaves every game that is not over (see the module docstring).

    A game that changed between the read and its service (another player's move ended it, the
    last seat was filled) makes that service refuse; the next pass reads the games again and
    leaves each as it is then. Each service runs in a savepoint of its own, so a refusal undoes
    nothing else."""
    for _attempt in range(3):
        left_all = True
        unfinished = Game.objects.filter(status__in=[Game.Status.OPEN, Game.Status.ACTIVE])
        created = unfinished.filter(status=Game.Status.OPEN, created_by=user)
        seats = Seat.objects.filter(user=user, game__in=unfinished, resigned_at__isnull=True)
        for game_id in created.values_list("pk", flat=True):
            left_all &= _leave(game_cancel, game_id=game_id, user=user)
        for seat in seats.select_related("game").order_by("game_id"):
            game = seat.game
            if game.status == Game.Status.ACTIVE:
                left_all &= _leave(game_resign, game_id=game.pk, user=user)
            elif seat.invitation == Seat.Invitation.PENDING:
                left_all &= _leave(invitation_respond, game_id=game.pk, user=user, accept=False)
            else:
                left_all &= _leave(seat_give_up, game_id=game.pk, user=user)
        if left_all:
            break
    # The invitations' cooldowns named them: nobody can invite a deleted player anyway.
    InvitationDecline.objects.filter(Q(invitee=user) | Q(inviter=user)).delete()


def _leave(service: Callable[..., Any], **arguments: Any) -> bool:
    try:
        service(**arguments)
    except GameError:
        return False
    return True
