from django.urls import path

from accounts import apis, views

app_name = "accounts"

urlpatterns = [
    path("players/<str:username>/", views.player_detail, name="player"),
    path("settings/", views.settings_view, name="settings"),
    path("settings/vacation/", views.vacation_view, name="vacation"),
    path("settings/token/", views.token_create_view, name="token_create"),
    path("settings/token/revoke/", views.token_revoke_view, name="token_revoke"),
    path(
        "accounts/verification/resend/",
        views.verification_resend_view,
        name="verification_resend",
    ),
    path("api/me/", apis.MeApi.as_view(), name="api_me"),
    path("api/players/", apis.PlayerSearchApi.as_view(), name="api_players"),
]
