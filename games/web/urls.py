"""The games' pages (`games:...`, named in `games.urls` with the live wait beside them)."""

from django.urls import path

from games.web import actions, board, calendar, next_game, notes, pages

urlpatterns = [
    path("lobby/", pages.lobby, name="lobby"),
    path("games/", pages.my_games, name="my_games"),
    path("history/", pages.history, name="history"),
    path("games/new/", pages.game_new, name="new"),
    # The game that waits for the player's move next (the header's count links here).
    path("games/next/", next_game.next_game_redirect, name="next"),
    path("games/<uuid:game_id>/", board.game_detail, name="detail"),
    path("games/<uuid:game_id>/board/", board.game_board, name="board"),
    path("games/<uuid:game_id>/join/", actions.game_join, name="join"),
    path("games/<uuid:game_id>/invitation/", actions.invitation_respond, name="invitation"),
    path("games/<uuid:game_id>/cancel/", actions.game_cancel, name="cancel"),
    path("games/<uuid:game_id>/resign/", actions.game_resign, name="resign"),
    path("games/<uuid:game_id>/rematch/", actions.game_rematch, name="rematch"),
    path("games/<uuid:game_id>/notes/", notes.game_notes_save, name="notes"),
    path(
        "games/<uuid:game_id>/seats/<int:position>/invite/",
        actions.seat_invite,
        name="seat_invite",
    ),
    path("games/<uuid:game_id>/seats/<int:position>/open/", actions.seat_open, name="seat_open"),
    path("games/<uuid:game_id>/replay/", pages.game_replay, name="replay"),
    path("games/<uuid:game_id>/replay/points/", pages.game_replay_points, name="replay_points"),
    # The settings page's vacation form (accounts/settings.html): it stops the player's clocks.
    path("settings/vacation/", actions.vacation_start, name="vacation"),
    path("settings/vacation/end/", actions.vacation_end, name="vacation_end"),
    # A player's calendar feed: read by calendar apps at its secret address (no sign-in), and
    # the settings page's forms that make a new address or turn it off.
    path("calendar/<str:token>.ics", calendar.calendar_feed, name="calendar_feed"),
    path("settings/calendar/new/", calendar.calendar_feed_new, name="calendar_feed_new"),
    path("settings/calendar/off/", calendar.calendar_feed_off, name="calendar_feed_off"),
]
