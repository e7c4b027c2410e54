from django.urls import path

from notifications import push_apis

app_name = "push_api"

urlpatterns = [
    path(
        "push-subscriptions/",
        push_apis.PushSubscriptionsApi.as_view(),
        name="push_subscriptions",
    ),
    path(
        "push-subscriptions/<str:subscription_id>/",
        push_apis.PushSubscriptionApi.as_view(),
        name="push_subscription",
    ),
    path(
        "notification-channels/",
        push_apis.NotificationChannelsApi.as_view(),
        name="channels",
    ),
]
