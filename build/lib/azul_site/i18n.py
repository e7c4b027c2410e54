"""The language switcher: Django's `set_language`, which keeps the choice in a cookie, and for a
signed-in player also on their profile, so that their emails come in that language. And the page
scripts' translation catalogue, which a browser keeps."""

from __future__ import annotations

import hashlib
from pathlib import Path

import django
from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.utils import translation
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.views.decorators.http import condition, require_POST
from django.views.i18n import JavaScriptCatalog
from django.views.i18n import set_language as django_set_language

from accounts.services import profile_language_set

# How long a browser keeps the catalogue before it asks again (and is answered 304 while the
# catalogue is the same): it changes only with a deploy.
CATALOG_MAX_AGE = 7 * 24 * 60 * 60


def _catalog_version() -> str:
    """A digest of what the catalogue is made of (our compiled script translations and Django's
    version): read once per process, since they change only with a deploy."""
    digest = hashlib.sha256(django.get_version().encode())
    for folder in sorted(Path(path) for path in settings.LOCALE_PATHS):
        for compiled in sorted(folder.glob("*/LC_MESSAGES/djangojs.mo")):
            digest.update(str(compiled.relative_to(folder)).encode())
            digest.update(compiled.read_bytes())
    return digest.hexdigest()[:16]


CATALOG_VERSION = _catalog_version()


def _catalog_etag(request: HttpRequest) -> str:
    return f"{CATALOG_VERSION}-{translation.get_language()}"


_catalog = condition(etag_func=_catalog_etag)(JavaScriptCatalog.as_view(packages=["games"]))


def javascript_catalog(request: HttpRequest) -> HttpResponseBase:
    """`/jsi18n/`: the page scripts' strings in the request's language (LocaleMiddleware chose it,
    from the language cookie or Accept-Language), kept by the browser for a week, an ETag per
    language and deploy for the question after that (its 304 renews the week)."""
    response = _catalog(request)
    patch_cache_control(response, max_age=CATALOG_MAX_AGE)
    patch_vary_headers(response, ("Accept-Language", "Cookie"))
    return response


@require_POST
def set_language(request: HttpRequest) -> HttpResponse:
    response = django_set_language(request)
    language = request.POST.get("language", "")
    if request.user.is_authenticated and translation.check_for_language(language):
        profile_language_set(user=request.user, language=language)
    return response
