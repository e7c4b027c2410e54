"""Writes to a game's chat: posting a message (checked, and limited per player), muting,
reporting, and the moderators' hiding and suspending."""

from __future__ import annotations

import datetime
import math
import unicodedata
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.locking import lock_player
from accounts.models import User
from chat import selectors, versions
from chat.errors import (
    ChatClosed,
    ChatError,
    ChatForbidden,
    ChatNotFound,
    ChatSuspended,
    ChatTooFast,
)
from chat.models import Message, Mute, Privacy, Report, Suspension
from games import effects

MAX_LENGTH = 500
# (how many, in how many seconds) a player may post: DB-counted, so they hold without Redis.
MESSAGE_LIMITS = ((10, 60), (200, 24 * 3600))
REPORTS_PER_DAY = 20
REASON_MAX_LENGTH = 500

# Characters that reorder the text around them (overrides and isolates): a message could make
# another player's name or words read backwards.
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def clean_text(text: Any, *, max_length: int = MAX_LENGTH) -> str:
    """The message as stored: plain text, stripped, with Windows line ends made plain; a
    `ChatError` saying what is wrong for an empty or too long text, a NUL or other control
    character (a newline is fine), or a bidirectional override or isolate."""
    if not isinstance(text, str):
        raise ChatError(_("Write a message as text."))
    text = text.replace("\r\n", "\n").replace("\r", "\n").strip()
    if not text:
        raise ChatError(_("Write a message first."))
    if len(text) > max_length:
        raise ChatError(
            _("A message has at most %(most)s characters; this one has %(count)s.")
            % {"most": max_length, "count": len(text)}
        )
    if "\x00" in text:
        raise ChatError(_("A message cannot contain a NUL character."))
    if any(c != "\n" and unicodedata.category(c) == "Cc" for c in text):
        raise ChatError(_("A message cannot contain control characters other than new lines."))
    if any(c in BIDI_CONTROLS for c in text):
        raise ChatError(
            _("A message cannot contain characters that change the direction of the text.")
        )
    return text


def _retry_after(oldest: datetime.datetime, window: int, now: datetime.datetime) -> int:
    return max(1, math.ceil((oldest + datetime.timedelta(seconds=window) - now).total_seconds()))


def _check_message_limits(user: User, now: datetime.datetime) -> None:
    for most, window in MESSAGE_LIMITS:
        since = now - datetime.timedelta(seconds=window)
        recent = list(
            Message.objects.filter(author=user, created_at__gt=since)
            .order_by("-created_at")
            .values_list("created_at", flat=True)[:most]
        )
        if len(recent) >= most:
            seconds = _retry_after(recent[-1], window, now)
            raise ChatTooFast(
                ngettext(
                    "You may send at most %(most)s message a minute: try again in %(seconds)s s.",
                    "You may send at most %(most)s messages a minute: try again in %(seconds)s s.",
                    most,
                )
                % {"most": most, "seconds": seconds}
                if window == 60
                else ngettext(
                    "You may send at most %(most)s message a day: try again in %(seconds)s s.",
                    "You may send at most %(most)s messages a day: try again in %(seconds)s s.",
                    most,
                )
                % {"most": most, "seconds": seconds},
                retry_after=seconds,
            )


MAX_ID = 2**63 - 1


def _row_id(value: Any) -> int | None:
    """A row id as given (a form field, a URL part), or None when it cannot be one."""
    text = str(value)
    if not text.isdigit() or int(text) > MAX_ID:
        return None
    return int(text)


def message_post(*, game_id: Any, user: User, text: Any) -> Message:
    """`user` writes `text` in the game's chat, at the game's ply now.

    Only the game's seated players, while the game is open or active and for
    `selectors.WRITE_DAYS_AFTER_FINISH` days after it finished, and not while a moderator
    suspended their chat; at most `MESSAGE_LIMITS`. The next "your turn" email carries it; the
    other players who turned chat emails on get one after the grace period (one for the
    messages written in it: `notifications.receivers.tell_players`)."""
    cleaned = clean_text(text)
    access = selectors.chat_access(game_id=game_id, viewer=user)
    if not access.is_player:
        raise ChatForbidden()
    if not access.can_write:
        raise ChatClosed()
    now = timezone.now()
    with transaction.atomic():
        # One author's posts one at a time, so that two at once cannot both pass the limits.
        lock_player(user.pk)
        if selectors.suspension_of(user=user, now=now) is not None:
            raise ChatSuspended()
        _check_message_limits(user, now)
        message = Message.objects.create(
            game=access.game, author=user, text=cleaned, ply=access.game.ply
        )
        effects.tell_players(
            kind="chat_message",
            game=access.game,
            recipient_ids=selectors.chat_email_recipients(access=access, author_id=user.pk),
            repeatable=True,
            context={"first_message_id": message.pk},
        )
        _game_chat_changed(access.game.pk)
        return message


def mute_game(*, user: User, game_id: Any, muted: bool = True) -> None:
    """`user` mutes (or unmutes) a game's chat they may read."""
    access = selectors.chat_access(game_id=game_id, viewer=user)
    if muted:
        Mute.objects.get_or_create(user=user, game=access.game)
    else:
        Mute.objects.filter(user=user, game=access.game).delete()
    versions.user_changed(user.pk)


