"""DRF serializers for the game API: input validation, and output shapes for the OpenAPI schema.

Outputs are the dicts built by `games.presenters` (and `games.record` for a game's export);
these serializers only describe and render them.
"""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from azul import fairness
from core.api.responses import error_codes_document
from games.models import Game, Seat
from games.services import BOT_LEVELS, DAYS_PER_MOVE, PLAYER_COUNTS, SEAT_KINDS, invitee_missing


class SeatInputSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(
        choices=list(SEAT_KINDS),
        help_text="invite a named player, leave the seat open, or seat a computer player",
    )
    username = serializers.CharField(
        required=False, min_length=1, max_length=150, help_text="for kind=invite: who to invite"
    )
    level = serializers.ChoiceField(
        choices=list(BOT_LEVELS),
        default=Seat.BotLevel.RANDOM,
        help_text="for kind=computer: its playing level",
    )

    def validate(self, attrs: dict) -> dict:
        # Said here, under the field, before the service's check (`services.validate_settings`)
        # sees the rest.
        if invitee_missing(attrs["kind"], attrs.get("username")):
            raise serializers.ValidationError({"username": "Name the player to invite."})
        return attrs


CONTRIBUTION_HELP = (
    "your contribution to the game's deals, mixed with the server's committed seed: 1 to 64"
    " printable ASCII characters without spaces (e.g. 32 random bytes in hex); if you send none,"
    " the server makes one up for you"
)


# In the schema only: the service checks it (`services.setup.contribution_or_new`) and says what
# is wrong with one in its own words (`invalid_contribution`). Or empty (drf-spectacular adds
# that): the server makes one up.
@extend_schema_field({"type": "string", "pattern": f"^[!-~]{{1,{fairness.CONTRIBUTION_MAX}}}$"})
class ContributionField(serializers.CharField):
    pass


def contribution_field() -> serializers.CharField:
    """The optional `contribution` of creating, joining and accepting."""
    return ContributionField(
        required=False, allow_blank=True, trim_whitespace=False, help_text=CONTRIBUTION_HELP
    )


class GameCreateInputSerializer(serializers.Serializer):
    """A new game's settings: their types and choices checked here, the rest (who the seats
    name) by the service's one check (`services.validate_settings`)."""

    players = serializers.ChoiceField(
        choices=list(PLAYER_COUNTS), help_text="number of players, 2-4"
    )
    variant = serializers.ChoiceField(choices=Game.Variant.values, default=Game.Variant.COLORED)
    days_per_move = serializers.ChoiceField(choices=list(DAYS_PER_MOVE), default=3)
    seats = SeatInputSerializer(
        many=True, help_text="the seats other than yours (you sit first): players - 1 of them"
    )
    contribution = contribution_field()


class MoveInputSerializer(serializers.Serializer):
    move = serializers.CharField(
        min_length=1,
        max_length=64,
        trim_whitespace=True,
        help_text="canonical notation: 'F3 blue 2', 'C red floor' or 'wall 2 4'",
    )
    expected_ply = serializers.IntegerField(
        min_value=0, help_text="the game's `ply` you saw; a stale one is refused with 409"
    )


class InvitationInputSerializer(serializers.Serializer):
    accept = serializers.BooleanField(help_text="true to accept, false to decline")
    contribution = contribution_field()


class ContributionInputSerializer(serializers.Serializer):
    """Joining, or accepting an invitation without a body: optionally, the contribution."""

    contribution = contribution_field()


class SeatInviteInputSerializer(serializers.Serializer):
    username = serializers.CharField(
        min_length=1, max_length=150, help_text="who to invite to the seat"
    )


class StatusFilterSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=Game.Status.values, required=False)


# -- outputs -------------------------------------------------------------------------------------


