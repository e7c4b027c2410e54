"""Players' ratings, their records per kind of game, and the mark of each rated game.

`Rating` is the player's skill (OpenSkill's mu and sigma, one per player over all games) and
its shown value. `PlayerRecord` is what a leaderboard lists: for each kind of game a player has
played (variant and number of players, "" and 0 standing for any), their rated games, wins, and
a copy of their shown rating, so that a leaderboard for any filter reads one index in rating
order. `RatedGame` marks a game whose result went into the ratings: a game is rated once.

All three are written only by `ratings.services`, under the lock of the players' `Rating` rows.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q

from games.models import Game
from ratings import skill

ANY_VARIANT = ""
ANY_PLAYERS = 0


class Rating(models.Model):
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="rating",
    )
    mu = models.FloatField(default=skill.INITIAL_MU)
    sigma = models.FloatField(default=skill.INITIAL_SIGMA)
    # `skill.display(mu, sigma)`, unrounded; pages round it.
    rating = models.FloatField(default=skill.INITIAL_DISPLAY)
    # Different players met in rated games: the leaderboard asks for RATINGS_MIN_OPPONENTS.
    opponents = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.user_id}: {self.rating:.0f} (mu {self.mu:.2f}, sigma {self.sigma:.2f})"


class PlayerRecord(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_records"
    )
    variant = models.CharField(max_length=10, blank=True, help_text='"" for every variant')
    num_players = models.PositiveSmallIntegerField(help_text="0 for any number of players")
    games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    # The player's `Rating.rating`, copied to each of their records when it changes.
    rating = models.FloatField(default=skill.INITIAL_DISPLAY)

    class Meta:
        constraints = [
            # Also the index that finds a player's records (it leads with the user).
            models.UniqueConstraint(
                fields=["user", "variant", "num_players"], name="playerrecord_unique_kind"
            ),
            models.CheckConstraint(
                condition=Q(variant__in=["", "colored", "gray"]), name="playerrecord_variant"
            ),
            models.CheckConstraint(
                condition=Q(num_players__in=[0, 2, 3, 4]), name="playerrecord_num_players"
            ),
            models.CheckConstraint(
                condition=Q(wins__lte=models.F("games")), name="playerrecord_wins"
            ),
        ]
        indexes = [
            # The leaderboard: one kind of game in rating order (ties by user), read from the top
            # down to a page, so ORDER BY ... LIMIT needs no sort.
            models.Index(
                fields=["variant", "num_players", "-rating", "user"], name="playerrecord_board_idx"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} {self.variant or 'any'}/{self.num_players or 'any'}: {self.games}"


class RatedGame(models.Model):
    """The game's result is in the ratings. Written in the transaction that rates it; the
    primary key is the backstop against rating a game twice."""

    game = models.OneToOneField(
        Game, on_delete=models.CASCADE, primary_key=True, related_name="rated"
    )
    rated_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.game_id} rated at {self.rated_at:%Y-%m-%d %H:%M}"


class LevelRating(models.Model):
    """A computer level's place on the players' scale (`ratings.levels`), fitted again from
    every result by `ratings.services.levels_rate` (the sweep, hourly): never moved game by game.
    The counts are its finished games against people that the fit took (people with an
    established rating), from the level's side."""

    level = models.CharField(max_length=10, primary_key=True)
    mu = models.FloatField()
    sigma = models.FloatField()
    # `levels.LevelSkill.rating`, unrounded; pages round it.
    rating = models.FloatField()
    games = models.PositiveIntegerField(default=0)
    people = models.PositiveIntegerField(default=0, help_text="different people it played")
    wins = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    ties = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.level}: {self.rating:.0f} (mu {self.mu:.2f}, sigma {self.sigma:.2f})"
