"""Importing an export file (`games.record.export`) as a study game.

An import replays the file through the engine entry by entry and refuses it, naming the entry,
at the first one the rules do not allow; only a whole, legal game is written, in one
transaction, as a study: finished, unrated, never played, in nobody's list of games (its seats
name the players without belonging to anyone's account), there to be replayed.

The messages are in English whatever the request's language, like the export format they
describe: they name the file's own fields and values.
"""

from __future__ import annotations

import math
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

import azul
from accounts.confusables import skeleton
from accounts.locking import lock_player
from accounts.models import Profile, User
from accounts.name_rules import refused_characters
from games.errors import GameError
from games.models import Game, LogEntry, Seat
from games.record.export import FORMAT_VERSION, study_importer
from games.selectors import ServerMove

MAX_NAME_LENGTH = 150
MAX_ENTRIES = 2000
"""Far beyond any game's log (a 4-player game runs to a few hundred entries); the request body's
size limit refuses most longer files first."""

MOVE_KEYS = {"kind", "player", "move", "timeout", "server", "by", "by_player"}
DEAL_KEYS = {"kind", "tiles"}
PLAYER_KINDS = ("human", "computer")


class ImportLimitReached(GameError):
    """The player has imported GAMES_MAX_IMPORTS_PER_DAY studies in the last 24 hours; `wait` is
    the seconds until the oldest of them is a day old."""

    status_code = 429
    code = "import_limit"

    def __init__(self, message: str, *, wait: float) -> None:
        self.wait = wait
        super().__init__(message)

    @property
    def extra(self) -> dict[str, Any]:
        return {"retry_after": math.ceil(self.wait)}


class InvalidImport(GameError):
    """A file that is not a whole, legal game in the export format; `entry` is the index of the
    log entry at fault, when one is."""

    status_code = 400
    code = "invalid_import"

    def __init__(self, message: str, *, entry: int | None = None) -> None:
        self.entry = entry
        super().__init__(message)

    @property
    def extra(self) -> dict[str, Any]:
        return {} if self.entry is None else {"entry": self.entry}


def _is_whole_number(value: Any) -> bool:
    return type(value) is int  # not a bool, nor a float or a string that looks like one


def _checked_players(raw: Any) -> list[dict[str, Any]]:
    if not isinstance(raw, list) or not 2 <= len(raw) <= 4:
        raise InvalidImport("players: a list of the 2 to 4 players, in seat order.")
    players = []
    for position, player in enumerate(raw):
        where = f"players[{position}]"
        if not isinstance(player, dict):
            raise InvalidImport(f'{where}: a player is an object like {{"name": "Ada"}}.')
        name = player.get("name")
        if not isinstance(name, str) or not name.strip():
            raise InvalidImport(f"{where}: 'name' must be the player's name (text).")
        if len(name.strip()) > MAX_NAME_LENGTH:
            raise InvalidImport(f"{where}: 'name' is longer than {MAX_NAME_LENGTH} characters.")
        refused = refused_characters(name)
        if refused:
            # NUL above all: PostgreSQL cannot store it in text.
            raise InvalidImport(
                f"{where}: 'name' cannot contain control, invisible or line-break characters"
                f" (found: {', '.join(refused)})."
            )
        kind = player.get("kind", "human")
        if kind not in PLAYER_KINDS:
            raise InvalidImport(f"{where}: 'kind' must be 'human' or 'computer', not {kind!r}.")
        level = player.get("bot_level")
        if kind == "computer" and level not in (None, *Seat.BotLevel.values):
            levels = ", ".join(Seat.BotLevel.values)
            raise InvalidImport(f"{where}: 'bot_level' must be one of {levels}, not {level!r}.")
        players.append({"name": name.strip(), "kind": kind, "bot_level": level})
    return players


