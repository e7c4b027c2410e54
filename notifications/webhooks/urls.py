"""The webhook channel's pages (the settings page's forms), named in the `notifications`
namespace (included by `notifications.urls`); its API is `api_urls`."""

from django.urls import path

from notifications.webhooks import views

urlpatterns = [
    path("webhooks/add/", views.webhook_add, name="webhook_add"),
    path("webhooks/<int:webhook_id>/remove/", views.webhook_remove, name="webhook_remove"),
    path("webhooks/<int:webhook_id>/enable/", views.webhook_enable, name="webhook_enable"),
    path("webhooks/<int:webhook_id>/test/", views.webhook_test, name="webhook_test"),
]
