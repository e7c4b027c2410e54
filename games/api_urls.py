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
    path("games/<str:game_id>/export/", apis.GameExportApi.as_view(), name="export"),
]
