"""The sign-up page: allauth's, where a name another sign-up took in the same moment is a form
error like any lookalike name, not a server error."""

from __future__ import annotations

from allauth.account.views import SignupView as AllauthSignupView
from django.db import IntegrityError
from django.http import HttpResponse

from accounts import name_rules


class SignupView(AllauthSignupView):
    """Two sign-ups with lookalike usernames at once both pass the form's check; the database
    takes the first (`User.Meta.constraints`) and this view tells the second to choose again."""

    def form_valid(self, form) -> HttpResponse:
        try:
            # The account's writes are one transaction (`SignupForm.try_save`), undone whole.
            return super().form_valid(form)
        except IntegrityError as error:
            if not name_rules.username_taken(error):
                raise
        form.add_error("username", name_rules.confusable_with_username(form["username"].value()))
        return self.form_invalid(form)
