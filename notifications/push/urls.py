"""The push channel's pages (the settings page's forms), named in the `notifications` namespace
(included by `notifications.urls`); its API is `api_urls`."""

from django.urls import path

from notifications.push import views

urlpatterns = [
    path("devices/<int:subscription_id>/remove/", views.device_remove, name="device_remove"),
    path("channels/", views.channels_save, name="channels_save"),
]
