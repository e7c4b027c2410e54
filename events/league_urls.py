"""Routes of the leagues' pages (`leagues:...`); their API's are in `events.league_api_urls`."""

from django.urls import path

from events import league_web

app_name = "leagues"

urlpatterns = [
    path("leagues/", league_web.league_list, name="list"),
    path("leagues/<slug:slug>/", league_web.league_detail, name="detail"),
    path("leagues/<slug:slug>/join/", league_web.league_join, name="join"),
    path("leagues/<slug:slug>/leave/", league_web.league_leave, name="leave"),
    # Beside the player's own page (`accounts:player`: players/<username>/).
    path("players/<str:username>/leagues/", league_web.league_history, name="history"),
]
