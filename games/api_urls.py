"""The game API, under /api/. Game ids are matched as any string so that a malformed id gets the
API's JSON 404 rather than the site's HTML one."""

from django.urls import path

from games import apis

app_name = "games_api"

urlpatterns = [
    path("games/", apis.GameListApi.as_view(), name="games"),
    # Before "games/<game_id>/", which would take "import" for a game id.
    path("games/import/", apis.GameImportApi.as_view(), name="import"),
    path("games/<str:game_id>/", apis.GameDetailApi.as_view(), name="game"),
    path("games/<str:game_id>/legal-moves/", apis.GameLegalMovesApi.as_view(), name="legal_moves"),
    path("games/<str:game_id>/log/", apis.GameLogApi.as_view(), name="log"),
    path("games/<str:game_id>/moves/", apis.GameMovesApi.as_view(), name="moves"),
    path("games/<str:game_id>/join/", apis.GameJoinApi.as_view(), name="join"),
    path("games/<str:game_id>/invitation/", apis.GameInvitationApi.as_view(), name="invitation"),
    path("games/<str:game_id>/cancel/", apis.GameCancelApi.as_view(), name="cancel"),
    path(
        "games/<str:game_id>/seats/<str:position>/invite/",
        apis.GameSeatInviteApi.as_view(),
        name="seat_invite",
    ),
    path(
        "games/<str:game_id>/seats/<str:position>/open/",
        apis.GameSeatOpenApi.as_view(),
        name="seat_open",
    ),
    path("games/<str:game_id>/resign/", apis.GameResignApi.as_view(), name="resign"),
    path("games/<str:game_id>/rematch/", apis.GameRematchApi.as_view(), name="rematch"),
    path("games/<str:game_id>/export/", apis.GameExportApi.as_view(), name="export"),
    path("lobby/", apis.LobbyApi.as_view(), name="lobby"),
    path("invitations/", apis.InvitationListApi.as_view(), name="invitations"),
    path(
        "invitations/<str:game_id>/accept/",
        apis.InvitationAcceptApi.as_view(),
        name="invitation_accept",
    ),
    path(
        "invitations/<str:game_id>/decline/",
        apis.InvitationDeclineApi.as_view(),
        name="invitation_decline",
    ),
]
