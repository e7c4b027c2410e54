from csp.decorators import csp_update
from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from accounts import urls as accounts_urls
from azul_site import account_pages, i18n, metrics, players, pwa, views

# A player's public page gathers games and ratings, so its view lives up here
# (`azul_site.players`); it keeps its place among the accounts' pages and its name,
# `accounts:player`.
accounts_pages = [
    *accounts_urls.urlpatterns,
    path("players/<str:username>/", players.player_detail, name="player"),
    path("settings/delete/", account_pages.account_delete_view, name="delete_account"),
    path("settings/data/", account_pages.data_download_view, name="data_download"),
]

# The API's docs (Swagger UI): the "split" view serves its start-up script from its own URL
# (`?script`), so the site's strict script-src holds there too; the page's template has a
# <style> block, so this page alone allows inline styles (which cannot run a script). The admin
# needs nothing looser: Django's admin pages run no inline script.
api_docs = csp_update({"style-src": ["'unsafe-inline'"]})(
    SpectacularSwaggerSplitView.as_view(url_name="api-schema")
)

# The API first: URLs are tried in order, and API calls are the most frequent requests.
urlpatterns = [
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", api_docs, name="api-docs"),
    path("api/", include("games.api.urls")),
    path("api/", include("ratings.api_urls")),
    path("api/", include("analysis.api_urls")),
    path("api/", include("chat.api_urls")),
    path("api/", include("notifications.push.api_urls")),
    path("api/", include("notifications.webhooks.api_urls")),
    path("api/", include("events.api_urls")),
    path("api/", include("events.league_api_urls")),
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("readyz", views.readyz, name="readyz"),
    # For the scraper alone (azul_site/metrics.py).
    path("metrics", metrics.metrics_view, name="metrics"),
    # Browsers and feed readers ask for /favicon.ico whatever the page links (base.html links the
    # SVG): send them to the static file, which is served with its long cache lifetime.
    path("favicon.ico", views.favicon, name="favicon"),
    path(".well-known/security.txt", views.security_txt, name="security-txt"),
    # The installable app (azul_site/pwa.py): the worker at the root, whose scope is the site.
    path("manifest.webmanifest", pwa.manifest, name="manifest"),
    path("sw.js", pwa.service_worker, name="service-worker"),
    path("offline/", pwa.offline, name="offline"),
    path("rules/", views.rules, name="rules"),
    # The language switcher posts to `set_language`. Page scripts call `gettext()` once the
    # catalog is loaded: <script src="{% url 'javascript-catalog' %}"> before them.
    path("i18n/setlang/", i18n.set_language, name="set_language"),
    # Only our own strings (locale/), not those of the admin's scripts; kept by browsers.
    path("jsi18n/", i18n.javascript_catalog, name="javascript-catalog"),
    path("accounts/", include(accounts_urls.allauth_pages)),
    path("accounts/", include("allauth.urls")),
    path("", include((accounts_pages, accounts_urls.app_name))),
    path("", include("games.urls")),
    path("", include("ratings.urls")),
    path("", include("analysis.urls")),
    path("", include("chat.urls")),
    path("", include("events.urls")),
    path("", include("events.league_urls")),
    path("notifications/", include("notifications.urls")),
    path("admin/", admin.site.urls),
]

# A request that fails for want of a database connection (an exhausted pool) answers 503 with
# Retry-After, not 500 (core/outages/unavailable.py); anything else gets Django's 500 page.
handler500 = "core.outages.unavailable.server_error"
