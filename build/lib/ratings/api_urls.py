"""The ratings API, under /api/."""

from django.urls import path

from ratings import apis

app_name = "ratings_api"

urlpatterns = [
    path("leaderboard/", apis.LeaderboardApi.as_view(), name="leaderboard"),
    path("computer-levels/", apis.ComputerLevelsApi.as_view(), name="computer_levels"),
    path("computer-levels/<str:level>/", apis.ComputerLevelApi.as_view(), name="computer_level"),
    path("games/<str:game_id>/rating/", apis.GameRatingApi.as_view(), name="game_rating"),
]
