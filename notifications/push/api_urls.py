from django.urls import path

from notifications.push import apis

app_name = "push_api"

urlpatterns = [
    path(
        "push-subscriptions/",
        apis.PushSubscriptionsApi.as_view(),
        name="push_subscriptions",
    ),
    path(
        "push-subscriptions/<str:subscription_id>/",
        apis.PushSubscriptionApi.as_view(),
        name="push_subscription",
    ),
    path(
        "notification-channels/",
        apis.NotificationChannelsApi.as_view(),
        name="channels",
    ),
]
