app_name = "games"

# Lobby, game pages and the game API are added here; the site's base layout links to
# `games:lobby` and `games:my_games` as soon as those names exist.
urlpatterns: list = []
