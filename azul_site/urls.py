from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from accounts import urls as accounts_urls
from azul_site import i18n, players, views

# A player's public page gathers games and ratings, so its view lives up here
# (`azul_site.players`); it keeps its place among the accounts' pages and its name,
# `accounts:player`.
accounts_pages = [
    *accounts_urls.urlpatterns,
    path("players/<str:username>/", players.player_detail, name="player"),
]

# The API first: URLs are tried in order, and API calls are the most frequent requests.
urlpatterns = [
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("api/", include("games.api.urls")),
    path("api/", include("ratings.api_urls")),
    path("api/", include("analysis.api_urls")),
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    # Browsers and feed readers ask for /favicon.ico whatever the page links (base.html links the
    # SVG): send them to the static file, which is served with its long cache lifetime.
    path("favicon.ico", views.favicon, name="favicon"),
    path("rules/", views.rules, name="rules"),
    # The language switcher posts to `set_language`. Page scripts call `gettext()` once the
    # catalog is loaded: <script src="{% url 'javascript-catalog' %}"> before them.
    path("i18n/setlang/", i18n.set_language, name="set_language"),
    # Only our own strings (locale/), not those of the admin's scripts; kept by browsers.
    path("jsi18n/", i18n.javascript_catalog, name="javascript-catalog"),
    path("accounts/", include("allauth.urls")),
    path("", include((accounts_pages, accounts_urls.app_name))),
    path("", include("games.web.urls")),
    path("", include("ratings.urls")),
    path("", include("analysis.urls")),
    path("notifications/", include("notifications.urls")),
    path("admin/", admin.site.urls),
]

# A request that fails for want of a database connection (an exhausted pool) answers 503 with
# Retry-After, not 500 (core/unavailable.py); anything else gets Django's 500 page.
handler500 = "core.unavailable.server_error"
