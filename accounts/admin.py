from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from accounts.forms import AdminLoginForm
from accounts.models import Profile, User

# The admin's login is the site's in its limits (accounts.lockout, through the authentication
# backends) and in its field's length.
admin.site.login_form = AdminLoginForm


class ProfileInline(admin.StackedInline):
    model = Profile
    can_delete = False


@admin.register(User)
class SiteUserAdmin(UserAdmin):
    inlines = [ProfileInline]
