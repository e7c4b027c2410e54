"""The games' URLs on the site (`games:...`): their pages (`games.web`) and the wait for a game to
change (`games.live`), which stands above the pages (it answers with their board's version) and
so is routed here rather than among them."""

from django.urls import path

from games.live import views as live_views
from games.web.urls import urlpatterns as page_patterns

app_name = "games"

urlpatterns = [
    *page_patterns,
    # Waits for the game to change: served by the live process in production.
    path("games/<uuid:game_id>/live/", live_views.game_changes, name="live"),
]
