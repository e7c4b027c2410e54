from django.urls import path

from notifications import views

app_name = "notifications"

urlpatterns = [
    path("unsubscribe/<str:token>/", views.unsubscribe, name="unsubscribe"),
]