def _canonical_entry(index: int, raw: Any, players: int) -> dict[str, Any]:
    """The entry in the engine's canonical form, or InvalidImport saying what is wrong with its
    shape (the rules are checked when it is applied)."""
    where = f"entry {index}"
    if not isinstance(raw, dict):
        raise InvalidImport(
            f"{where}: a log entry is an object with a 'kind', not {type(raw).__name__}.",
            entry=index,
        )
    kind = raw.get("kind")
    if kind == "deal":
        unknown = set(raw) - DEAL_KEYS
        tiles = raw.get("tiles")
        if "tiles" not in raw:
            raise InvalidImport(
                f"{where}: a deal needs 'tiles', one list per factory.", entry=index
            )
        if not isinstance(tiles, list) or not all(
            isinstance(factory, list) and all(isinstance(t, str) for t in factory)
            for factory in tiles
        ):
            raise InvalidImport(
                f"{where}: a deal's 'tiles' are one list of color names per factory.",
                entry=index,
            )
        if unknown:
            raise InvalidImport(f"{where}: unknown field {sorted(unknown)[0]!r}.", entry=index)
        return azul.deal_entry([[t.strip().lower() for t in factory] for factory in tiles])
    if kind == "move":
        for key in ("player", "move"):
            if key not in raw:
                raise InvalidImport(f"{where}: a move needs {key!r}.", entry=index)
        player, move = raw["player"], raw["move"]
        if not _is_whole_number(player) or not 0 <= player < players:
            raise InvalidImport(
                f"{where}: 'player' must be a whole number from 0 to {players - 1},"
                f" not {player!r}.",
                entry=index,
            )
        if not isinstance(move, str):
            raise InvalidImport(
                f"{where}: 'move' must be text like 'F3 blue 2', not {move!r}.", entry=index
            )
        timeout = raw.get("timeout", False)
        if not isinstance(timeout, bool):
            raise InvalidImport(f"{where}: 'timeout' must be true or false.", entry=index)
        server = raw.get("server")
        if server is not None and server not in ServerMove.ALL:
            allowed = ", ".join(repr(why) for why in ServerMove.ALL)
            raise InvalidImport(
                f"{where}: 'server' says why the server made the move: one of {allowed},"
                f" not {server!r}.",
                entry=index,
            )
        by = _checked_mover(where, index, raw, timeout)
        unknown = set(raw) - MOVE_KEYS
        if unknown:
            raise InvalidImport(f"{where}: unknown field {sorted(unknown)[0]!r}.", entry=index)
        try:
            entry = azul.move_entry(player, move)
        except azul.InvalidNotation as exc:
            raise InvalidImport(f"{where}: {move!r} is not a move: {exc}", entry=index) from None
        if timeout:
            entry["timeout"] = True
        if server is not None:
            entry["server"] = server
        if by:
            entry["by"] = by  # taken off into the log entry's `mover_kind` (`study_import`)
        return entry
    raise InvalidImport(f"{where}: 'kind' must be 'deal' or 'move', not {kind!r}.", entry=index)


def _checked_mover(where: str, index: int, raw: dict[str, Any], timeout: bool) -> str:
    """Who made a move, as the file says (`"by"`; "" when it does not): the server's moves are
    the timeouts. `"by_player"` is not kept (a study's seats belong to no account), only
    checked to be a name."""
    by = raw.get("by", "")
    if by and by not in LogEntry.Mover.values:
        allowed = ", ".join(repr(kind) for kind in LogEntry.Mover.values)
        raise InvalidImport(
            f"{where}: 'by' says who made the move: one of {allowed}, not {by!r}.", entry=index
        )
    if by and timeout != (by == LogEntry.Mover.SERVER):
        raise InvalidImport(
            f"{where}: a move 'by' the server is one made at a timeout, and only it.",
            entry=index,
        )
    by_player = raw.get("by_player")
    if by_player is not None and (by != LogEntry.Mover.PERSON or not isinstance(by_player, str)):
        raise InvalidImport(
            f"{where}: 'by_player' is the username of the person who made a move 'by' a person.",
            entry=index,
        )
    return str(by)


