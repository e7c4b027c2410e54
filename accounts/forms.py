from django import forms

from accounts.models import (
    DELIVERY_FIELDS,
    VACATION_DAYS_A_YEAR,
    Delivery,
    Profile,
    time_zone_choices,
)


class ProfileForm(forms.ModelForm):
    time_zone = forms.ChoiceField(
        choices=time_zone_choices,
        error_messages={
            "invalid_choice": "“%(value)s” is not a known time zone. Choose one from the list, "
            "such as Europe/Paris or America/New_York."
        },
        help_text=Profile._meta.get_field("time_zone").help_text,
    )

    class Meta:
        model = Profile
        fields = ["display_name", "time_zone", *DELIVERY_FIELDS, "email_digest"]

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)

    def profile_fields(self) -> list[forms.BoundField]:
        return [self["display_name"], self["time_zone"]]

    def email_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in (*DELIVERY_FIELDS, "email_digest")]

    def clean(self) -> dict:
        cleaned = super().clean()
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
                    "You chose the daily digest for emails "
                    f"{', '.join(held)}: turn the digest on, or choose another option for those.",
                )
        return cleaned


class VacationForm(forms.Form):
    days = forms.IntegerField(
        label="Days away",
        min_value=1,
        max_value=VACATION_DAYS_A_YEAR,
        help_text="Your clocks stop from now for this many days: every deadline of yours moves "
        "by that much, and no reminder or timeout reaches you meanwhile.",
    )
