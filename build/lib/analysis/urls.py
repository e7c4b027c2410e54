from django.urls import path

from analysis import views

app_name = "analysis"

urlpatterns = [
    path("games/<uuid:game_id>/analysis/", views.analysis_request, name="request"),
]
