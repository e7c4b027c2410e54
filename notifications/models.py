"""The notifications app's rows, all importable from here (Django finds the app's models in this
module): the shared ones below, and each channel's own (`push.models`, `webhooks.models`).

- `Notification`: one thing to tell one player (a kind, about a game), written in the same
  transaction as the change it is about, so it is never lost with a broker that was down. It is
  also its own email's delivery in the outbox (`status`, `attempts`, `send_after`,
  `claimed_until`, `sent_at`).
- `ChannelDelivery`: the same notification carried by push to one device, or to one webhook:
  a delivery of the outbox with the same fields.
- `ChannelChoice`: which kinds a player has go to push or to webhooks.

Every delivery is sent once, by whichever worker claims its row with a compare-and-swap UPDATE
(`notifications.outbox`); rows are kept as the record of what was sent.
"""

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from notifications.push.models import PushSubscription
from notifications.webhooks.models import Webhook, WebhookTest

__all__ = [
    "CHANNEL_CHOICES",
    "CHANNEL_CHOICES_DEFAULT",
    "EVENT_KINDS",
    "PREFERENCE_FIELDS",
    "Channel",
    "ChannelChoice",
    "ChannelDelivery",
    "Notification",
    "PushSubscription",
    "Webhook",
    "WebhookTest",
    "choice_of_kind",
    "kinds_sharing_choice",
]


# The kinds about an event (`events.telling`), each with `event_ref` and no game.
EVENT_KINDS = (
    "event_entered",
    "event_started",
    "event_cancelled",
    "event_round",
    "event_finished",
)