class PlayerSerializer(serializers.Serializer):
    position = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=Seat.Kind.values)
    username = serializers.CharField(allow_null=True)
    display_name = serializers.CharField()
    bot_level = serializers.CharField(allow_null=True)
    invitation = serializers.ChoiceField(choices=Seat.Invitation.values)
    is_open = serializers.BooleanField()
    score = serializers.IntegerField()
    is_viewer = serializers.BooleanField()
    is_to_move = serializers.BooleanField()
    final_score = serializers.IntegerField(allow_null=True)
    place = serializers.IntegerField(allow_null=True)
    timeouts = serializers.IntegerField(help_text="moves the server made when time ran out")
    autoplay = serializers.BooleanField(
        help_text="the computer plays this seat, since its player's third timeout or resignation"
    )
    resigned = serializers.BooleanField(
        help_text="the player resigned: the computer plays the seat, and it finishes last"
    )
    away_until = serializers.DateTimeField(
        allow_null=True, help_text="the player is on vacation (their clock stopped) until then"
    )
    rating_before = serializers.IntegerField(
        allow_null=True, help_text="the player's shown rating before this game; null if unrated"
    )
    rating_after = serializers.IntegerField(
        allow_null=True, help_text="the player's shown rating after this game; null if unrated"
    )


class StandingSerializer(serializers.Serializer):
    position = serializers.IntegerField()
    score = serializers.IntegerField()
    place = serializers.IntegerField()
    complete_rows = serializers.IntegerField()
    row_bonus = serializers.IntegerField()
    column_bonus = serializers.IntegerField()
    color_bonus = serializers.IntegerField()


class ResultSerializer(serializers.Serializer):
    winners = serializers.ListField(child=serializers.IntegerField())
    ranking = serializers.ListField(child=serializers.IntegerField())
    standings = StandingSerializer(many=True)


class GameOverviewSerializer(serializers.Serializer):
    """What a game's row in a list and its full view both show (`presenters.game.game_overview`)."""

    id = serializers.UUIDField()
    status = serializers.ChoiceField(choices=Game.Status.values)
    variant = serializers.ChoiceField(choices=Game.Variant.values)
    num_players = serializers.IntegerField()
    days_per_move = serializers.IntegerField()
    created_by = serializers.CharField(
        allow_null=True, help_text="the creator's username; null once they deleted their account"
    )
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    ply = serializers.IntegerField(
        help_text="number of log entries so far; send it back as expected_ply"
    )
    turn_deadline = serializers.DateTimeField(allow_null=True)
    players = PlayerSerializer(many=True)
    to_move = serializers.ListField(child=serializers.IntegerField())
    viewer_seat = serializers.IntegerField(allow_null=True)


class GameSummarySerializer(GameOverviewSerializer):
    updated_at = serializers.DateTimeField()
    round = serializers.IntegerField()
    is_my_turn = serializers.BooleanField()
    open_seats = serializers.IntegerField()


class LobbyGameSerializer(GameSummarySerializer):
    """A game waiting for players, in the lobby or in the caller's invitations
    (`presenters.lists.lobby_rows`)."""

    created_by_name = serializers.CharField(
        help_text="the creator's name as players see it (display name, else username)"
    )
    seats_taken = serializers.IntegerField(
        help_text="seats filled: players seated or accepted, and computers"
    )
    is_mine = serializers.BooleanField(help_text="the caller created this game")
    can_join = serializers.BooleanField(
        help_text="the caller may take an open seat (POST /api/games/{id}/join/)"
    )


class LobbyPageSerializer(serializers.Serializer):
    """A page of games waiting for players (the lobby, or the caller's invitations)."""

    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = LobbyGameSerializer(many=True)


class HistoryPageSerializer(serializers.Serializer):
    """A page of the history of finished games (`presenters.lists.history_rows`)."""

    count = serializers.IntegerField(help_text="finished games that match the filters")
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = GameOverviewSerializer(many=True)


class DealsSerializer(serializers.Serializer):
    """The game's deals, checkable by anyone once it is over (`presenters.deals.deals_view`)."""

    verifiable = serializers.BooleanField(
        help_text="false for a game created before deals could be checked, and for a study"
    )
    scheme = serializers.CharField(allow_null=True, help_text="'azul-deals/1' (azul.fairness)")
    commitment = serializers.CharField(
        allow_null=True, help_text="SHA-256 of the secret seed, in hex, shown from the start"
    )
    seed = serializers.CharField(
        allow_null=True, help_text="the seed, in hex: null until the game is over"
    )
    contributions = serializers.ListField(
        child=serializers.CharField(allow_null=True),
        allow_null=True,
        help_text="each seat's contribution, in seat order (null: none, a computer's seat);"
        " null until the game is over",
    )


