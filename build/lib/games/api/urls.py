"""The game API, under /api/. Game ids are matched as any string so that a malformed id gets the
API's JSON 404 rather than the site's HTML one."""

from django.urls import path

from games.api import endings, notes, record, seats
from games.api import games as game_apis

app_name = "games_api"

urlpatterns = [
    path("games/", game_apis.GameListApi.as_view(), name="games"),
    # Before "games/<game_id>/", which would take "import" and "waiting" for game ids.
    path("games/import/", record.GameImportApi.as_view(), name="import"),
    path("games/waiting/", game_apis.GamesWaitingApi.as_view(), name="waiting"),
    path("games/<str:game_id>/", game_apis.GameDetailApi.as_view(), name="game"),
    path(
        "games/<str:game_id>/legal-moves/",
        game_apis.GameLegalMovesApi.as_view(),
        name="legal_moves",
    ),
    path("games/<str:game_id>/log/", game_apis.GameLogApi.as_view(), name="log"),
    path("games/<str:game_id>/moves/", game_apis.GameMovesApi.as_view(), name="moves"),
    path("games/<str:game_id>/join/", seats.GameJoinApi.as_view(), name="join"),
    path("games/<str:game_id>/invitation/", seats.GameInvitationApi.as_view(), name="invitation"),
    path("games/<str:game_id>/cancel/", seats.GameCancelApi.as_view(), name="cancel"),
    path(
        "games/<str:game_id>/seats/<str:position>/invite/",
        seats.GameSeatInviteApi.as_view(),
        name="seat_invite",
    ),
    path(
        "games/<str:game_id>/seats/<str:position>/open/",
        seats.GameSeatOpenApi.as_view(),
        name="seat_open",
    ),
    path("games/<str:game_id>/resign/", endings.GameResignApi.as_view(), name="resign"),
    path("games/<str:game_id>/rematch/", endings.GameRematchApi.as_view(), name="rematch"),
    path("games/<str:game_id>/export/", record.GameExportApi.as_view(), name="export"),
    path("games/<str:game_id>/notes/", notes.GameNotesApi.as_view(), name="notes"),
    path("lobby/", seats.LobbyApi.as_view(), name="lobby"),
    path("invitations/", seats.InvitationListApi.as_view(), name="invitations"),
    path(
        "invitations/<str:game_id>/accept/",
        seats.InvitationAcceptApi.as_view(),
        name="invitation_accept",
    ),
    path(
        "invitations/<str:game_id>/decline/",
        seats.InvitationDeclineApi.as_view(),
        name="invitation_decline",
    ),
]
