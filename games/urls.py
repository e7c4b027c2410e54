from django.urls import path

from games import live, views

app_name = "games"

urlpatterns = [
    path("lobby/", views.lobby, name="lobby"),
    path("games/", views.my_games, name="my_games"),
    path("history/", views.history, name="history"),
    path("games/new/", views.game_new, name="new"),
    path("games/<uuid:game_id>/", views.game_detail, name="detail"),
    path("games/<uuid:game_id>/board/", views.game_board, name="board"),
    # Waits for the game to change (games.live): served by the live process in production.
    path("games/<uuid:game_id>/live/", live.game_changes, name="live"),
    path("games/<uuid:game_id>/join/", views.game_join, name="join"),
    path("games/<uuid:game_id>/invitation/", views.invitation_respond, name="invitation"),
    path("games/<uuid:game_id>/cancel/", views.game_cancel, name="cancel"),
    path("games/<uuid:game_id>/resign/", views.game_resign, name="resign"),
    path("games/<uuid:game_id>/rematch/", views.game_rematch, name="rematch"),
    path(
        "games/<uuid:game_id>/seats/<int:position>/invite/", views.seat_invite, name="seat_invite"
    ),
    path("games/<uuid:game_id>/seats/<int:position>/open/", views.seat_open, name="seat_open"),
    path("games/<uuid:game_id>/replay/", views.game_replay, name="replay"),
]
