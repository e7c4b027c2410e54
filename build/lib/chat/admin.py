"""The moderators' queue: open reports with the message, its author, its game and the messages
around it; actions hide the message and suspend the author's chat."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.html import format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.names import player_name
from chat import services
from chat.models import Message, Mute, Privacy, Report, Suspension

AROUND = 5  # messages shown before and after the reported one


@admin.register(Report)
class ReportAdmin(admin.ModelAdmin):
    list_display = ["id", "created_at", "status", "reporter", "author", "text", "reason"]
    list_filter = ["status"]
    list_select_related = ["message__author__profile", "reporter"]
    readonly_fields = ["message", "reporter", "reason", "created_at", "context"]
    fields = ["status", "message", "reporter", "reason", "created_at", "context"]
    actions = ["hide_messages", "suspend_authors"]

    @admin.display(description=gettext_lazy("author"))
    def author(self, report: Report) -> str:
        return player_name(report.message.author)

    @admin.display(description=gettext_lazy("message"))
    def text(self, report: Report) -> str:
        return report.message.text[:80]

    @admin.display(description=gettext_lazy("the messages around it"))
    def context(self, report: Report) -> SafeString:
        message = report.message
        around = list(
            Message.objects.filter(game_id=message.game_id, id__lt=message.pk)
            .select_related("author__profile")
            .order_by("-id")[:AROUND]
        )[::-1]
        around += [message]
        around += list(
            Message.objects.filter(game_id=message.game_id, id__gt=message.pk)
            .select_related("author__profile")
            .order_by("id")[:AROUND]
        )
        # Escaped by format_html_join: the messages are untrusted.
        return format_html_join(
            "",
            "<p>{}<strong>{}</strong> (ply {}): {}{}</p>",
            (
                (
                    "→ " if m.pk == message.pk else "",
                    player_name(m.author),
                    m.ply,
                    m.text,
                    " [hidden]" if m.is_hidden else "",
                )
                for m in around
            ),
        )

    @admin.action(description=gettext_lazy("Hide the reported messages"))
    def hide_messages(self, request: HttpRequest, queryset: QuerySet[Report]) -> None:
        for report in queryset.select_related("message"):
            services.message_hide(message=report.message, moderator=request.user)  # type: ignore[arg-type]
        messages.success(request, _("The messages are hidden."))

    @admin.action(description=gettext_lazy("Suspend the authors' chat"))
    def suspend_authors(
        self, request: HttpRequest, queryset: QuerySet[Report]
    ) -> HttpResponse | None:
        if "days" in request.POST:
            form = SuspendForm(request.POST)
            if form.is_valid():
                for author in {
                    r.message.author for r in queryset.select_related("message__author")
                }:
                    services.chat_suspend(
                        user=author,
                        days=form.cleaned_data["days"],
                        moderator=request.user,  # type: ignore[arg-type]
                        reason=form.cleaned_data["reason"],
                    )
                queryset.update(status=Report.Status.RESOLVED)
                messages.success(request, _("The authors' chat is suspended."))
                return None
        else:
            form = SuspendForm()
        context: dict[str, Any] = {
            **self.admin_site.each_context(request),
            "form": form,
            "reports": queryset,
            "action": "suspend_authors",
        }
        return render(request, "admin/chat/suspend.html", context)


class SuspendForm(forms.Form):
    days = forms.IntegerField(min_value=1, max_value=3650, initial=7)
    reason = forms.CharField(max_length=500, required=False)


@admin.register(Message)
class MessageAdmin(admin.ModelAdmin):
    list_display = ["id", "game", "author", "ply", "created_at", "hidden_at"]
    raw_id_fields = ["game", "author", "hidden_by"]
    search_fields = ["text"]


@admin.register(Suspension)
class SuspensionAdmin(admin.ModelAdmin):
    list_display = ["user", "until", "created_by", "created_at"]
    raw_id_fields = ["user", "created_by"]


admin.site.register(Mute)
admin.site.register(Privacy)
