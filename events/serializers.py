"""The events API's input (types, sizes and choices checked here; what needs the rest of the
settings or the data, by the services' one check, `services.settings_problem`) and, for the
OpenAPI schema, its output (built by `events.apis`; tests keep the two in step)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from core.api.responses import ErrorSerializer, error_codes_document
from events.models import CODE_MAX, DESCRIPTION_MAX, ENTRANTS_MAX, NAME_MAX, Event
from events.services import SWISS_ROUNDS_MAX
from games.models import DAYS_PER_MOVE_CHOICES, Game

# The rating and game limits are small integers in the database: bounded here so that no number
# reaches it out of range.
RATING_LIMIT_MAX = 10_000
MIN_GAMES_MAX = 10_000
USERNAME_MAX = 150

error_codes_document(
    {
        "event_not_found": "404: no such event",
        "invalid_event": "400: the event's settings cannot be; `field` names the setting",
        "event_limit": "429: the organiser has as many events as they may for now",
        "not_organiser": "403: only the event's organiser may do that",
        "registration_closed": "409: the event is not open for registration",
        "event_full": "409: the event has as many players as it takes",
        "already_entered": "409: registered for the event already",
        "not_entered": "409: not registered for the event (or withdrawn already)",
        "not_eligible": "403: may not enter: the invitation code, rating, games finished, or"
        " another account of the same person in it",
        "event_conflict": "409: the event is past the point where that can be done",
    }
)


# -- strict input fields: what the schema says, not what DRF would make of other types ---------


class TextField(serializers.CharField):
    """A string: not a number made one (DRF's CharField takes `0` as "0")."""

    def to_internal_value(self, data: object) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictIntegerField(serializers.IntegerField):
    """A JSON integer: not "3", 3.0 or true."""

    def to_internal_value(self, data: object) -> int:
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictChoiceField(serializers.ChoiceField):
    """One of the choices as the schema types it: 2, not "2"."""

    def to_internal_value(self, data: object) -> Any:
        if isinstance(data, bool) or not any(
            type(data) is type(choice) and data == choice for choice in self.choices
        ):
            self.fail("invalid_choice", input=data)
        return data


class StrictBooleanField(serializers.BooleanField):
    """true or false: not 0, 1 or "yes"."""

    def to_internal_value(self, data: object) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


# -- input ------------------------------------------------------------------------------------


class EventFilterSerializer(serializers.Serializer):
    """The list's filters, from the query string."""

    status = serializers.ChoiceField(choices=Event.Status.values, required=False)
    format = serializers.ChoiceField(choices=Event.Format.values, required=False)
    table_size = serializers.ChoiceField(choices=[2, 3, 4], required=False)


class EventCreateSerializer(serializers.Serializer):
    """A new event's settings (`services.EventSettings`)."""

    name = TextField(min_length=1, max_length=NAME_MAX, help_text=f"1 to {NAME_MAX} characters")
    description = TextField(
        max_length=DESCRIPTION_MAX, required=False, allow_blank=True, default=""
    )
    format = StrictChoiceField(
        choices=Event.Format.values,
        help_text="round_robin: every table at once; swiss: round by round (`rounds`);"
        " elimination: the best `advance` of each table go on, to a final table",
    )
    table_size = StrictIntegerField(min_value=2, max_value=4, help_text="players per table")
    variant = StrictChoiceField(
        choices=Game.Variant.values, required=False, default=Game.Variant.COLORED
    )
    days_per_move = StrictChoiceField(
        choices=[d for d, _label in DAYS_PER_MOVE_CHOICES], required=False, default=3
    )
    rated = StrictBooleanField(required=False, default=True)
    max_entrants = StrictIntegerField(
        min_value=2,
        max_value=ENTRANTS_MAX,
        help_text="the most players; a round robin takes 3 to 32, at least a table's worth",
    )
    rating_min = StrictIntegerField(
        min_value=0, max_value=RATING_LIMIT_MAX, required=False, allow_null=True, default=None
    )
    rating_max = StrictIntegerField(
        min_value=0, max_value=RATING_LIMIT_MAX, required=False, allow_null=True, default=None
    )
    min_games = StrictIntegerField(
        min_value=0,
        max_value=MIN_GAMES_MAX,
        required=False,
        default=0,
        help_text="finished games a player needs to enter",
    )
    invitation_code = TextField(
        max_length=CODE_MAX,
        required=False,
        allow_blank=True,
        default="",
        trim_whitespace=False,
        help_text="set for a private event: entering needs it; only the organiser is shown it",
    )
    starts_at = serializers.DateTimeField(
        required=False,
        allow_null=True,
        default=None,
        help_text="when it starts (within 90 days); null: as soon as it is full",
    )
    rounds = StrictIntegerField(
        min_value=1,
        max_value=SWISS_ROUNDS_MAX,
        required=False,
        allow_null=True,
        default=None,
        help_text="a Swiss's rounds (needed for a Swiss; ignored otherwise)",
    )
    advance = StrictIntegerField(
        min_value=1,
        max_value=3,
        required=False,
        allow_null=True,
        default=None,
        help_text="how many of each table go on, fewer than a table seats (needed for an"
        " elimination; ignored otherwise)",
    )


class RegisterSerializer(serializers.Serializer):
    code = TextField(
        max_length=CODE_MAX,
        required=False,
        allow_blank=True,
        default="",
        trim_whitespace=False,
        help_text="a private event's invitation code",
    )


class RemoveSerializer(serializers.Serializer):
    # Not trimmed: a name with spaces is nobody's, a 409 like any other name not registered.
    username = TextField(
        min_length=1,
        max_length=USERNAME_MAX,
        trim_whitespace=False,
        help_text="the registered player to remove",
    )


# -- output -----------------------------------------------------------------------------------


class EventErrorSerializer(ErrorSerializer):
    """The error body of the events' refusals: an invalid setting names its `field`."""

    field = serializers.CharField(
        required=False, help_text="with `invalid_event`: the setting that is wrong"
    )


class EventSummarySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    format = serializers.ChoiceField(choices=Event.Format.values)
    table_size = serializers.IntegerField()
    variant = serializers.ChoiceField(choices=Game.Variant.values)
    days_per_move = serializers.IntegerField()
    rated = serializers.BooleanField()
    status = serializers.ChoiceField(choices=Event.Status.values)
    current_round = serializers.IntegerField(help_text="0 before the start")
    max_entrants = serializers.IntegerField()
    entrants = serializers.IntegerField(help_text="players registered and not withdrawn")
    private = serializers.BooleanField(help_text="entering needs an invitation code")
    organiser = serializers.CharField(
        allow_null=True, help_text="the organiser's username; null for the site's own events"
    )
    starts_at = serializers.DateTimeField(
        allow_null=True, help_text="null: it starts as soon as it is full"
    )
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)


class EventPageSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = EventSummarySerializer(many=True)


class EntryStateSerializer(serializers.Serializer):
    registered_at = serializers.DateTimeField()
    withdrawn_at = serializers.DateTimeField(allow_null=True)
    removed = serializers.BooleanField(help_text="taken out by the organiser")


class EventDetailSerializer(EventSummarySerializer):
    description = serializers.CharField()
    rating_min = serializers.IntegerField(allow_null=True)
    rating_max = serializers.IntegerField(allow_null=True)
    min_games = serializers.IntegerField()
    rounds = serializers.IntegerField(allow_null=True, help_text="a Swiss's rounds")
    advance = serializers.IntegerField(
        allow_null=True, help_text="an elimination's players going on from each table"
    )
    is_organiser = serializers.BooleanField(help_text="the caller organises it")
    invitation_code = serializers.CharField(
        allow_null=True, help_text="the organiser's own view only; null for everyone else"
    )
    my_entry = EntryStateSerializer(
        allow_null=True, help_text="the caller's registration; null when they have none"
    )


class StandingsRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField(help_text="1 for the first; level players share a rank")
    username = serializers.CharField()
    display_name = serializers.CharField()
    points = serializers.FloatField(help_text="by table placing, byes included")
    opponents_points = serializers.FloatField(help_text="first tie-break")
    game_score = serializers.IntegerField(help_text="second tie-break: the sum of game scores")
    direct = serializers.FloatField(help_text="third tie-break: among those level, direct meetings")
    played = serializers.IntegerField(help_text="tables finished")
    byes = serializers.IntegerField()
    withdrawn = serializers.BooleanField(help_text="withdrawn or removed: listed after the rest")


class StandingsSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=Event.Status.values)
    current_round = serializers.IntegerField()
    rows = StandingsRowSerializer(many=True)


class MeetingSerializer(serializers.Serializer):
    placing = serializers.IntegerField()
    opponent_placing = serializers.IntegerField()
    score = serializers.IntegerField()
    opponent_score = serializers.IntegerField()
    points = serializers.FloatField(help_text="the player's points from that table")


class OpponentSerializer(serializers.Serializer):
    opponent = serializers.CharField(help_text="the opponent's username")
    meetings = MeetingSerializer(many=True, help_text="each finished table they shared")


class CrosstableRowSerializer(serializers.Serializer):
    username = serializers.CharField()
    opponents = OpponentSerializer(many=True)


class CrosstableSerializer(serializers.Serializer):
    rows = CrosstableRowSerializer(many=True, help_text="the players in order of registration")


class SeatResultSerializer(serializers.Serializer):
    username = serializers.CharField(allow_null=True)
    placing = serializers.IntegerField(
        help_text="for the event: a player who resigned or timed out places after those who"
        " played on"
    )
    score = serializers.IntegerField()


class TableSerializer(serializers.Serializer):
    round = serializers.IntegerField()
    number = serializers.IntegerField()
    game_id = serializers.UUIDField()
    players = serializers.ListField(
        child=serializers.CharField(allow_null=True),
        help_text="usernames in the order they move (null for an account since deleted)",
    )
    status = serializers.ChoiceField(choices=Game.Status.values, help_text="the game's status")
    result = SeatResultSerializer(
        many=True, allow_null=True, help_text="in the order of `players`; null until it ends"
    )


class TablesSerializer(serializers.Serializer):
    tables = TableSerializer(many=True, help_text="by round, then table number")
