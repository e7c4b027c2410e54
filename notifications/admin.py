from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from notifications import services
from notifications.models import ChannelDelivery, Notification, PushSubscription, Webhook


@admin.register(Notification)
class NotificationAdmin(admin.ModelAdmin):
    """The outbox, shown and never changed here: a row's status and attempts are the sending's
    own record (a retry never sends twice), so the one way to act is the retry action, which goes
    through `services.notifications_retry`."""

    list_display = (
        "id",
        "recipient",
        "kind",
        "game",
        "event_ref",
        "ply",
        "status",
        "attempts",
        "send_after",
        "sent_at",
        "created_at",
    )
    list_filter = ("status", "kind")
    search_fields = ("recipient__username", "recipient__email")
    # Every field, in the model's order.
    readonly_fields = tuple(
        f.name for f in Notification._meta.get_fields() if f.concrete and not f.auto_created
    )
    date_hierarchy = "created_at"
    actions = ["retry_failed"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Notification | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Notification | None = None) -> bool:
        return False

    @admin.action(description="Retry the selected failed notifications")
    def retry_failed(self, request: HttpRequest, queryset: QuerySet) -> None:
        ids = list(queryset.filter(status=Notification.Status.FAILED).values_list("pk", flat=True))
        count = services.notifications_retry(notification_ids=ids)
        self.message_user(request, f"{count} notification(s) will be sent again.", messages.SUCCESS)


class _ShownOnly(admin.ModelAdmin):
    """Shown, never added or changed here (their owners manage them on the settings page)."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(ChannelDelivery)
class ChannelDeliveryAdmin(_ShownOnly):
    """The push notices and webhook calls: the sending's own record, like the outbox's."""

    list_display = ("id", "notification", "channel", "status", "attempts", "send_after", "sent_at")
    list_filter = ("status", "channel")
    readonly_fields = tuple(
        f.name for f in ChannelDelivery._meta.get_fields() if f.concrete and not f.auto_created
    )

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(PushSubscription)
class PushSubscriptionAdmin(_ShownOnly):
    """Devices; an operator may remove one (its deliveries stay, with no target). The endpoint
    is a secret of its player's: not listed."""

    list_display = ("id", "user", "name", "created_at", "last_success_at")
    search_fields = ("user__username",)
    fields = ("user", "name", "created_at", "last_success_at")
    readonly_fields = fields


@admin.register(Webhook)
class WebhookAdmin(_ShownOnly):
    """Webhooks; an operator may remove one that is abused. Its URL and secret are its owner's
    secrets: not shown."""

    list_display = ("id", "user", "name", "style", "enabled", "consecutive_failures", "created_at")
    list_filter = ("enabled", "style")
    search_fields = ("user__username",)
    fields = ("user", "name", "style", "enabled", "consecutive_failures", "disabled_reason")
    readonly_fields = fields
