from django import forms

from accounts.models import Profile, time_zone_choices


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
        fields = ["display_name", "time_zone", "notify_turn", "notify_reminder", "notify_game_end"]

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)
