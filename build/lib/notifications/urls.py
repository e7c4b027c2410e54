from django.urls import path

from notifications import push_views, views, webhook_views

app_name = "notifications"

urlpatterns = [
    path("unsubscribe/<str:token>/", views.unsubscribe, name="unsubscribe"),
    path("devices/<int:subscription_id>/remove/", push_views.device_remove, name="device_remove"),
    path("channels/", push_views.channels_save, name="channels_save"),
    path("webhooks/add/", webhook_views.webhook_add, name="webhook_add"),
    path("webhooks/<int:webhook_id>/remove/", webhook_views.webhook_remove, name="webhook_remove"),
    path("webhooks/<int:webhook_id>/enable/", webhook_views.webhook_enable, name="webhook_enable"),
    path("webhooks/<int:webhook_id>/test/", webhook_views.webhook_test, name="webhook_test"),
]
