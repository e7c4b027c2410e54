"""A game's chat: its messages, and what players and admins do about them (mute, report, hide,
suspend). Who may read and write is `chat.selectors` / `chat.services`."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from games.models import Game


class Message(models.Model):
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+", db_index=False)
    # An account deletion keeps the user row (renamed): its messages then show "deleted player"
    # (`accounts.names.player_name`).
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chat_messages"
    )
    text = models.TextField()
    # The game's ply when the message was written: the replay shows it from there.
    ply = models.PositiveIntegerField()
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    hidden_at = models.DateTimeField(null=True, blank=True)
    hidden_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )

    class Meta:
        ordering = ["-id"]
        indexes = [
            # The newest messages of a game, and those before a cursor.
            models.Index(fields=["game", "-id"], name="chat_message_game_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.author_id} in {self.game_id} at ply {self.ply}"

    @property
    def is_hidden(self) -> bool:
        return self.hidden_at is not None


class Mute(models.Model):
    """`user` does not want to see a game's chat (`game`) or a player's messages (`muted`)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False
    )
    game = models.ForeignKey(
        Game, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    muted = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=(Q(game__isnull=True) & Q(muted__isnull=False))
                | (Q(game__isnull=False) & Q(muted__isnull=True)),
                name="chat_mute_game_or_player",
            ),
            models.UniqueConstraint(
                fields=["user", "game"], condition=Q(game__isnull=False), name="chat_mute_game_once"
            ),
            models.UniqueConstraint(
                fields=["user", "muted"],
                condition=Q(muted__isnull=False),
                name="chat_mute_player_once",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} mutes {self.game_id or self.muted_id}"


class Report(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", "open"
        RESOLVED = "resolved", "resolved"

    message = models.ForeignKey(Message, on_delete=models.CASCADE, related_name="reports")
    reporter = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False
    )
    reason = models.CharField(max_length=500)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            # Also the index of a reporter's reports (the daily limit counts them).
            models.UniqueConstraint(fields=["reporter", "message"], name="chat_report_once"),
        ]

    def __str__(self) -> str:
        return f"report of message {self.message_id} by {self.reporter_id}"


class Suspension(models.Model):
    """An admin took `user`'s chat away until `until`."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chat_suspensions"
    )
    until = models.DateTimeField()
    reason = models.CharField(max_length=500, blank=True, default="")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.user_id}'s chat suspended until {self.until}"


class Privacy(models.Model):
    """A player's chat setting: whether spectators may read the chat of their finished games
    (every player of a game must allow it). No row: not allowed."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chat_privacy"
    )
    spectators_may_read = models.BooleanField(default=False)

    def __str__(self) -> str:
        return f"{self.user_id}: spectators may read: {self.spectators_may_read}"
