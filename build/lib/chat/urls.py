from django.urls import path

from chat import views

app_name = "chat"

urlpatterns = [
    path("games/<uuid:game_id>/chat/", views.message_post, name="post"),
    path("games/<uuid:game_id>/chat/mute/", views.game_mute, name="mute"),
    path("games/<uuid:game_id>/chat/mute-player/", views.player_mute, name="mute_player"),
    path("games/<uuid:game_id>/chat/report/", views.message_report, name="report"),
    path("games/<uuid:game_id>/chat/privacy/", views.privacy_set, name="privacy"),
    path("settings/chat/", views.privacy_settings_set, name="privacy_settings"),
]
