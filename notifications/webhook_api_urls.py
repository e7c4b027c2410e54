from django.urls import path

from notifications import webhook_apis

app_name = "webhook_api"

urlpatterns = [
    path("webhooks/", webhook_apis.WebhooksApi.as_view(), name="webhooks"),
    path("webhooks/<str:webhook_id>/", webhook_apis.WebhookApi.as_view(), name="webhook"),
    path(
        "webhooks/<str:webhook_id>/enable/",
        webhook_apis.WebhookEnableApi.as_view(),
        name="webhook_enable",
    ),
    path(
        "webhooks/<str:webhook_id>/test/",
        webhook_apis.WebhookTestApi.as_view(),
        name="webhook_test",
    ),
    path(
        "webhooks/<str:webhook_id>/tests/<str:test_id>/",
        webhook_apis.WebhookTestStatusApi.as_view(),
        name="webhook_test_status",
    ),
]
