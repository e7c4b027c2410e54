from django.urls import path

from ratings import views

app_name = "ratings"

urlpatterns = [
    path("leaderboard/", views.leaderboard, name="leaderboard"),
    path("computer/", views.levels_page, name="levels"),
    path("computer/<str:level>/", views.level_page, name="level"),
]
