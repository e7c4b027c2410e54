"""The events API, under /api/. Event ids are matched as any string so that one that is not a
number gets the API's JSON 404 rather than the site's HTML one."""

from django.urls import path

from events import apis

app_name = "events_api"

urlpatterns = [
    path("events/", apis.EventListApi.as_view(), name="events"),
    path("events/<str:event_id>/", apis.EventDetailApi.as_view(), name="event"),
    path("events/<str:event_id>/standings/", apis.EventStandingsApi.as_view(), name="standings"),
    path("events/<str:event_id>/crosstable/", apis.EventCrosstableApi.as_view(), name="crosstable"),
    path("events/<str:event_id>/tables/", apis.EventTablesApi.as_view(), name="tables"),
    path("events/<str:event_id>/register/", apis.EventRegisterApi.as_view(), name="register"),
    path("events/<str:event_id>/withdraw/", apis.EventWithdrawApi.as_view(), name="withdraw"),
    path("events/<str:event_id>/cancel/", apis.EventCancelApi.as_view(), name="cancel"),
    path("events/<str:event_id>/remove/", apis.EventRemoveApi.as_view(), name="remove"),
]
