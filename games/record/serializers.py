"""The export format, described for the OpenAPI schema (`games.record.export` builds it,
`games.record.study_import` checks it).

Like the other output serializers (`games.serializers`), these describe the dicts that the
export builds and are not run on each response; nor are they run on an import, which
`study_import.study_validate` checks in full with messages that name the entry at fault.
"""

from rest_framework import serializers

from games.models import Game, Seat
from games.serializers import ResultSerializer


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