class Notification(models.Model):
    class Kind(models.TextChoices):
        YOUR_TURN = "your_turn", _("Your turn")
        INVITATION = "invitation", _("Invitation")
        GAME_STARTED = "game_started", _("Game started")
        GAME_OVER = "game_over", _("Game over")
        REMINDER = "reminder", _("Reminder")
        TIMEOUT = "timeout", _("Timeout")
        DIGEST = "digest", _("Daily digest")
        # To a game's creator: an invited player declined (`games.services.invitation_respond`).
        INVITATION_DECLINED = "invitation_declined", _("Invitation declined")
        # To the other players of a game: a player resigned (`games.services.game_resign`).
        RESIGNED = "resigned", _("Player resigned")
        # To those who joined or are invited: the creator called the game off before it started
        # (`games.services.game_cancel`).
        GAME_CANCELLED = "game_cancelled", _("Game cancelled")
        # To the other players of a game: new chat messages, several collapsed into one email
        # (`receivers.tell_players`), for those who turned chat emails on.
        CHAT_MESSAGE = "chat_message", _("Chat message")
        # To a webhook's owner: it kept failing and was turned off (`webhooks.transport`). About
        # no game, with no choice of its own: it tells of something the player set up that
        # stopped.
        WEBHOOK_DISABLED = "webhook_disabled", _("Webhook turned off")
        # To an event's players (`events.telling`): about an event, not a game (`event_ref`).
        EVENT_ENTERED = "event_entered", _("Registration confirmed")
        EVENT_STARTED = "event_started", _("Event started")
        EVENT_CANCELLED = "event_cancelled", _("Event cancelled")
        EVENT_ROUND = "event_round", _("New round of an event")
        EVENT_FINISHED = "event_finished", _("Event finished")

    class Status(models.TextChoices):
        PENDING = "pending", _("Pending")
        HELD = "held", _("Held for the digest")
        SENT = "sent", _("Sent")
        FAILED = "failed", _("Failed")
        SKIPPED = "skipped", _("Skipped")

    # No index of its own: the unique (recipient, game, ply, kind) index serves it.
    recipient = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="notifications",
        db_index=False,
    )
    kind = models.CharField(max_length=24, choices=Kind.choices)
    # Every kind is about one game but the digest, a webhook turned off and the events' kinds.
    game = models.ForeignKey(
        "games.Game", on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    # The game's ply the notification is about: one "your turn" per move, one reminder per turn.
    # For an event's kinds, the event's round (0 before it starts).
    ply = models.PositiveIntegerField(default=0)
    # For an event's kinds, the event (`events.Event`'s id) it is about. A plain integer, not a
    # foreign key: `notifications` is below `events` in the layers (events tell their players
    # through here; nothing here knows events), and a row outlives its event as the record of
    # what was sent. Unique with the recipient, round (`ply`) and kind: told once each.
    event_ref = models.BigIntegerField(null=True, blank=True)
    # A digest's day, in the recipient's time zone: one digest per local day.
    digest_date = models.DateField(null=True, blank=True)
    # For a row held for the digest: the digest that carries it, once one was built.
    digest = models.ForeignKey(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="carried",
        db_index=False,
    )
    # What the caller knew that the email shows and the game does not keep (e.g. the move the
    # server made at a timeout); a digest keeps the games it lists.
    context = models.JSONField(default=dict, blank=True, encoder=DjangoJSONEncoder)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    last_error = models.TextField(blank=True)
    # When a pending row may go out: at once, after the grace period (your turn), or after a
    # failed attempt's backoff. Null for rows held for the digest.
    send_after = models.DateTimeField(null=True, blank=True)
    # A sender owns the row until then; a sender that died leaves a claim that runs out.
    claimed_until = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            # The sweep's "pending and due" (ORDER BY send_after): only pending rows are in it,
            # so it stays the size of the backlog, not of the history.
            models.Index(
                fields=["send_after"], condition=Q(status="pending"), name="notification_due_idx"
            ),
            # What each player has held for the digest.
            models.Index(
                fields=["recipient"], condition=Q(status="held"), name="notification_held_idx"
            ),
        ]
        constraints = [
            # The backstop that makes a repeated notify() a no-op. Digests have no game, and
            # NULLs are distinct, so this never applies to them; the next one does.
            models.UniqueConstraint(
                fields=["recipient", "game", "ply", "kind"], name="notification_once_per_ply"
            ),
            models.UniqueConstraint(
                fields=["recipient", "digest_date"],
                condition=Q(kind="digest"),
                name="notification_one_digest_a_day",
            ),
            # The events' backstop: one row per recipient, event, round and kind (partial: the
            # index holds the events' rows alone).
            models.UniqueConstraint(
                fields=["recipient", "event_ref", "ply", "kind"],
                condition=Q(kind__in=EVENT_KINDS),
                name="notification_once_per_event_round",
            ),
            # What each kind is about: a day (the digest), the account (a webhook turned off),
            # an event, or else a game.
            models.CheckConstraint(
                condition=Q(
                    kind="digest",
                    game__isnull=True,
                    digest_date__isnull=False,
                    event_ref__isnull=True,
                )
                | Q(
                    kind="webhook_disabled",
                    game__isnull=True,
                    digest_date__isnull=True,
                    event_ref__isnull=True,
                )
                | Q(
                    kind__in=EVENT_KINDS,
                    game__isnull=True,
                    digest_date__isnull=True,
                    event_ref__isnull=False,
                )
                | (
                    ~Q(kind__in=["digest", "webhook_disabled", *EVENT_KINDS])
                    & Q(game__isnull=False, digest_date__isnull=True, event_ref__isnull=True)
                ),
                name="notification_about_its_kind",
            ),
            models.CheckConstraint(
                condition=Q(
                    kind__in=[
                        "your_turn",
                        "invitation",
                        "game_started",
                        "game_over",
                        "reminder",
                        "timeout",
                        "digest",
                        "invitation_declined",
                        "resigned",
                        "game_cancelled",
                        "chat_message",
                        "webhook_disabled",
                        *EVENT_KINDS,
                    ]
                ),
                name="notification_kind_choice",
            ),
            models.CheckConstraint(
                condition=Q(status__in=["pending", "held", "sent", "failed", "skipped"]),
                name="notification_status_choice",
            ),
        ]

    def __str__(self) -> str:
        if self.game_id:
            about = f"game {self.game_id} ply {self.ply}"
        elif self.event_ref is not None:
            about = f"event {self.event_ref} round {self.ply}"
        else:
            about = str(self.digest_date)
        return f"{self.get_kind_display()} for user {self.recipient_id} ({about}, {self.status})"


# Which profile field holds the player's choice for each kind (accounts.models.Delivery); the
# digest is on or off (`email_digest`).
PREFERENCE_FIELDS = {
    Notification.Kind.YOUR_TURN: "email_your_turn",
    Notification.Kind.INVITATION: "email_invitation",
    Notification.Kind.GAME_STARTED: "email_game_started",
    Notification.Kind.GAME_OVER: "email_game_over",
    Notification.Kind.REMINDER: "email_reminder",
    Notification.Kind.TIMEOUT: "email_timeout",
    # Kinds with no choice of their own follow the nearest one, so that a player who turned
    # those off hears nothing of the kind either: the answer to an invitation one sent goes
    # with invitations, a player's resignation with the game's end.
    Notification.Kind.INVITATION_DECLINED: "email_invitation",
    Notification.Kind.RESIGNED: "email_game_over",
    # A game called off before it started goes with the invitations that made it.
    Notification.Kind.GAME_CANCELLED: "email_invitation",
    Notification.Kind.CHAT_MESSAGE: "email_chat",
    # One choice for all that an event tells its players.
    **{Notification.Kind(kind): "email_events" for kind in EVENT_KINDS},
}


