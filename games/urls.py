from django.urls import path

from games import views

app_name = "games"

urlpatterns = [
    path("lobby/", views.lobby, name="lobby"),
    path("games/", views.my_games, name="my_games"),
    path("history/", views.history, name="history"),
    path("games/new/", views.game_new, name="new"),
    path("games/<uuid:game_id>/", views.game_detail, name="detail"),
    path("games/<uuid:game_id>/board/", views.game_board, name="board"),
    path("games/<uuid:game_id>/join/", views.game_join, name="join"),
    path("games/<uuid:game_id>/invitation/", views.invitation_respond, name="invitation"),
    path("games/<uuid:game_id>/cancel/", views.game_cancel, name="cancel"),
    path("games/<uuid:game_id>/replay/", views.game_replay, name="replay"),
]
