"""The games, their ratings and analyses: what one player may do at once, and how ratings and
analyses are made."""

from azul_site.settings.base import env
from azul_site.settings.tasks import CELERY_TASK_ALWAYS_EAGER

# Fair play (games/services/setup.py): what one player may have at once. Games with a computer
# seat that they play (waiting for players or in progress); games they created that wait in the
# lobby for someone to join; games against the `master` computer. Past one: 409 and how to free
# a place.
GAMES_MAX_COMPUTER_GAMES = env.int("GAMES_MAX_COMPUTER_GAMES", default=10)
GAMES_MAX_LOBBY_GAMES = env.int("GAMES_MAX_LOBBY_GAMES", default=5)
GAMES_MAX_MASTER_GAMES = env.int("GAMES_MAX_MASTER_GAMES", default=2)
# Games one player may import as studies (games/record/study_import.py) in 24 hours; past it, 429.
GAMES_MAX_IMPORTS_PER_DAY = env.int("GAMES_MAX_IMPORTS_PER_DAY", default=20)
# Events (events/services.py): the most events one organiser may have not finished at once, and
# create in 24 hours. Past either: 429.
EVENTS_MAX_OPEN = env.int("EVENTS_MAX_OPEN", default=3)
EVENTS_MAX_PER_DAY = env.int("EVENTS_MAX_PER_DAY", default=5)
# A player who declined an invitation cannot be invited by the same player again for this many
# days (a new game, a seat, a rematch: games/services/setup.py).
INVITATION_DECLINE_COOLDOWN_DAYS = env.int("INVITATION_DECLINE_COOLDOWN_DAYS", default=7)
# The most players one player may block (accounts.services.block_create).
ACCOUNTS_MAX_BLOCKS = env.int("ACCOUNTS_MAX_BLOCKS", default=500)
# The most players one player may follow (accounts.services.follow_create).
ACCOUNTS_MAX_FOLLOWS = env.int("ACCOUNTS_MAX_FOLLOWS", default=500)
# Requests to wait for a game to change (games/live) one player may hold at once in a process.
LIVE_MAX_WAITS_PER_PLAYER = env.int("LIVE_MAX_WAITS_PER_PLAYER", default=20)

# Ratings: a player appears on the leaderboard after this many rated games.
RATINGS_MIN_GAMES = env.int("RATINGS_MIN_GAMES", default=5)
# Fair ratings (README, "Fair play"): a game resigned or abandoned before every player has made
# this many moves of their own is not rated; only this many games between the same two players
# are rated in a day (24 h) and in a week (7 days); the leaderboard lists players who have played
# rated games against at least this many different opponents.
RATINGS_MIN_OWN_MOVES = env.int("RATINGS_MIN_OWN_MOVES", default=3)
RATINGS_PAIR_GAMES_PER_DAY = env.int("RATINGS_PAIR_GAMES_PER_DAY", default=3)
RATINGS_PAIR_GAMES_PER_WEEK = env.int("RATINGS_PAIR_GAMES_PER_WEEK", default=10)
RATINGS_MIN_OPPONENTS = env.int("RATINGS_MIN_OPPONENTS", default=5)
# The computer levels' ratings (ratings/levels.py), fitted again every this many seconds from the
# calibration arena and their games against people with an established rating; each person's
# games against one level count as at most RATINGS_LEVEL_GAMES_PER_PERSON games, so that no
# account (nor a few) can move a level far by playing it over and over.
RATINGS_LEVELS_EVERY_SECONDS = env.int("RATINGS_LEVELS_EVERY_SECONDS", default=3600)
RATINGS_LEVEL_GAMES_PER_PERSON = env.int("RATINGS_LEVEL_GAMES_PER_PERSON", default=10)

# Search time per analysed game (shared among its positions) and per position, in seconds.
# In-process (no broker), the analysis runs in the request that asks for it: keep it short.
ANALYSIS_SECONDS_PER_GAME = env.float(
    "ANALYSIS_SECONDS_PER_GAME", default=10.0 if CELERY_TASK_ALWAYS_EAGER else 120.0
)
ANALYSIS_MIN_SECONDS_PER_MOVE = env.float("ANALYSIS_MIN_SECONDS_PER_MOVE", default=0.05)
ANALYSIS_MAX_SECONDS_PER_MOVE = env.float("ANALYSIS_MAX_SECONDS_PER_MOVE", default=4.0)
# Fair play: a game is analysed only if its people made at least this many moves themselves (not
# the server's at a timeout, nor the computer's for a seat it took over); and a player has at
# most this many analyses pending at once (asked for by them, not yet done).
ANALYSIS_MIN_PERSON_MOVES = env.int("ANALYSIS_MIN_PERSON_MOVES", default=10)
ANALYSIS_MAX_PENDING_PER_PLAYER = env.int("ANALYSIS_MAX_PENDING_PER_PLAYER", default=3)
