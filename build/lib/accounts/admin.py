from django.contrib import admin
from django.contrib.auth.admin import UserAdmin
from django.http import HttpRequest

from accounts.forms import AdminLoginForm
from accounts.models import ApiToken, Profile, User

# The admin's login is the site's in its limits (accounts.lockout, through the authentication
# backends) and in its field's length.
admin.site.login_form = AdminLoginForm


class ProfileInline(admin.StackedInline):
    model = Profile
    can_delete = False


@admin.register(User)
class SiteUserAdmin(UserAdmin):
    inlines = [ProfileInline]


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    """Tokens seen, never made or changed here (the key exists only on the response that made
    it): an operator who learns of a leaked key deletes its row, which revokes it."""

    list_display = ("prefix", "name", "user", "created_at", "last_used_at", "expires_at")
    list_select_related = ("user",)
    search_fields = ("user__username", "prefix", "name")
    readonly_fields = ("user", "name", "prefix", "created_at", "last_used_at", "expires_at")
    exclude = ("digest",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False
