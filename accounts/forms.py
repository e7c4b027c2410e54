from datetime import datetime, timedelta
from typing import Any

from allauth.account.forms import LoginForm as AllauthLoginForm
from allauth.account.forms import SignupForm as AllauthSignupForm
from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.core.validators import MaxLengthValidator
from django.db import transaction
from django.http import HttpRequest
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from accounts import name_rules, services
from accounts.models import (
    DELIVERY_FIELDS,
    VACATION_DAYS_A_YEAR,
    ApiToken,
    Delivery,
    Profile,
    User,
)
from accounts.time_zones import UTC, TimeZoneField, grouped_time_zone_choices

# The longest email address (RFC 5321's path, less its brackets); usernames are shorter.
# django-axes keeps the typed login in a 255-character column: it must never see a longer one.
LOGIN_MAX_LENGTH = 254


class LoginForm(AllauthLoginForm):
    """allauth's login (ACCOUNT_FORMS["login"]), its username-or-email field capped in length: a
    longer one is a form error, before any account is looked up or attempt recorded."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        login = self.fields["login"]
        login.max_length = LOGIN_MAX_LENGTH  # type: ignore[attr-defined]
        login.validators.append(MaxLengthValidator(LOGIN_MAX_LENGTH))
        login.widget.attrs["maxlength"] = str(LOGIN_MAX_LENGTH)


class AdminLoginForm(AdminAuthenticationForm):
    """The admin's login (`accounts.admin` installs it), its username capped as the site's
    login is: Django's form shows the cap in the page but does not check it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        username = self.fields["username"]
        username.validators.append(MaxLengthValidator(LOGIN_MAX_LENGTH))


class SignupForm(AllauthSignupForm):
    """allauth's sign-up (ACCOUNT_FORMS["signup"]), with the player's time zone: a hidden field
    that a few lines of the page's script fill with the browser's zone
    (`Intl.DateTimeFormat().resolvedOptions().timeZone`). Without script it is empty, and the
    player starts on UTC. A zone the server does not know is refused, and the field then shows
    as the settings page's picker, for the player to choose from."""

    time_zone = TimeZoneField(
        label=_("Time zone"), required=False, widget=forms.HiddenInput, initial=""
    )

    def full_clean(self) -> None:
        super().full_clean()
        if "time_zone" in self.errors:
            self.fields["time_zone"].widget = forms.Select(choices=grouped_time_zone_choices())

    def clean_time_zone(self) -> str:
        return self.cleaned_data.get("time_zone") or UTC

    def try_save(self, request: HttpRequest) -> Any:
        # All of the new account or nothing: one that loses its name to a sign-up at the same
        # moment (`accounts.signup`) leaves no row behind.
        with transaction.atomic():
            return super().try_save(request)

    def custom_signup(self, request: HttpRequest, user: User) -> None:
        super().custom_signup(request, user)
        services.profile_update(user=user, time_zone=self.cleaned_data["time_zone"])


class ProfileForm(forms.ModelForm):
    time_zone = TimeZoneField(
        label=_("Time zone"), help_text=Profile._meta.get_field("time_zone").help_text
    )

    class Meta:
        model = Profile
        fields = [
            "display_name",
            "time_zone",
            "language",
            "confirm_moves",
            "theme",
            "next_game_after_move",
            *DELIVERY_FIELDS,
            "email_digest",
        ]
        labels = {"display_name": _("Display name"), "language": _("Language")}
        help_texts = {
            "language": _("The site's pages, whenever you are signed in, and your emails."),
            "theme": _("Light or dark pages; “As my device” follows your device's setting."),
        }

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)
        # The picker lists the regions' zones; a player on an older alias still sees theirs.
        self.fields["time_zone"].choices = grouped_time_zone_choices(self.instance.time_zone)
        # A form posted without them (an older page, a script) keeps them as they are.
        self.fields["language"].required = False
        self.fields["confirm_moves"].required = False
        self.fields["theme"].required = False
        # Newer than the form posts some scripts and older pages send.
        self.fields["email_events"].required = False

    def profile_fields(self) -> list[forms.BoundField]:
        return [
            self["display_name"],
            self["time_zone"],
            self["language"],
            self["confirm_moves"],
            self["theme"],
            self["next_game_after_move"],
        ]

    def email_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in (*DELIVERY_FIELDS, "email_digest")]

    def clean_language(self) -> str:
        return self.cleaned_data.get("language") or self.instance.language

    def clean_confirm_moves(self) -> str:
        return self.cleaned_data.get("confirm_moves") or self.instance.confirm_moves

    def clean_theme(self) -> str:
        return self.cleaned_data.get("theme") or self.instance.theme

    def clean_email_events(self) -> str:
        return self.cleaned_data.get("email_events") or self.instance.email_events

    def clean_display_name(self) -> str:
        # NFKC; no line breaks, invisible characters, web addresses or "@"; not confusable with
        # another player's name (`accounts.name_rules`). A name kept as it was is not checked
        # again: one saved before these rules stays until its player changes it.
        value = self.cleaned_data.get("display_name") or ""
        if value == self.initial.get("display_name", None) and self.instance.pk is not None:
            return value
        return name_rules.clean_display_name(value, user_id=self.instance.user_id)

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        if not cleaned.get("email_digest"):
            # Otherwise what is held for the digest would never be sent, without a word.
            held = [
                str(self.fields[name].label).lower()
                for name in DELIVERY_FIELDS
                if cleaned.get(name) == Delivery.DIGEST
            ]
            if held:
                self.add_error(
                    "email_digest",
                    gettext(
                        "You chose the daily digest for emails %(kinds)s: turn the digest on, or"
                        " choose another option for those."
                    )
                    % {"kinds": ", ".join(held)},
                )
        return cleaned


class VacationForm(forms.Form):
    days = forms.IntegerField(
        label=_("Days away"),
        min_value=1,
        max_value=VACATION_DAYS_A_YEAR,
        help_text=_(
            "Your clocks stop from now for this many days: every deadline of yours moves "
            "by that much, and no reminder or timeout reaches you meanwhile."
        ),
    )


class ApiTokenForm(forms.Form):
    """The settings page's "Create token": a name to tell it apart, and how long it lasts."""

    NEVER = "never"

    name = forms.CharField(
        label=_("Name"),
        max_length=ApiToken.NAME_MAX,
        required=False,
        help_text=_("What uses it, such as “my bot on the home server”."),
    )
    expires_in = forms.ChoiceField(
        label=_("Expires"),
        choices=[
            ("30", _("In 30 days")),
            ("90", _("In 90 days")),
            ("365", _("In a year")),
            (NEVER, pgettext_lazy("token expiry", "Never")),
        ],
        initial="90",
    )

    def expires_at(self, now: datetime) -> datetime | None:
        """When the token stops working, from a valid form."""
        choice = self.cleaned_data["expires_in"]
        return None if choice == self.NEVER else now + timedelta(days=int(choice))