def _replayed_checked(
    entries: list[Any], players: int, variant: str, first_player: int
) -> tuple[list[dict[str, Any]], azul.State]:
    """The canonical entries and the state after them, or InvalidImport naming the first entry
    that is malformed or that the rules refuse."""
    state = azul.new_game(players, variant, first_player)
    canonical = []
    for index, raw in enumerate(entries):
        entry = _canonical_entry(index, raw, players)
        try:
            state = azul.apply_entry(state, entry)
        except azul.IllegalMove as exc:
            if entry["kind"] == "deal":
                message = f"entry {index}: illegal deal: {exc}"
            else:
                message = (
                    f"entry {index}: illegal move {entry['move']!r} for player"
                    f" {entry['player']}: {exc}"
                )
            raise InvalidImport(message, entry=index) from None
        canonical.append(entry)
    if state.phase != "over":
        raise InvalidImport(
            f"entries: the game is not over after the last entry (entry {len(entries) - 1},"
            f" round {state.round}): only a whole game can be imported.",
            entry=len(entries) - 1 if entries else None,
        )
    return canonical, state


def _check_result(claimed: Any, state: azul.State) -> None:
    """A file's result, when it gives one, must be what its entries give: a changed score is a
    tampered file."""
    if claimed is None:
        return
    standings = claimed.get("standings") if isinstance(claimed, dict) else None
    if not isinstance(standings, list):
        raise InvalidImport("result: 'standings' must list each player's score and place.")
    outcome = {s.player: s for s in azul.result(state).standings}
    for index, standing in enumerate(standings):
        position = standing.get("position") if isinstance(standing, dict) else None
        if not _is_whole_number(position) or position not in outcome:
            raise InvalidImport(
                f"result.standings[{index}].position: must be a player's seat, a whole number"
                f" from 0 to {len(outcome) - 1}."
            )
        actual = outcome[position]
        for field, value in (("score", actual.score), ("place", actual.place)):
            if field in standing and standing[field] != value:
                raise InvalidImport(
                    f"result: the file gives player {actual.player} a {field} of"
                    f" {standing[field]!r}, but its entries give {value}."
                )


def study_validate(data: Any) -> dict[str, Any]:
    """What `study_import` writes for an export file, or InvalidImport saying what is wrong (the
    first problem found; a problem with a log entry names the entry). No database access."""
    if not isinstance(data, dict):
        raise InvalidImport("An export is a JSON object with 'format_version', 'variant', ...")
    for key in ("format_version", "variant", "first_player", "players", "entries"):
        if key not in data:
            raise InvalidImport(f"{key}: this field is required.")
    version = data["format_version"]
    if version != FORMAT_VERSION or not _is_whole_number(version):
        raise InvalidImport(
            f"format_version: this site reads version {FORMAT_VERSION}, not {version!r}."
        )
    variant = data["variant"]
    if variant not in Game.Variant.values:
        raise InvalidImport(f"variant: must be 'colored' or 'gray', not {variant!r}.")
    players = _checked_players(data["players"])
    first_player = data["first_player"]
    if not _is_whole_number(first_player) or not 0 <= first_player < len(players):
        raise InvalidImport(
            f"first_player: must be a whole number from 0 to {len(players) - 1},"
            f" not {first_player!r}."
        )
    entries = data["entries"]
    if not isinstance(entries, list) or not entries:
        raise InvalidImport("entries: a list of the game's log entries, from its first deal.")
    if len(entries) > MAX_ENTRIES:
        raise InvalidImport(f"entries: more than {MAX_ENTRIES}: no game is that long.")
    canonical, state = _replayed_checked(entries, len(players), variant, first_player)
    for index, entry in enumerate(canonical):
        if entry.get("by") == LogEntry.Mover.PERSON and players[entry["player"]]["kind"] != "human":
            raise InvalidImport(
                f"entry {index}: a move 'by' a person at a computer's seat.", entry=index
            )
    _check_result(data.get("result"), state)
    return {
        "variant": variant,
        "first_player": first_player,
        "players": players,
        "entries": canonical,
        "state": state,
    }


IMPORT_LIMIT_WINDOW = timedelta(days=1)