def mute_player(*, user: User, muted_id: Any, muted: bool = True) -> None:
    """`user` mutes (or unmutes) another player's messages, in every game."""
    other_id = _row_id(muted_id)
    other = None if other_id is None else User.objects.filter(pk=other_id).first()
    if other is None:
        raise ChatNotFound(_("No such player."))
    if other.pk == user.pk:
        raise ChatError(_("You cannot mute yourself."))
    if muted:
        Mute.objects.get_or_create(user=user, muted=other)
    else:
        Mute.objects.filter(user=user, muted=other).delete()
    versions.user_changed(user.pk)


def mute_player_named(*, user: User, username: str, muted: bool = True) -> None:
    """`mute_player` by the player's username (the API's `author_username`)."""
    other_id = User.objects.filter(username=username).values_list("pk", flat=True).first()
    if other_id is None:
        raise ChatNotFound(_("No such player."))
    mute_player(user=user, muted_id=other_id, muted=muted)


def message_report(*, user: User, message_id: Any, reason: Any) -> Report:
    """`user` reports a message they can read, once, with a reason; at most `REPORTS_PER_DAY`
    reports a day. Lands in the admin's queue."""
    if not isinstance(reason, str) or not reason.strip():
        raise ChatError(_("Say why you report this message."))
    reason = clean_text(reason, max_length=REASON_MAX_LENGTH)
    row_id = _row_id(message_id)
    message = None if row_id is None else Message.objects.filter(pk=row_id).first()
    if message is None:
        raise ChatNotFound(_("No such message."))
    selectors.chat_access(game_id=message.game_id, viewer=user)
    if message.author_id == user.pk:
        raise ChatError(_("You cannot report your own message."))
    now = timezone.now()
    day_ago = now - datetime.timedelta(days=1)
    with transaction.atomic():
        lock_player(user.pk)
        if Report.objects.filter(reporter=user, message=message).exists():
            raise ChatError(_("You have reported this message already."), status_code=409)
        recent = list(
            Report.objects.filter(reporter=user, created_at__gt=day_ago)
            .order_by("-created_at")
            .values_list("created_at", flat=True)[:REPORTS_PER_DAY]
        )
        if len(recent) >= REPORTS_PER_DAY:
            raise ChatTooFast(
                _("You may report at most %(most)s messages a day.") % {"most": REPORTS_PER_DAY},
                retry_after=_retry_after(recent[-1], 24 * 3600, now),
            )
        try:
            with transaction.atomic():
                return Report.objects.create(message=message, reporter=user, reason=reason)
        except IntegrityError:
            raise ChatError(_("You have reported this message already."), status_code=409) from None


def message_hide(*, message: Message, moderator: User) -> None:
    """A moderator hides a message: it shows as "message hidden by a moderator"; its reports
    are resolved."""
    Message.objects.filter(pk=message.pk, hidden_at__isnull=True).update(
        hidden_at=timezone.now(), hidden_by=moderator
    )
    Report.objects.filter(message=message).update(status=Report.Status.RESOLVED)
    versions.game_changed(message.game_id)
    effects.board_side_changed(game_id=message.game_id)


def chat_suspend(*, user: User, days: int, moderator: User, reason: str = "") -> Suspension:
    """A moderator takes `user`'s chat away for `days` days."""
    if days < 1:
        raise ChatError(_("Suspend for one day or more."))
    return Suspension.objects.create(
        user=user,
        until=timezone.now() + datetime.timedelta(days=days),
        reason=reason[:500],
        created_by=moderator,
    )


def privacy_set(*, user: User, spectators_may_read: bool) -> None:
    """Whether spectators may read the chat of `user`'s finished games (every player must
    allow it)."""
    Privacy.objects.update_or_create(
        user=user, defaults={"spectators_may_read": spectators_may_read}
    )
    versions.user_changed(user.pk)
    versions.settings_changed()


def block_changed(sender: Any, instance: Any, **kwargs: Any) -> None:
    """A block made or lifted (`accounts.models.Block`'s signals): both players' panels show
    each other's messages, or not, from now."""
    versions.user_changed(instance.blocker_id)
    versions.user_changed(instance.blocked_id)


def chat_forget_player(*, user_id: Any, messages_removed: bool = False) -> None:
    """An account deletion: the player's chat settings, mutes and reports go. Their messages go
    too if they chose so (`messages_removed`), from every game's chat and from the emails not
    sent yet; else they stay, shown as by "deleted player" (`accounts.names.player_name`)."""
    Privacy.objects.filter(user_id=user_id).delete()
    Mute.objects.filter(Q(user_id=user_id) | Q(muted_id=user_id)).delete()
    Report.objects.filter(reporter_id=user_id).delete()
    if messages_removed:
        messages = Message.objects.filter(author_id=user_id)
        game_ids = set(messages.values_list("game_id", flat=True))
        messages.delete()  # and the others' reports of them
        for game_id in game_ids:
            _game_chat_changed(game_id)
    versions.user_changed(user_id)
    versions.settings_changed()


def _game_chat_changed(game_id: Any) -> None:
    """After a write to the game's chat: now, and again once committed, so that a page that
    read the chat in between is not read again; and the game's open boards refresh their chat."""
    versions.game_changed(game_id)
    transaction.on_commit(lambda: versions.game_changed(game_id))
    transaction.on_commit(lambda: effects.board_side_changed(game_id=game_id))
