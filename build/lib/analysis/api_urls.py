from django.urls import path

from analysis import apis

app_name = "analysis_api"

urlpatterns = [
    path("games/<str:game_id>/analysis/", apis.GameAnalysisApi.as_view(), name="analysis"),
]
