"""The ratings API, under /api/."""

from django.urls import path

from ratings import apis

app_name = "ratings_api"

urlpatterns = [
    path("leaderboard/", apis.LeaderboardApi.as_view(), name="leaderboard"),
    path("games/<str:game_id>/rating/", apis.GameRatingApi.as_view(), name="game_rating"),
]
