"""The site's URLs plus two that fail on purpose, for the error page tests."""

from django.core.exceptions import PermissionDenied
from django.urls import path

from azul_site.urls import urlpatterns as site_urlpatterns


def forbidden(request):
    raise PermissionDenied("secret reason 403")


def broken(request):
    raise RuntimeError("secret detail 500")


urlpatterns = [
    path("test-errors/forbidden/", forbidden),
    path("test-errors/broken/", broken),
    *site_urlpatterns,
]
