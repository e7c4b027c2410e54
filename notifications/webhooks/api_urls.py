from django.urls import path

from notifications.webhooks import apis

app_name = "webhook_api"

urlpatterns = [
    path("webhooks/", apis.WebhooksApi.as_view(), name="webhooks"),
    path("webhooks/<str:webhook_id>/", apis.WebhookApi.as_view(), name="webhook"),
    path(
        "webhooks/<str:webhook_id>/enable/",
        apis.WebhookEnableApi.as_view(),
        name="webhook_enable",
    ),
    path(
        "webhooks/<str:webhook_id>/test/",
        apis.WebhookTestApi.as_view(),
        name="webhook_test",
    ),
    path(
        "webhooks/<str:webhook_id>/tests/<str:test_id>/",
        apis.WebhookTestStatusApi.as_view(),
        name="webhook_test_status",
    ),
]
