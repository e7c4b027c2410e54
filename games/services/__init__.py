"""Writes for games. Each runs in one transaction that locks the game's row (`select_for_update`,
the seats read once the lock is granted: `playing.lock_game`) and changes `updated_at`, which is
the version that views and boards are cached under. The questions every write asks of a game's
seats are the models' (`Seat.of_user`, `Seat.human_player_ids`, `Game.started_state`).

- `game_settings`: a new game's settings and their one check (the form's, the API's, ours);
- `setup`: a game created, joined, cancelled, started; who may invite whom (blocks, the
  cool-down after a decline) and join whom; the deal seed and the players' contributions;
- `invitations`: invitations answered, and the creator's choices for a seat;
- `moves`: a player's move, the computer's (and the slow levels' lane, fair between players),
  and the server's when a turn's time ran out;
- `playing`: the game's row read and locked, and what every move does (the engine, the log and
  the deals, the result, what follows);
- `clocks`: when a turn ends, and vacations;
- `endings`: resigning, and rematches;
- `players`: a player's private notes and calendar feed, a new version of their games when
  something they show changes, and their leaving every game when they delete their account.

The move path is the only way a log entry is written: lock the game -> check status, seat,
`expected_ply` and turn -> apply the move through the engine -> append the log entries (the
move, then the next round's deal when one is due) and save the game's changed fields -> on
commit, enqueue follow-ups (`games.follow_ups`). What other apps do about a change (emails,
ratings) goes through `games.effects`, inside the same transaction.

Callers use the services from here: `services.move_submit(...)`.
"""

from games.services.clocks import vacation_end, vacation_start
from games.services.endings import game_rematch, game_resign
from games.services.game_settings import (
    BOT_LEVELS,
    DAYS_PER_MOVE,
    PLAYER_COUNTS,
    SEAT_KINDS,
    SeatKind,
    SeatProblem,
    SeatSpec,
    invitee_missing,
    seat_problems,
    validate_settings,
)
from games.services.invitations import invitation_respond, seat_invite, seat_open
from games.services.moves import (
    TIMEOUTS_BEFORE_AUTOPLAY,
    computer_move_play,
    move_submit,
    slow_computer_move_play,
    timeouts_play,
)
from games.services.players import (
    calendar_feed_renew,
    calendar_feed_turn_off,
    game_note_save,
    games_touch_for_player,
    player_calendar_feed_forget,
    player_games_leave,
    player_notes_forget,
)
from games.services.playing import MOVE_FIELDS
from games.services.setup import game_cancel, game_create, game_join

__all__ = [
    "BOT_LEVELS",
    "DAYS_PER_MOVE",
    "MOVE_FIELDS",
    "PLAYER_COUNTS",
    "SEAT_KINDS",
    "TIMEOUTS_BEFORE_AUTOPLAY",
    "SeatKind",
    "SeatProblem",
    "SeatSpec",
    "calendar_feed_renew",
    "calendar_feed_turn_off",
    "computer_move_play",
    "game_cancel",
    "game_create",
    "game_join",
    "game_note_save",
    "game_rematch",
    "game_resign",
    "games_touch_for_player",
    "invitation_respond",
    "invitee_missing",
    "move_submit",
    "player_calendar_feed_forget",
    "player_games_leave",
    "player_notes_forget",
    "seat_invite",
    "seat_open",
    "seat_problems",
    "slow_computer_move_play",
    "timeouts_play",
    "vacation_end",
    "vacation_start",
    "validate_settings",
]
