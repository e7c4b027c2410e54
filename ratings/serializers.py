"""The ratings API's input and, for the OpenAPI schema, its output (the dicts built by
`ratings.selectors` and `ratings.presenters`; tests keep the two in step)."""

from rest_framework import serializers

from core.api.responses import error_codes_document
from games.models import Game
from ratings.fair_play import Unrated


class LeaderboardFilterSerializer(serializers.Serializer):
    variant = serializers.ChoiceField(
        choices=Game.Variant.values, required=False, help_text="only games of this variant"
    )
    players = serializers.ChoiceField(
        choices=[2, 3, 4], required=False, help_text="only games of this many players"
    )
    computers = serializers.BooleanField(
        required=False,
        default=False,
        help_text="also give the computer levels, each with where it falls (`computer_levels`)",
    )


class ComputerLevelSerializer(serializers.Serializer):
    level = serializers.CharField(help_text="the level's name: random, greedy, medium, ...")
    name = serializers.CharField(help_text="its name in the reader's language")
    rating = serializers.IntegerField(
        help_text="on the players' scale: 1000 + 40 (mu - 3 sigma), never below 0"
    )
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    games = serializers.IntegerField(help_text="finished games against people that count")
    people = serializers.IntegerField(help_text="different people in those games")
    wins = serializers.IntegerField(help_text="pairs (the level, a person) it finished ahead")
    losses = serializers.IntegerField(help_text="pairs it finished behind")
    ties = serializers.IntegerField(help_text="pairs it finished level")
    updated_at = serializers.DateTimeField(
        allow_null=True, help_text="when it was last fitted; null: from the calibration alone"
    )
    url = serializers.CharField(help_text="its page")


class CalibrationStepSerializer(serializers.Serializer):
    opponent = serializers.CharField(help_text="the neighbouring level")
    games = serializers.IntegerField()
    win_rate = serializers.FloatField(help_text="this level's, ties as half, from 0 to 1")
    low = serializers.FloatField(help_text="95% Wilson interval, low end")
    high = serializers.FloatField(help_text="95% Wilson interval, high end")
    command = serializers.CharField(help_text="the arena run that measured it")


class ComputerLevelDetailSerializer(ComputerLevelSerializer):
    calibration = CalibrationStepSerializer(many=True)


class LeaderboardLevelSerializer(ComputerLevelSerializer):
    players_above = serializers.IntegerField(
        help_text="players on this leaderboard rated at least as high"
    )


class LeaderboardRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField(help_text="1 for the best")
    username = serializers.CharField()
    display_name = serializers.CharField()
    rating = serializers.IntegerField(
        help_text="conservative estimate of skill over all rated games: 1000 + 40 (mu - 3 sigma)"
    )
    games = serializers.IntegerField(help_text="rated games of the kind shown")
    wins = serializers.IntegerField(help_text="of them, games won (first place, shared or not)")
    win_rate = serializers.FloatField(help_text="wins / games, from 0 to 1")


class LeaderboardStandingSerializer(LeaderboardRowSerializer):
    rank = serializers.IntegerField(
        allow_null=True, help_text="null while the player has too few rated games to appear"
    )
    games_needed = serializers.IntegerField(help_text="more rated games needed to appear")
    opponents_needed = serializers.IntegerField(
        help_text="more different opponents (in rated games) needed to appear"
    )


class LeaderboardPageSerializer(serializers.Serializer):
    count = serializers.IntegerField(help_text="players on this leaderboard")
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    min_games = serializers.IntegerField(help_text="rated games of the kind needed to appear")
    min_opponents = serializers.IntegerField(
        help_text="different opponents in rated games needed to appear"
    )
    results = LeaderboardRowSerializer(many=True)
    computer_levels = LeaderboardLevelSerializer(
        many=True, allow_null=True, help_text="with `computers=true`; else null"
    )
    me = LeaderboardStandingSerializer(
        allow_null=True,
        help_text="the signed-in player's own row, wherever it falls; null for a visitor or a "
        "player with no rated game of the kind",
    )


class SeatRatingSerializer(serializers.Serializer):
    position = serializers.IntegerField(help_text="the seat, from 0")
    username = serializers.CharField(
        allow_null=True, help_text="the player's account; null for a computer or a study's seat"
    )
    name = serializers.CharField(help_text="the seat as the game's page names it")
    rating_before = serializers.IntegerField(
        allow_null=True, help_text="the player's shown rating before the game; null if unrated"
    )
    rating_after = serializers.IntegerField(
        allow_null=True, help_text="the player's shown rating after the game; null if unrated"
    )
    change = serializers.IntegerField(
        allow_null=True, help_text="rating_after - rating_before; null if unrated"
    )


class GameRatingSerializer(serializers.Serializer):
    rated = serializers.BooleanField(help_text="whether the game's result is in the ratings")
    reason = serializers.ChoiceField(
        choices=[reason.value for reason in Unrated],
        allow_null=True,
        help_text="why the game is not rated, for a program (null for a rated game): "
        "`not_between_people` (a computer seat, or a study: never rated), `too_short` (resigned "
        "or abandoned before every player made RATINGS_MIN_OWN_MOVES moves of their own), "
        "`pair_limit` (the two players had had their rated games of the day or the week)",
    )
    reason_text = serializers.CharField(
        allow_null=True, help_text="the same, as the game's page says it, in the request's language"
    )
    seats = SeatRatingSerializer(many=True)


error_codes_document(
    {"game_not_finished": "409: the game is not over; it is rated, or not, when it ends"}
)
