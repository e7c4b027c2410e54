"""Reads of a game's chat: who may read and write it, and its newest messages as a viewer sees
them (mutes and blocks applied), in a fixed number of queries whatever the number of messages."""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from accounts.models import Block, User
from accounts.names import player_name, public_username
from chat.errors import ChatForbidden, ChatNotFound
from chat.models import Message, Mute, Privacy, Suspension
from games.errors import GameNotFound
from games.models import Game, LogEntry, Seat
from games.selectors import parse_game_id

PAGE_SIZE = 50
"""The messages one read returns at most (the newest; `before` pages back)."""

REPLAY_LIMIT = 1000
"""The messages the replay reads at most (the newest), to show each at its position."""

WRITE_DAYS_AFTER_FINISH = 7
"""Players may still write this many days after their game finished ("well played")."""


@dataclass(frozen=True)
class ChatAccess:
    game: Game
    player_ids: frozenset[int]  # the users seated at the game
    players: list[Seat]  # their seats, with their users
    is_player: bool
    can_write: bool  # the game takes messages now (not whether this player is suspended)
    game_muted: bool = False  # the viewer muted the game's chat
    muted_player_ids: frozenset[int] = frozenset()  # players the viewer muted
    viewer_allows_spectators: bool = False  # the viewer's own spectators setting
    human_seats: int = 0  # the seats for people (taken, invited or open), not the computer's


@dataclass(frozen=True)
class ChatLine:
    id: int
    author_name: str  # "" when hidden
    author_username: str | None
    is_viewer: bool
    text: str  # "" when hidden by a moderator
    hidden: bool
    ply: int
    created_at: datetime.datetime


@dataclass(frozen=True)
class ChatPage:
    lines: list[ChatLine]  # oldest first
    game_muted: bool  # the viewer muted this game's chat: no lines
    has_more: bool  # older messages than the first line exist
    muted_player_ids: frozenset[int] = frozenset()  # players whose messages the viewer muted


def chat_is_open(game: Game, *, now: datetime.datetime | None = None) -> bool:
    """Whether the game takes messages: open or active, or finished less than
    `WRITE_DAYS_AFTER_FINISH` days ago."""
    if game.status in (Game.Status.OPEN, Game.Status.ACTIVE):
        return True
    if game.status == Game.Status.FINISHED and game.finished_at is not None:
        now = now or timezone.now()
        return now - game.finished_at < datetime.timedelta(days=WRITE_DAYS_AFTER_FINISH)
    return False


def chat_access(*, game_id: Any, viewer: User | AnonymousUser | None) -> ChatAccess:
    """Who `viewer` is to the game's chat, in one query (the game's seats, with the game, their
    players, each player's spectators setting and the viewer's mutes): `ChatNotFound` for no
    such game, `ChatForbidden` for one who may not read it."""
    viewer_id = viewer.pk if viewer is not None and viewer.is_authenticated else None
    try:
        seats = Seat.objects.filter(game_id=parse_game_id(game_id))
    except GameNotFound:
        raise ChatNotFound() from None
    seats = seats.select_related("game", "user__profile").annotate(
        allows_spectators=Exists(
            Privacy.objects.filter(user_id=OuterRef("user_id"), spectators_may_read=True)
        )
    )
    if viewer_id is not None:
        seats = seats.annotate(
            viewer_muted_game=Exists(
                Mute.objects.filter(user_id=viewer_id, game_id=OuterRef("game_id"))
            ),
            muted_by_viewer=Exists(
                Mute.objects.filter(user_id=viewer_id, muted_id=OuterRef("user_id"))
            ),
        )
    found: list[Any] = list(seats)  # every game has its seats (with their annotations)
    if not found:
        raise ChatNotFound()
    game = found[0].game
    players = [
        s for s in found if s.user_id is not None and s.invitation != Seat.Invitation.PENDING
    ]
    player_ids = frozenset(s.user_id for s in players if s.user_id is not None)
    is_player = viewer_id is not None and viewer_id in player_ids
    spectators_may_read = bool(players) and all(s.allows_spectators for s in players)
    if not is_player and (game.status != Game.Status.FINISHED or not spectators_may_read):
        raise ChatForbidden()
    return ChatAccess(
        game=game,
        player_ids=player_ids,
        players=players,
        is_player=is_player,
        can_write=is_player and chat_is_open(game),
        game_muted=viewer_id is not None and found[0].viewer_muted_game,
        muted_player_ids=frozenset(
            s.user_id for s in players if viewer_id is not None and s.muted_by_viewer
        ),
        viewer_allows_spectators=any(
            s.allows_spectators for s in players if s.user_id == viewer_id
        ),
        human_seats=sum(1 for s in found if s.kind == Seat.Kind.HUMAN),
    )


