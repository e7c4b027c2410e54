"""Reads for games, with fixed query counts: querysets, models and typed records, never text
(`games.presenters` makes what pages and the API show from these).

Games are public to watch: any signed-in user may read a game, its log and its public state (the
bag and the lid are counts per colour, as everyone at the table can work them out; nothing about
future deals exists). Only players see their own legal moves.

- `games`: one game by its id, its version (what everything cached for it is keyed by), the
  viewer's seat and legal moves;
- `log`: the game's stored log, and the moves the server made for a person in it;
- `lists`: a player's games, the lobby (and followed players' games in it), invitations,
  declined invitations, rematches;
- `history`: finished games and a player's record over them;
- `notes`: a player's private notes on a game;
- `turns`: whose turn it is across games, and how many wait for a player.
"""

from games.selectors.games import (
    VIEW_CACHE_SECONDS,
    GameVersion,
    game_get,
    game_ply,
    game_version,
    legal_moves_for,
    parse_game_id,
    resigned_positions,
    seat_legal_moves,
    viewer_seat,
)
from games.selectors.history import (
    HISTORY_COUNT_SECONDS,
    HISTORY_PAGE_SIZE,
    PlayerStats,
    finished_games,
    finished_version,
    history_count_key,
    player_stats,
)
from games.selectors.lists import (
    FINISHED_LIMIT,
    FRIENDS_GAMES_LIMIT,
    LOBBY_LIMIT,
    MY_GAMES_MAX_PAGE_SIZE,
    MY_GAMES_PAGE_SIZE,
    GamesPage,
    UserGames,
    declined_games,
    friends_open_games,
    lobby_games,
    pending_invitations,
    rematches_of,
    seats_with_rematch,
    user_games,
    user_games_page,
)
from games.selectors.log import (
    TIMEOUTS_BEFORE_TAKEOVER,
    LogRecord,
    ServerMove,
    log_entries,
    own_moves,
    server_moves,
)
from games.selectors.notes import game_note, seated, seated_note_text
from games.selectors.turns import (
    MAX_PLAYERS,
    WAITING_COUNT_SECONDS,
    games_waiting_count,
    games_waiting_forget,
    invitations_waiting_count,
    seats_to_move,
)

__all__ = [
    "FINISHED_LIMIT",
    "FRIENDS_GAMES_LIMIT",
    "HISTORY_COUNT_SECONDS",
    "HISTORY_PAGE_SIZE",
    "LOBBY_LIMIT",
    "MY_GAMES_MAX_PAGE_SIZE",
    "MY_GAMES_PAGE_SIZE",
    "GamesPage",
    "MAX_PLAYERS",
    "TIMEOUTS_BEFORE_TAKEOVER",
    "VIEW_CACHE_SECONDS",
    "WAITING_COUNT_SECONDS",
    "GameVersion",
    "LogRecord",
    "PlayerStats",
    "ServerMove",
    "UserGames",
    "declined_games",
    "finished_games",
    "finished_version",
    "friends_open_games",
    "history_count_key",
    "game_get",
    "game_ply",
    "game_version",
    "games_waiting_count",
    "game_note",
    "games_waiting_forget",
    "invitations_waiting_count",
    "legal_moves_for",
    "lobby_games",
    "log_entries",
    "own_moves",
    "parse_game_id",
    "pending_invitations",
    "player_stats",
    "rematches_of",
    "resigned_positions",
    "seat_legal_moves",
    "seated",
    "seated_note_text",
    "seats_to_move",
    "seats_with_rematch",
    "server_moves",
    "user_games",
    "user_games_page",
    "viewer_seat",
]