class GameViewSerializer(GameOverviewSerializer):
    first_player = serializers.IntegerField(allow_null=True)
    state = serializers.JSONField(
        allow_null=True,
        help_text="the public game state (engine State.to_dict); bag and lid are counts",
    )
    viewer_can_move = serializers.BooleanField()
    legal_moves = serializers.ListField(child=serializers.CharField())
    result = ResultSerializer(allow_null=True)
    deals = DealsSerializer(help_text="check the deals with `python -m azul.verify` on the export")


class GameInvitedViewSerializer(GameViewSerializer):
    invitees_not_emailed = serializers.ListField(
        child=serializers.CharField(),
        help_text=(
            "usernames of the players just invited who turned invitation emails off: they see"
            " the invitation when they next visit the site"
        ),
    )


class LegalMovesSerializer(serializers.Serializer):
    ply = serializers.IntegerField()
    to_move = serializers.ListField(child=serializers.IntegerField())
    viewer_seat = serializers.IntegerField(allow_null=True)
    legal_moves = serializers.ListField(child=serializers.CharField())


class LogEntrySerializer(serializers.Serializer):
    number = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=["deal", "move"])
    player = serializers.IntegerField(allow_null=True)
    text = serializers.CharField()
    move = serializers.CharField(allow_null=True)
    tiles = serializers.ListField(
        child=serializers.ListField(child=serializers.CharField()), allow_null=True
    )
    timeout = serializers.BooleanField(help_text="the server moved: the player's time ran out")
    created_at = serializers.DateTimeField()


class GameLogSerializer(serializers.Serializer):
    ply = serializers.IntegerField()
    entries = LogEntrySerializer(many=True)


ERROR_CODES = {
    "game_not_found": "404: no such game",
    "not_a_player": "403: you do not play in this game",
    "not_your_turn": "403: it is not your turn",
    "invalid_notation": "400: the move is not written in the notation ('F3 blue 2', 'wall 2 4')",
    "illegal_move": "400: a well-formed move the rules do not allow now",
    "invalid_action": "400 (or 403, 404, 409): the request is not allowed now",
    "stale_move": "409: the game moved on since `expected_ply`; reload and choose again",
    "already_moved": "409: you moved since `expected_ply` (another tab or window of yours)",
    "game_over": "409: the game is over",
    "game_not_active": "409: the game has not started, or was cancelled",
    "game_conflict": "409: the game is not in a state where that can be done",
    "cannot_invite": "409: you cannot invite that player (one of you blocked the other)",
    "cannot_join": "409: you cannot join that game (a player of it blocked you, or you them)",
    "declined_recently": "409: the player declined an invitation of yours lately; see `until`",
    "invalid_contribution": "400: a contribution to the deals is 1-64 printable ASCII characters",
}
# The error body is the site's (`core.api.responses.ErrorSerializer`); its schema lists these codes.
error_codes_document(ERROR_CODES)


# The export format (`games.record.export` builds it, `games.record.study_import` checks it): like
# the other output serializers, these describe the dicts that the export builds and are not run
# on each response; nor are they run on an import, which `study_import.study_validate` checks in
# full with messages that name the entry at fault.
class ExportPlayerSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=150, help_text="the name the site shows")
    username = serializers.CharField(
        allow_null=True, required=False, help_text="ignored on import: a study is nobody's game"
    )
    # Plain strings rather than choices: the schema already has these choice sets under other
    # names (a seat's kind and level), and drf-spectacular warns of a set with two names.
    kind = serializers.CharField(required=False, help_text="'human' (the default) or 'computer'")
    bot_level = serializers.CharField(
        allow_null=True,
        required=False,
        help_text=f"a computer's level: {', '.join(Seat.BotLevel.values)}",
    )