def chat_page(
    *,
    access: ChatAccess,
    viewer: User | AnonymousUser | None,
    before: int | None = None,
    after: int | None = None,
    up_to_ply: int | None = None,
    since: datetime.datetime | None = None,
    limit: int = PAGE_SIZE,
) -> ChatPage:
    """The newest `limit` messages of the game that `viewer` sees, oldest first: before the
    message id `before`, after `after` (new ones), written at or before `up_to_ply` (the
    replay). A viewer who muted the game sees none; a muted player's messages and those of a
    player blocked either way are left out. One query, whatever the number of messages."""
    if access.game_muted:
        return ChatPage(lines=[], game_muted=True, has_more=False)
    viewer_id = viewer.pk if viewer is not None and viewer.is_authenticated else None
    messages = Message.objects.filter(game=access.game).select_related("author__profile")
    if viewer_id is not None:
        messages = messages.exclude(
            author_id__in=Mute.objects.filter(user_id=viewer_id, muted__isnull=False).values(
                "muted_id"
            )
        ).exclude(
            Q(author_id__in=Block.objects.filter(blocker_id=viewer_id).values("blocked_id"))
            | Q(author_id__in=Block.objects.filter(blocked_id=viewer_id).values("blocker_id"))
        )
    if before is not None:
        messages = messages.filter(id__lt=before)
    if after is not None:
        messages = messages.filter(id__gt=after)
    if up_to_ply is not None:
        messages = messages.filter(ply__lte=up_to_ply)
    if since is not None:
        messages = messages.filter(created_at__gt=since)
    found = list(messages.order_by("-id")[: limit + 1])
    lines = [chat_line(m, viewer_id) for m in reversed(found[:limit])]
    return ChatPage(
        lines=lines,
        game_muted=False,
        has_more=len(found) > limit,
        muted_player_ids=access.muted_player_ids,
    )


def chat_email_recipients(*, access: ChatAccess, author_id: int) -> list[int]:
    """The players a new message by `author_id` may be emailed to (each one's choice applies
    when it is sent): the other seated players, less those who muted the game's chat or the
    author, and those blocked by the author or blocking them. One query."""
    others = access.player_ids - {author_id}
    if not others:
        return []
    muting = Mute.objects.filter(user_id=OuterRef("pk")).filter(
        Q(game_id=access.game.pk) | Q(muted_id=author_id)
    )
    blocking = Block.objects.filter(
        Q(blocker_id=OuterRef("pk"), blocked_id=author_id)
        | Q(blocker_id=author_id, blocked_id=OuterRef("pk"))
    )
    return list(
        User.objects.filter(pk__in=others)
        .filter(~Exists(muting), ~Exists(blocking))
        .order_by("pk")
        .values_list("pk", flat=True)
    )


def messages_for_email(*, game: Game, user_id: Any, first_id: int) -> list[ChatLine]:
    """The others' messages that `user_id` sees in the game from the message `first_id` on,
    the newest `EMAIL_LINES`, hidden ones left out: for their chat email, which collapses the
    messages of its grace period into one."""
    user = User.objects.filter(pk=user_id).first()
    if user is None:
        return []
    try:
        access = chat_access(game_id=game.pk, viewer=user)
    except (ChatForbidden, ChatNotFound):
        return []
    page = chat_page(access=access, viewer=user, after=first_id - 1, limit=EMAIL_LINES)
    return [line for line in page.lines if not line.is_viewer and not line.hidden]


EMAIL_LINES = 20
"""The messages a "your turn" email carries at most (the newest)."""


def messages_since_last_move(*, game: Game, user_id: Any) -> list[ChatLine]:
    """The others' messages in the game that `user_id` sees, written since their last move
    (since the game started, before their first), the newest `EMAIL_LINES`, hidden ones left
    out: for their "your turn" email. Four queries."""
    user = User.objects.filter(pk=user_id).first()
    if user is None:
        return []
    try:
        access = chat_access(game_id=game.pk, viewer=user)
    except (ChatForbidden, ChatNotFound):
        return []
    position = next((s.position for s in access.players if s.user_id == user.pk), None)
    last_move = (
        LogEntry.objects.filter(game_id=game.pk, kind=LogEntry.Kind.MOVE, player=position)
        .order_by("-number")
        .values_list("created_at", flat=True)
        .first()
    )
    page = chat_page(access=access, viewer=user, since=last_move, limit=EMAIL_LINES)
    return [line for line in page.lines if not line.is_viewer and not line.hidden]


def export_messages(*, game: Game) -> list[dict[str, Any]] | None:
    """A finished game's chat for its export, when every player let spectators read it (an
    export is public), hidden messages left out; else None. Two queries."""
    try:
        chat_access(game_id=game.pk, viewer=None)
    except (ChatForbidden, ChatNotFound):
        return None
    return [
        {
            "author": player_name(message.author),
            "text": message.text,
            "ply": message.ply,
            "created_at": message.created_at,
        }
        for message in Message.objects.filter(game=game, hidden_at__isnull=True)
        .select_related("author__profile")
        .order_by("id")
    ]


def chat_line(message: Message, viewer_id: int | None) -> ChatLine:
    hidden = message.is_hidden
    return ChatLine(
        id=message.pk,
        author_name="" if hidden else player_name(message.author),
        author_username=None if hidden else public_username(message.author),
        is_viewer=message.author_id == viewer_id,
        text="" if hidden else message.text,
        hidden=hidden,
        ply=message.ply,
        created_at=message.created_at,
    )


def suspension_of(*, user: User, now: datetime.datetime | None = None) -> Suspension | None:
    """The player's chat suspension in force, if any (the one ending last)."""
    return (
        Suspension.objects.filter(user=user, until__gt=now or timezone.now())
        .order_by("-until")
        .first()
    )


def messages_of(*, user: User) -> list[dict[str, Any]]:
    """The player's own messages, for their data download."""
    return [
        {
            "game": str(game_id),
            "ply": ply,
            "text": text,
            "created_at": created_at.isoformat(),
            "hidden_by_moderator": hidden_at is not None,
        }
        for game_id, ply, text, created_at, hidden_at in Message.objects.filter(author=user)
        .order_by("id")
        .values_list("game_id", "ply", "text", "created_at", "hidden_at")
    ]


def spectators_may_read(*, user_id: Any) -> bool:
    """Whether the player lets spectators read the chat of their finished games."""
    return Privacy.objects.filter(user_id=user_id, spectators_may_read=True).exists()
