"""The language switcher: Django's `set_language`, which keeps the choice in a cookie, and for a
signed-in player also on their profile, so that their emails come in that language."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.utils import translation
from django.views.decorators.http import require_POST
from django.views.i18n import set_language as django_set_language

from accounts.services import profile_language_set


@require_POST
def set_language(request: HttpRequest) -> HttpResponse:
    response = django_set_language(request)
    language = request.POST.get("language", "")
    if request.user.is_authenticated and translation.check_for_language(language):
        profile_language_set(user=request.user, language=language)
    return response