class ExportEntrySerializer(serializers.Serializer):
    """A log entry as the engine writes it: a deal, or a move."""

    kind = serializers.CharField(help_text="'deal' or 'move'")
    tiles = serializers.ListField(
        child=serializers.ListField(child=serializers.CharField()),
        required=False,
        help_text="deal: the colors drawn onto each factory",
    )
    player = serializers.IntegerField(required=False, help_text="move: the seat, from 0")
    move = serializers.CharField(
        required=False, help_text="move: canonical notation, 'F3 blue 2', 'C red floor', 'wall 2 4'"
    )
    timeout = serializers.BooleanField(
        required=False, help_text="move: made by the server when the player's time ran out"
    )
    # A plain string rather than choices, like a player's kind (see above).
    server = serializers.CharField(
        required=False,
        help_text=(
            "move: made by the server for the seat's player, and why: 'timeout' (their time ran"
            " out), 'resigned' (after they resigned), 'takeover' (after their third timeout) or"
            " 'played_out' (nobody was left to play for anything); absent: made by the seat's"
            " holder"
        ),
    )
    by = serializers.CharField(
        required=False,
        help_text=(
            "move: who made it, as the log recorded it when it was played: 'person', 'computer'"
            " or 'server' (at a timeout); absent: not recorded (an older move)"
        ),
    )
    by_player = serializers.CharField(
        allow_null=True,
        required=False,
        help_text=(
            "move by a person: the username of the account that made it (null: a deleted"
            " account); ignored on import, like the players' usernames"
        ),
    )


class ExportGameSerializer(serializers.Serializer):
    """Where the export comes from; ignored on import."""

    id = serializers.UUIDField()
    status = serializers.ChoiceField(choices=Game.Status.values)
    is_study = serializers.BooleanField()
    imported_by = serializers.CharField(
        allow_null=True,
        required=False,
        help_text="a study: the name of the player who imported it; null for a game played here",
    )
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    ply = serializers.IntegerField()


class ExportDealsSerializer(serializers.Serializer):
    """What checks the deals (`python -m azul.verify`, `azul.fairness`); ignored on import."""

    scheme = serializers.CharField(
        allow_null=True, help_text="'azul-deals/1'; null: the deals are not verifiable"
    )
    commitment = serializers.CharField(allow_null=True, help_text="SHA-256 of the seed, in hex")
    seed = serializers.CharField(allow_null=True, help_text="in hex; null until the game is over")
    contributions = serializers.ListField(
        child=serializers.CharField(allow_null=True),
        allow_null=True,
        help_text="per seat, in seat order (null: none); null until the game is over",
    )


class ExportChatMessageSerializer(serializers.Serializer):
    author = serializers.CharField(help_text="the author's name")
    text = serializers.CharField(help_text="plain text")
    ply = serializers.IntegerField(help_text="the game's ply when it was written")
    created_at = serializers.DateTimeField()


class GameExportSerializer(serializers.Serializer):
    format_version = serializers.IntegerField(help_text="1")
    variant = serializers.ChoiceField(choices=Game.Variant.values)
    first_player = serializers.IntegerField(help_text="the seat that starts the first round")
    players = ExportPlayerSerializer(many=True, help_text="2 to 4, in seat order")
    entries = ExportEntrySerializer(
        many=True, help_text="the log, numbered from 0: engine.replay(entries, ...) rebuilds it"
    )
    result = ResultSerializer(
        allow_null=True,
        required=False,
        help_text="null while the game is on; on import, checked against the entries if given",
    )
    game = ExportGameSerializer(required=False)
    deals = ExportDealsSerializer(required=False)
    chat = ExportChatMessageSerializer(
        many=True,
        required=False,
        allow_null=True,
        help_text="the game's chat, oldest first (null unless every player let spectators read"
        " it); ignored on import",
    )


class StudyImportedSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    is_study = serializers.BooleanField()
    imported_by = serializers.CharField(help_text="the name of the player who imported it")
    ply = serializers.IntegerField()
    scores = serializers.ListField(child=serializers.IntegerField(), help_text="final, per seat")
    replay_url = serializers.CharField()
    export_url = serializers.CharField()


class ImportErrorSerializer(serializers.Serializer):
    detail = serializers.CharField(
        help_text="what is wrong, naming the field or entry: 'players[1]: ...', 'entry 17: ...'"
    )
    code = serializers.CharField()
    entry = serializers.IntegerField(
        required=False, help_text="the index of the log entry at fault, when one is"
    )
