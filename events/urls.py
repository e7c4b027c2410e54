"""Routes of the events app (filled in as its pages and API land)."""

from django.urls import path  # noqa: F401

app_name = "events"
urlpatterns: list = []
