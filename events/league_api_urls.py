"""The leagues' API, under /api/. Slugs are matched as any string so that one that cannot be a
slug gets the API's JSON 404 rather than the site's HTML one."""

from django.urls import path

from events import league_apis

app_name = "leagues_api"

urlpatterns = [
    path("leagues/", league_apis.LeagueListApi.as_view(), name="leagues"),
    path("leagues/<str:slug>/", league_apis.LeagueDetailApi.as_view(), name="league"),
    path("leagues/<str:slug>/join/", league_apis.LeagueJoinApi.as_view(), name="join"),
    path("leagues/<str:slug>/leave/", league_apis.LeagueLeaveApi.as_view(), name="leave"),
]
