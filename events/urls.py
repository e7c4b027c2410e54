"""Routes of the events' pages (`events:...`); the API's are in `events.api_urls`."""

from django.urls import path

from events import web

app_name = "events"
urlpatterns = [
    path("events/", web.event_list, name="list"),
    path("events/new/", web.event_create, name="create"),
    path("events/<int:event_id>/", web.event_detail, name="detail"),
    path("events/<int:event_id>/register/", web.entry_register, name="register"),
    path("events/<int:event_id>/withdraw/", web.entry_withdraw, name="withdraw"),
    path("events/<int:event_id>/remove/", web.entry_remove, name="remove"),
    path("events/<int:event_id>/cancel/", web.event_cancel, name="cancel"),
]
