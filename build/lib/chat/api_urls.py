from django.urls import path

from chat import apis

app_name = "chat_api"

urlpatterns = [
    path("games/<str:game_id>/chat/", apis.GameChatApi.as_view(), name="chat"),
    path("games/<str:game_id>/chat/mute/", apis.GameChatMuteApi.as_view(), name="mute"),
    path("chat/players/<str:username>/mute/", apis.PlayerChatMuteApi.as_view(), name="mute_player"),
    path("chat/messages/<str:message_id>/report/", apis.ChatReportApi.as_view(), name="report"),
]