def kinds_sharing_choice(kind: str) -> list[str]:
    """The kinds that one choice on the settings page covers, `kind` among them (what
    unsubscribing from `kind` turns off)."""
    field = PREFERENCE_FIELDS.get(Notification.Kind(kind))
    if field is None:
        return [kind]
    return [k for k, f in PREFERENCE_FIELDS.items() if f == field]


# -- channels: what else than an email carries a notification ------------------------------------


class Channel(models.TextChoices):
    """Where a notification goes. The email is the notification row's own delivery (its
    `status`, `attempts`, ...); each push notice and webhook call is a `ChannelDelivery` of it."""

    EMAIL = "email", _("Email")
    PUSH = "push", _("Notices on my devices")
    WEBHOOK = "webhook", _("Webhooks")


# The choices a player makes per channel, by the name of the email choice they mirror
# (PREFERENCE_FIELDS without its "email_"): the kinds each covers are `kinds_of_choice`.
CHANNEL_CHOICES = (
    "your_turn",
    "invitation",
    "game_started",
    "game_over",
    "reminder",
    "timeout",
    "chat",
    "events",
)
# What push and webhooks carry for a player who has not chosen: what asks them to act.
CHANNEL_CHOICES_DEFAULT = ("your_turn", "invitation", "game_started", "game_over", "timeout")


def choice_of_kind(kind: str) -> str | None:
    """The per-channel choice that covers `kind` ("chat" for chat messages), None for the
    digest (an email only)."""
    field = PREFERENCE_FIELDS.get(Notification.Kind(kind)) if kind != "digest" else None
    return field.removeprefix("email_") if field else None


class ChannelChoice(models.Model):
    """Which kinds one player has go to one channel (push or webhook); with no row, the
    defaults (CHANNEL_CHOICES_DEFAULT)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False
    )
    channel = models.CharField(max_length=8, choices=Channel.choices)
    # A list of CHANNEL_CHOICES names.
    choices = models.JSONField(default=list, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "channel"], name="channel_choice_once"),
            models.CheckConstraint(
                condition=Q(channel__in=["push", "webhook"]), name="channel_choice_channel"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.channel} choices of user {self.user_id}"


class ChannelDelivery(models.Model):
    """A notification carried by a channel other than email, to one device or one webhook:
    written when the notification is sent (`outbox.deliveries_create`, unique per notification
    and target, so a repeat writes nothing), then claimed and sent once by the outbox, as the
    email is (`outbox.delivery_send`)."""

    class Status(models.TextChoices):
        PENDING = "pending", _("Pending")
        SENT = "sent", _("Sent")
        FAILED = "failed", _("Failed")
        SKIPPED = "skipped", _("Skipped")

    notification = models.ForeignKey(
        Notification, on_delete=models.CASCADE, related_name="deliveries", db_index=False
    )
    channel = models.CharField(max_length=8, choices=Channel.choices)
    # The target; null once it is gone (a device unsubscribed, a webhook deleted): the row
    # stays as the record of what was sent.
    push_subscription = models.ForeignKey(
        PushSubscription, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    webhook = models.ForeignKey(
        Webhook, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    last_error = models.TextField(blank=True)
    send_after = models.DateTimeField()
    claimed_until = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [
            models.Index(
                fields=["send_after"], condition=Q(status="pending"), name="delivery_due_idx"
            ),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["notification", "push_subscription"],
                condition=Q(channel="push"),
                name="delivery_once_per_device",
            ),
            models.UniqueConstraint(
                fields=["notification", "webhook"],
                condition=Q(channel="webhook"),
                name="delivery_once_per_webhook",
            ),
            models.CheckConstraint(
                condition=Q(channel="push", webhook__isnull=True)
                | Q(channel="webhook", push_subscription__isnull=True),
                name="delivery_one_target",
            ),
            models.CheckConstraint(
                condition=Q(status__in=["pending", "sent", "failed", "skipped"]),
                name="delivery_status_choice",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.channel} delivery of notification {self.notification_id} ({self.status})"
