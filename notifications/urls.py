from django.urls import include, path

from notifications import views

app_name = "notifications"

# Each channel's pages (its forms on the settings page) under this app's namespace: the one-click
# unsubscribe link is every channel's.
urlpatterns = [
    path("unsubscribe/<str:token>/", views.unsubscribe, name="unsubscribe"),
    path("", include("notifications.push.urls")),
    path("", include("notifications.webhooks.urls")),
]
