"""A player deletes their account: the one write that reaches every app, so it lives in the
site's top layer (`accounts` may import no app above it).

In one transaction, the player's row locked (as the games' writes that count a player's games
lock it: `games.services.setup`):

1. `accounts.deletion.account_erase`: personal data goes, the account is marked deleted, named
   "deleted player" from then on, and can no longer sign in or use a token;
2. `games.services.players.player_games_leave`: open games they created are cancelled,
   invitations declined, seats in others' open games given up, games in progress resigned,
   each through the game's own service (the others are told; the ratings follow the usual
   rules); finished games keep the seat, shown as "deleted player"; before that, they leave
   every event they are in (`events.services.player_events_leave`: an entry before the start
   goes, one in a running event is withdrawn and its games resigned, its results standing) and
   the events they organise are the site's from then on;
3. the notifications to them go, and those to others not sent yet name them "deleted player";
4. the analyses they asked for no longer say who asked;
5. their private notes on games go, and their calendar feed;
6. their chat messages go from every game if they chose so, else they stay, shown as by
   "deleted player"; their chat settings, mutes and reports go
   (`chat.services.chat_forget_player`).

Ratings stay (the others' ratings were computed with them); a deleted player is on no
leaderboard (`ratings.selectors.leaderboard`).
"""

from __future__ import annotations

from django.db import transaction

from accounts.deletion import account_erase, deletion_password_check
from accounts.models import User
from analysis.services import analyses_forget_requester
from chat.services import chat_forget_player
from events.services import player_events_leave
from games.services.players import (
    player_calendar_feed_forget,
    player_games_leave,
    player_notes_forget,
)
from notifications.services import notifications_forget_player


def account_delete(*, user: User, password: object, chat_messages_removed: bool = False) -> None:
    """Delete `user`'s account, if `password` is theirs (else AccountDeletionRefused, and
    nothing changes), and their chat messages with it if `chat_messages_removed`. See the
    module docstring."""
    deletion_password_check(user=user, password=password)
    with transaction.atomic():
        locked = User.objects.select_related(None).select_for_update().get(pk=user.pk)
        if locked.deleted_at is not None:
            return
        old_username = locked.get_username()
        account_erase(user=locked)
        player_events_leave(user=locked)
        player_games_leave(user=locked)
        player_notes_forget(user_id=locked.pk)
        player_calendar_feed_forget(user_id=locked.pk)
        notifications_forget_player(
            user_id=locked.pk, old_username=old_username, new_username=locked.get_username()
        )
        analyses_forget_requester(user_id=locked.pk)
        chat_forget_player(user_id=locked.pk, messages_removed=chat_messages_removed)