def _check_names_not_players(players: list[dict[str, Any]], user: User) -> None:
    """A study names its players without their accounts: a name that is, or looks like, an
    account's username or display name (the same skeleton, `accounts.confusables`; a deleted
    account's old username too) is refused, so that nobody can put words in another player's
    mouth with a made-up game. The importer may name themselves. One query."""
    wanted = {skeleton(p["name"]): position for position, p in enumerate(players)}
    wanted.pop("", None)
    if not wanted:
        return
    taken = set(
        User.objects.filter(username_skeleton__in=list(wanted))
        .exclude(pk=user.pk)
        .values_list("username_skeleton", flat=True)
        .union(
            Profile.objects.filter(display_name_skeleton__in=list(wanted))
            .exclude(user_id=user.pk)
            .values_list("display_name_skeleton", flat=True)
        )
    )
    for position, player in enumerate(players):
        if skeleton(player["name"]) in taken:
            raise InvalidImport(
                f"players[{position}]: {player['name']!r} is the name of a player of this site"
                " (or looks like it): a study may not name the site's players. Name them"
                " otherwise, such as 'Player 1'."
            )


def _check_import_limit(user: User, now: Any) -> None:
    """ImportLimitReached when `user` imported GAMES_MAX_IMPORTS_PER_DAY studies in the last
    24 hours. Inside the import's transaction, the player's row locked, so that two imports at
    once cannot both take the last place."""
    lock_player(user.pk)
    limit = settings.GAMES_MAX_IMPORTS_PER_DAY
    recent = list(
        Game.objects.filter(
            created_by=user, is_study=True, created_at__gte=now - IMPORT_LIMIT_WINDOW
        )
        .order_by("-created_at")
        .values_list("created_at", flat=True)[:limit]
    )
    if len(recent) >= limit:
        wait = (recent[-1] + IMPORT_LIMIT_WINDOW - now).total_seconds()
        hours = max(1, math.ceil(wait / 3600))
        raise ImportLimitReached(
            f"You have imported {limit} games in the last 24 hours, the most one player may:"
            f" try again in {hours} hours.",
            wait=max(1.0, wait),
        )


def study_import(*, user: User, data: Any) -> Game:
    """Create a study game from an export file (see the module docstring): validated in full
    first, then written in one transaction, so a refused file leaves nothing behind. At most
    GAMES_MAX_IMPORTS_PER_DAY a player in 24 hours; the study is labelled with who imported it
    (its creator: `export.study_importer`)."""
    study = study_validate(data)
    _check_names_not_players(study["players"], user)
    state: azul.State = study["state"]
    outcome = {s.player: s for s in azul.result(state).standings}
    now = timezone.now()
    with transaction.atomic():
        _check_import_limit(user, now)
        game = Game(
            variant=study["variant"],
            num_players=len(study["players"]),
            status=Game.Status.FINISHED,
            created_by=user,
            started_at=now,
            finished_at=now,
            ply=len(study["entries"]),
            first_player=study["first_player"],
            is_study=True,
        )
        game.set_engine_state(state)
        game.save()
        seats = [
            Seat(
                game=game,
                position=position,
                kind=Seat.Kind.COMPUTER if player["kind"] == "computer" else Seat.Kind.HUMAN,
                bot_level=player["bot_level"] or Seat.BotLevel.RANDOM,
                name=player["name"],
                final_score=outcome[position].score,
                place=outcome[position].place,
            )
            for position, player in enumerate(study["players"])
        ]
        Seat.objects.bulk_create(seats)
        LogEntry.objects.bulk_create(
            LogEntry(
                game=game,
                number=number,
                kind=entry["kind"],
                player=entry.get("player"),
                data=entry,
                mover_kind=by,
            )
            for number, (entry, by) in enumerate(_movers_taken_off(study["entries"]))
        )
    return game


def _movers_taken_off(entries: list[dict[str, Any]]) -> list[tuple[dict[str, Any], str]]:
    """Each entry as the engine's log keeps it, and who made it (its `"by"`, kept in the log
    entry's own column as a game played here keeps it)."""
    return [
        ({key: value for key, value in entry.items() if key != "by"}, entry.get("by", ""))
        for entry in entries
    ]


def study_imported(*, game: Game) -> dict[str, Any]:
    """The import API's answer: where the study is, and its final scores."""
    return {
        "id": game.id,
        "is_study": game.is_study,
        "imported_by": study_importer(game),
        "ply": game.ply,
        "scores": azul.State.from_dict(game.state).scores,
        "replay_url": reverse("games:replay", args=[game.id]),
        "export_url": reverse("games_api:export", args=[game.id]),
    }
