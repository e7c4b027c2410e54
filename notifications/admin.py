from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from notifications import services
from notifications.models import Notification


@admin.register(Notification)
class NotificationAdmin(admin.ModelAdmin):
    list_display = (
        "id",
        "recipient",
        "kind",
        "game",
        "ply",
        "status",
        "attempts",
        "send_after",
        "sent_at",
        "created_at",
    )
    list_filter = ("status", "kind")
    search_fields = ("recipient__username", "recipient__email")
    raw_id_fields = ("recipient", "game", "digest")
    readonly_fields = ("created_at", "sent_at", "claimed_until", "attempts", "last_error")
    date_hierarchy = "created_at"
    actions = ["retry_failed"]

    @admin.action(description="Retry the selected failed notifications")
    def retry_failed(self, request: HttpRequest, queryset: QuerySet) -> None:
        ids = list(queryset.filter(status=Notification.Status.FAILED).values_list("pk", flat=True))
        count = services.notifications_retry(notification_ids=ids)
        self.message_user(request, f"{count} notification(s) will be sent again.", messages.SUCCESS)
