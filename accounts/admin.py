from django.contrib import admin
from django.contrib.auth import forms as auth_forms
from django.contrib.auth.admin import UserAdmin
from django.http import HttpRequest

from accounts.forms import AdminLoginForm
from accounts.models import ApiToken, Profile, User
from accounts.name_rules import check_not_confusable

# The admin's login is the site's in its limits (accounts.lockout, through the authentication
# backends) and in its field's length.
admin.site.login_form = AdminLoginForm


class ProfileInline(admin.StackedInline):
    model = Profile
    can_delete = False


class NotLookalikeUsername:
    """The admin is spared the name rules but for this one: a username that looks like another
    player's would break the database's constraint on skeletons (`USERNAME_SKELETON_UNIQUE`), a
    500; it gets the sign-up's form error instead."""

    def clean_username(self):  # type: ignore[no-untyped-def]
        clean = getattr(super(), "clean_username", None)
        username = clean() if clean else self.cleaned_data["username"]  # type: ignore[attr-defined]
        instance = self.instance  # type: ignore[attr-defined]
        # None: the parent refused it already (the same name in another letter case).
        if username and username != instance.username and not instance.username_skeleton_shared:
            check_not_confusable(username, user_id=instance.pk)
        return username


class SiteUserChangeForm(NotLookalikeUsername, auth_forms.UserChangeForm):
    pass


class SiteUserCreationForm(NotLookalikeUsername, auth_forms.AdminUserCreationForm):
    pass


@admin.register(User)
class SiteUserAdmin(UserAdmin):
    inlines = [ProfileInline]
    form = SiteUserChangeForm
    add_form = SiteUserCreationForm


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
