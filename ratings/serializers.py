"""The leaderboard API's input and, for the OpenAPI schema, its output (the dicts built by
`ratings.selectors`; a test keeps the two in step)."""

from rest_framework import serializers

from games.models import Game


class LeaderboardFilterSerializer(serializers.Serializer):
    variant = serializers.ChoiceField(
        choices=Game.Variant.values, required=False, help_text="only games of this variant"
    )
    players = serializers.ChoiceField(
        choices=[2, 3, 4], required=False, help_text="only games of this many players"
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
    me = LeaderboardStandingSerializer(
        allow_null=True,
        help_text="the signed-in player's own row, wherever it falls; null for a visitor or a "
        "player with no rated game of the kind",
    )
