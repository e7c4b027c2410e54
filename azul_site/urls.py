from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from azul_site import views

# The API first: URLs are tried in order, and API calls are the most frequent requests.
urlpatterns = [
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("api/", include("games.api_urls")),
    path("api/", include("ratings.api_urls")),
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("accounts/", include("allauth.urls")),
    path("", include("accounts.urls")),
    path("", include("games.urls")),
    path("", include("ratings.urls")),
    path("notifications/", include("notifications.urls")),
    path("admin/", admin.site.urls),
]
