"""Reads for games, with fixed query counts.

Games are public to watch: any signed-in user may read a game, its log and its public state (the
bag and the lid are counts per colour, as everyone at the table can work them out; nothing about
future deals exists). Only players see their own legal moves.
"""

from __future__ import annotations

import uuid
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.base_user import AbstractBaseUser
from django.core.cache import cache as django_cache
from django.db import DatabaseError, models
from django.db.models import Avg, Count, Exists, Max, OuterRef, Q, QuerySet, Subquery
from django.utils import timezone, translation
from django.utils.translation import gettext as _

import azul
from accounts.names import player_name
from games.errors import GameNotFound
from games.models import Game, LogEntry, Seat
from games.standings import resigned_last

FINISHED_LIMIT = 20
MAX_PLAYERS = 4
LOBBY_LIMIT = 100


VIEW_CACHE_SECONDS = 600
"""How long a game's view (the API's) or its rendered board (the page's) is kept for reuse. Both
are cached under the game's version (`GameVersion`), so they never show an older game."""


def game_pk(game_id: Any) -> uuid.UUID:
    """A game id as given (a URL part, a JSON value) as the key it is; GameNotFound when it
    cannot be one."""
    try:
        return game_id if isinstance(game_id, uuid.UUID) else uuid.UUID(str(game_id))
    except (ValueError, TypeError, AttributeError):
        raise GameNotFound() from None


def game_ply(*, game_id: Any) -> int | None:
    """The game's ply now (1 query), or None when there is no such game."""
    try:
        return Game.objects.filter(pk=game_pk(game_id)).values_list("ply", flat=True).first()
    except (GameNotFound, DatabaseError):
        return None


def game_get(*, game_id: Any) -> Game:
    """The game with its seats, their users and profiles (2 queries); GameNotFound otherwise."""
    try:
        return Game.objects.with_seats().get(pk=game_pk(game_id))
    except Game.DoesNotExist:
        raise GameNotFound() from None


@dataclass(frozen=True)
class GameVersion:
    """Which version of a game a viewer sees: what the views and boards cached for it are keyed
    by. A game's `updated_at` changes with every write to it (a seat taken or an invitation
    answered included), and with every change of a name it shows
    (`services.games_touch_for_player`).

    Keyed by the viewer rather than by their seat, which would cost a join to find: players
    share nothing anyway, and a watcher's first look at a version builds their own copy."""

    id: uuid.UUID
    ply: int
    updated_at: Any
    created_by_id: Any
    viewer_id: Any  # None for a visitor who is not signed in

    @property
    def started(self) -> bool:
        return self.ply > 0  # the first deal is the first log entry

    @property
    def key(self) -> str:
        # With the language: what is cached under it is text in the language of the request.
        return (
            f"{self.id}:{self.ply}:{self.updated_at.timestamp():.6f}:{self.viewer_id}"
            f":{translation.get_language()}"
        )


def game_version(*, game_id: Any, viewer: AbstractBaseUser | None) -> GameVersion:
    """The game's current version as `viewer` sees it, in one small query; GameNotFound
    otherwise."""
    pk = game_pk(game_id)
    try:
        ply, updated_at, created_by_id = Game.objects.values_list(
            "ply", "updated_at", "created_by_id"
        ).get(pk=pk)
    except Game.DoesNotExist:
        raise GameNotFound() from None
    viewer_id = viewer.pk if viewer is not None and viewer.is_authenticated else None
    return GameVersion(pk, ply, updated_at, created_by_id, viewer_id)


def game_view_cached(
    *, game_id: Any, viewer: AbstractBaseUser | None, version: GameVersion | None = None
) -> dict[str, Any]:
    """`game_view` of the game as it is now, built once per version and viewer's seat; `version`
    when the caller has just read it (`game_version`), rather than read it again."""
    if version is None:
        version = game_version(game_id=game_id, viewer=viewer)
    key = f"games:view:{version.key}"
    view = django_cache.get(key)
    if view is None:
        view = game_view(game=game_get(game_id=version.id), viewer=viewer)
        django_cache.set(key, view, VIEW_CACHE_SECONDS)
    return view


# -- one game ------------------------------------------------------------------------------------


def _players(
    game: Game, state: azul.State | None, viewer: AbstractBaseUser | None
) -> list[dict[str, Any]]:
    to_move = set(state.to_move) if state is not None else set()
    scores = state.scores if state is not None else []
    players = []
    for seat in game.seat_list:
        user = seat.user
        computer = seat.kind == Seat.Kind.COMPUTER
        players.append(
            {
                "position": seat.position,
                "kind": seat.kind,
                "username": user.get_username() if user else None,
                "display_name": (
                    _("Computer (%(level)s)") % {"level": seat.get_bot_level_display().lower()}
                    if computer
                    else player_name(user)
                    if user
                    else seat.name  # a study's seats are named, not anyone's
                    or (_("Invitation declined") if seat.is_declined else _("Open seat"))
                ),
                "bot_level": seat.bot_level if computer else None,
                "invitation": seat.invitation,
                "is_open": seat.is_open,
                "score": scores[seat.position] if scores else 0,
                "is_viewer": bool(viewer is not None and user is not None and user.pk == viewer.pk),
                "is_to_move": seat.position in to_move,
                "final_score": seat.final_score,
                "place": seat.place,
                "timeouts": seat.timeouts,
                "autoplay": seat.autoplay,
                "resigned": seat.resigned_at is not None,
                "away_until": _away_until(user),
                "rating_before": seat.rating_before,
                "rating_after": seat.rating_after,
            }
        )
    return players


def _away_until(user: AbstractBaseUser | None) -> Any:
    """When the player's vacation ends, while they are on one."""
    profile = getattr(user, "profile", None) if user is not None else None
    if profile is None or not profile.on_vacation(timezone.now()):
        return None
    return profile.vacation_until


def _viewer_seat(game: Game, viewer: AbstractBaseUser | None) -> Seat | None:
    if viewer is None or not viewer.is_authenticated:
        return None
    return next(
        (
            s
            for s in game.seat_list
            if s.user_id == viewer.pk and s.invitation != Seat.Invitation.PENDING
        ),
        None,
    )


def resigned_positions(game: Game) -> list[int]:
    """The positions of the seats whose players resigned (`game.seat_list`, no query)."""
    return [s.position for s in game.seat_list if s.resigned_at is not None]


def result_view(state: azul.State, resigned: Collection[int] = ()) -> dict[str, Any]:
    """A finished game's result as the API and the export show it; with the positions of the
    seats whose players `resigned`, as the site ranks them (`resigned_last`). The export gives
    the rules' result of its log, which is all that an import can check."""
    outcome = resigned_last(azul.result(state), resigned)
    return {
        "winners": outcome.winners,
        "ranking": outcome.ranking,
        "standings": [
            {
                "position": s.player,
                "score": s.score,
                "place": s.place,
                "complete_rows": s.complete_rows,
                "row_bonus": s.row_bonus,
                "column_bonus": s.column_bonus,
                "color_bonus": s.color_bonus,
            }
            for s in outcome.standings
        ],
    }


def _legal_moves(game: Game, state: azul.State | None, seat: Seat | None) -> list[str]:
    if game.status != Game.Status.ACTIVE or seat is None or state is None:
        return []
    if seat.position not in state.to_move or seat.resigned_at is not None:
        return []  # a resigned seat is the computer's to play
    return [str(m) for m in azul.legal_moves(state, seat.position)]


def legal_moves_for(*, game: Game, viewer: AbstractBaseUser | None) -> list[str]:
    """The viewer's legal moves in notation; empty unless it is their turn in an active game."""
    return _legal_moves(game, game.engine_state(), _viewer_seat(game, viewer))


def _overview(
    game: Game, state: azul.State | None, seat: Seat | None, viewer: AbstractBaseUser | None
) -> dict[str, Any]:
    """What a game's row in a list and its full view both show."""
    to_move = state.to_move if state is not None and game.status == Game.Status.ACTIVE else []
    return {
        "id": game.id,
        "status": game.status,
        "variant": game.variant,
        "num_players": game.num_players,
        "days_per_move": game.days_per_move,
        "created_by": game.created_by.get_username(),
        "created_at": game.created_at,
        "started_at": game.started_at,
        "finished_at": game.finished_at,
        "ply": game.ply,
        "turn_deadline": game.turn_deadline,
        "players": _players(game, state, viewer),
        "to_move": to_move,
        "viewer_seat": seat.position if seat is not None else None,
    }


def game_view(*, game: Game, viewer: AbstractBaseUser | None) -> dict[str, Any]:
    """Everything the board page and the game API show; no queries beyond `game_get`'s."""
    state = game.engine_state()
    seat = _viewer_seat(game, viewer)
    legal = _legal_moves(game, state, seat)
    return {
        **_overview(game, state, seat, viewer),
        "first_player": game.first_player,
        # Public information only: State.to_dict keeps the bag and lid as counts per colour.
        "state": dict(game.state) if game.state else None,
        "viewer_can_move": bool(legal),
        "legal_moves": legal,
        "result": (
            result_view(state, resigned_positions(game))
            if state is not None and state.phase == "over"
            else None
        ),
    }


def _deal_text(tiles: list[list[str]]) -> str:
    return "; ".join(
        f"F{i} {' '.join(factory) if factory else '(empty)'}" for i, factory in enumerate(tiles, 1)
    )


def game_log_view(*, game_id: Any) -> dict[str, Any]:
    """The game's log as one consistent view: its entries, read in one statement, and `ply`,
    their number (1 query; 2 for a game with no entry yet, to tell it from no game).

    Not the game row's `ply`: read in a statement of its own, it could be a move behind or ahead
    of the entries while players move. Each move writes its entries and the game's ply in one
    transaction, and entries are numbered from 0 without a gap (unique on game and number), so
    the entries one statement sees are the log at one moment, and their count its ply then."""
    pk = game_pk(game_id)
    entries = game_log(game=pk)
    if not entries and not Game.objects.filter(pk=pk).exists():
        raise GameNotFound()
    return {"ply": len(entries), "entries": entries}


def game_log(*, game: Game | uuid.UUID) -> list[dict[str, Any]]:
    """The whole log in order (1 query). Deals that happened are public: the tiles per factory."""
    entries = (
        LogEntry.objects.filter(game=game)
        .order_by("number")
        .values("number", "kind", "player", "data", "created_at")
    )
    log = []
    for entry in entries:
        data = entry["data"]
        if entry["kind"] == LogEntry.Kind.DEAL:
            tiles = data.get("tiles", [])
            log.append(
                {
                    "number": entry["number"],
                    "kind": "deal",
                    "player": None,
                    "text": f"Deal: {_deal_text(tiles)}",
                    "move": None,
                    "tiles": tiles,
                    "timeout": False,
                    "created_at": entry["created_at"],
                }
            )
        else:
            log.append(
                {
                    "number": entry["number"],
                    "kind": "move",
                    "player": entry["player"],
                    "text": data.get("move", ""),
                    "move": data.get("move", ""),
                    "tiles": None,
                    "timeout": bool(data.get("timeout")),
                    "created_at": entry["created_at"],
                }
            )
    return log


def seats_to_move() -> QuerySet[Seat]:
    """Seats whose player is to move in their game, read in SQL from the game's stored engine
    state.

    `Game.state` is `azul.State.to_dict()`, which does not store `to_move`: `State.to_move` is
    the `current` player in the take phase, and in the tile phase (gray wall, where players tile
    at once) every player whose board still has a `tiling_line`. So a seat at `position` is to
    move when one of those holds for its position. A test checks this against the azul.
    """
    condition = Q()
    for position in range(MAX_PLAYERS):
        condition |= Q(position=position) & (
            Q(game__state__phase="take", game__state__current=position)
            | Q(
                game__state__phase="tile",
                **{f"game__state__boards__{position}__tiling_line__in": [1, 2, 3, 4, 5]},
            )
        )
    return Seat.objects.filter(condition)


WAITING_COUNT_SECONDS = 60
"""How long a player's count of games waiting for them is kept. Every write that changes whose
turn it is drops the counts of the game's players (`games_waiting_forget`); this bounds how long
a count read just before such a write and stored just after it can be wrong."""


def _waiting_key(user_id: Any) -> str:
    return f"games:waiting:{user_id}"


def games_waiting_count(*, user_id: Any) -> int:
    """How many active games wait for this player's move: what every page's navigation and
    title show. Counted in SQL from the games' states (one COUNT, costlier to build than most
    pages' other queries together), so kept in the cache between the writes that change it."""
    key = _waiting_key(user_id)
    count = django_cache.get(key)
    if count is None:
        count = seats_to_move().filter(user_id=user_id, game__status=Game.Status.ACTIVE).count()
        django_cache.set(key, count, WAITING_COUNT_SECONDS)
    return count


def games_waiting_forget(user_ids: list[Any]) -> None:
    """These players' turns changed: their counts are read afresh."""
    django_cache.delete_many([_waiting_key(pk) for pk in user_ids])


# -- lists of games ------------------------------------------------------------------------------


def game_summary(*, game: Game, viewer: AbstractBaseUser | None) -> dict[str, Any]:
    """A game in a list: settings, players and whose turn it is (needs the seats prefetched)."""
    state = game.engine_state()
    seat = _viewer_seat(game, viewer)
    overview = _overview(game, state, seat, viewer)
    return {
        **overview,
        "updated_at": game.updated_at,
        "round": state.round if state is not None else 0,
        "is_my_turn": seat is not None and seat.position in overview["to_move"],
        "open_seats": sum(1 for s in game.seat_list if s.is_open),
    }


def _seated(user: AbstractBaseUser) -> Q:
    """Games where `user` holds a seat (joined, accepted or seated as creator)."""
    return Q(
        Exists(
            Seat.objects.filter(game=OuterRef("pk"), user=user).exclude(
                invitation=Seat.Invitation.PENDING
            )
        )
    )


def games_for_user(
    *, user: AbstractBaseUser, status: str | None = None, finished: bool = True
) -> dict[str, list]:
    """The user's games: `my_turn` (by deadline, soonest first), `waiting` (active games where
    others are to move, and games still filling up) and `finished` (the 20 most recent; none
    when not `finished`).

    4 queries however many games (2 without the finished ones). `status` narrows to one game
    status.
    """
    current: list[Game] = []
    ended: list[Game] = []
    statuses = [status] if status else None
    if statuses is None or {Game.Status.OPEN, Game.Status.ACTIVE} & set(statuses):
        current = list(
            Game.objects.with_seats()
            .filter(_seated(user), status__in=statuses or [Game.Status.OPEN, Game.Status.ACTIVE])
            .order_by("turn_deadline", "-created_at")
        )
    if finished and (
        statuses is None or {Game.Status.FINISHED, Game.Status.ABORTED} & set(statuses)
    ):
        ended = list(
            Game.objects.with_seats()
            .filter(_seated(user), status__in=statuses or [Game.Status.FINISHED])
            .order_by("-finished_at")[:FINISHED_LIMIT]
        )
    my_turn, waiting = [], []
    for game in current:
        summary = game_summary(game=game, viewer=user)
        (my_turn if summary["is_my_turn"] else waiting).append(summary)
    return {
        "my_turn": my_turn,
        "waiting": waiting,
        "finished": [game_summary(game=g, viewer=user) for g in ended],
    }


def lobby_games(
    *, user: AbstractBaseUser | None = None, include_own: bool = False
) -> QuerySet[Game]:
    """Games waiting for players with a seat anyone may join, newest first, with their seats:
    slice or paginate it, then `lobby_rows`.

    Leaves out games the user already sits in or is invited to, except, with `include_own`, the
    games they created (the lobby page and the API show those, marked as theirs). No user (or
    an anonymous one): every open game.
    """
    games = (
        Game.objects.with_seats()
        .annotate(
            free_seats=Count(
                "seats",
                # `Seat.is_open`: a declined seat waits for its creator, not for the lobby.
                filter=Q(seats__kind=Seat.Kind.HUMAN, seats__user__isnull=True)
                & ~Q(seats__invitation=Seat.Invitation.DECLINED),
            )
        )
        .filter(status=Game.Status.OPEN, free_seats__gt=0)
    )
    if user is not None and user.is_authenticated:
        seated = Exists(Seat.objects.filter(game=OuterRef("pk"), user=user))
        games = games.exclude(seated & ~Q(created_by=user) if include_own else seated)
    return games.order_by("-created_at", "-id")


def _creator_name(game: Game) -> str:
    """The creator's name as players see it, from the seats read with the game (the creator sits
    at one), so that no query reads their profile."""
    creator = next((s.user for s in game.seat_list if s.user_id == game.created_by_id), None)
    return player_name(creator if creator is not None else game.created_by)


def lobby_rows(games: Any, *, viewer: AbstractBaseUser | None) -> list[dict[str, Any]]:
    """Games waiting for players (`lobby_games`, `invitations_for_user`) as rows: a game's
    summary, with its creator's name, how many seats are taken and open, and whether the
    viewer created it or could join it (no queries beyond the games')."""
    signed_in = viewer is not None and viewer.is_authenticated
    rows = []
    for game in games:
        summary = game_summary(game=game, viewer=viewer)
        mine = signed_in and game.created_by_id == viewer.pk
        seated = signed_in and any(s.user_id == viewer.pk for s in game.seat_list)
        rows.append(
            {
                **summary,
                "created_by_name": _creator_name(game),
                "seats_taken": sum(1 for s in game.seat_list if s.is_filled),
                "is_mine": mine,
                "can_join": signed_in and not seated and summary["open_seats"] > 0,
            }
        )
    return rows


def open_games_for_lobby(
    *, user: AbstractBaseUser | None = None, include_own: bool = False
) -> list[dict[str, Any]]:
    """The newest `LOBBY_LIMIT` games of `lobby_games` as `lobby_rows` (2 queries)."""
    games = lobby_games(user=user, include_own=include_own)[:LOBBY_LIMIT]
    return lobby_rows(games, viewer=user)


def pending_invitations(*, user: AbstractBaseUser) -> QuerySet[Game]:
    """Games waiting for the user's answer to an invitation, newest first, with their seats."""
    return (
        Game.objects.with_seats()
        .filter(
            Exists(
                Seat.objects.filter(
                    game=OuterRef("pk"), user=user, invitation=Seat.Invitation.PENDING
                )
            ),
            status=Game.Status.OPEN,
        )
        .order_by("-created_at", "-id")
    )


def invitations_for_user(*, user: AbstractBaseUser) -> list[dict[str, Any]]:
    """Games waiting for the user's answer to an invitation, newest first, as `lobby_rows`
    (2 queries)."""
    return lobby_rows(pending_invitations(user=user), viewer=user)


# -- declined invitations, resignations and rematches ------------------------------------------


def _seat_label(seat: Seat) -> str:
    if seat.kind == Seat.Kind.COMPUTER:
        return _("Computer (%(level)s)") % {"level": seat.get_bot_level_display().lower()}
    return player_name(seat.user) if seat.user is not None else ""


def declined_invitations(*, user: AbstractBaseUser) -> list[dict[str, Any]]:
    """The user's games waiting for players in which an invited player declined, newest first,
    each with its declined seats (who declined) and the other players: what their home page and
    "My games" tell them, so that they invite someone else, open the seat to the lobby or cancel
    the game. 1 query when there are none (the usual case), 2 otherwise."""
    declined = Seat.objects.filter(
        game=OuterRef("pk"), user__isnull=True, invitation=Seat.Invitation.DECLINED
    )
    seats = models.Prefetch(
        "seats",
        queryset=Seat.with_players().select_related("declined_by__profile"),
        to_attr="seat_list",
    )
    games = (
        Game.objects.filter(Exists(declined), created_by=user, status=Game.Status.OPEN)
        .defer("state")
        .prefetch_related(seats)
        .order_by("-created_at", "-id")
    )
    return [
        {
            "id": game.id,
            "num_players": game.num_players,
            "variant": game.variant,
            "created_at": game.created_at,
            "declined": [
                {
                    "position": s.position,
                    "name": player_name(s.declined_by) or _("The invited player"),
                }
                for s in game.seat_list
                if s.is_declined
            ],
            "others": [
                _seat_label(s)
                for s in game.seat_list
                if s.user_id != user.pk and (s.user_id is not None or s.kind == Seat.Kind.COMPUTER)
            ],
        }
        for game in games
    ]


def _rematches(original: Any, user: AbstractBaseUser) -> QuerySet[Game]:
    return (
        Game.objects.filter(
            Exists(Seat.objects.filter(game=OuterRef("pk"), user=user)), rematch_of_id=original
        )
        .exclude(status=Game.Status.ABORTED)
        .order_by("created_at", "id")
    )


def rematches_of(*, game_id: Any, user: AbstractBaseUser) -> QuerySet[Game]:
    """The rematches of a game that `user` sits at or is invited to, oldest first, leaving out
    cancelled ones: a player who asks for a rematch again is sent to the first of these."""
    return _rematches(game_pk(game_id), user)


def game_actions(*, game_id: Any, viewer: AbstractBaseUser) -> dict[str, Any]:
    """What the viewer may do about the game besides moving, for `_game_actions.html`: resign (a
    player of a game in progress), ask for a rematch or go to theirs (a player of a finished
    game), give a declined or unanswered invitation to someone else or open the seat (the
    creator of a game waiting for players); and who resigned. One query."""
    pk = game_pk(game_id)
    signed_in = viewer is not None and viewer.is_authenticated
    seats = Seat.with_players().select_related("declined_by__profile", "game").defer("game__state")
    if signed_in:
        rematch = _rematches(OuterRef("game_id"), viewer).values("id")[:1]
        seats = seats.annotate(rematch_id=Subquery(rematch))
    seats = list(seats.filter(game_id=pk))
    if not seats:
        raise GameNotFound()
    game = seats[0].game
    mine = next(
        (
            s
            for s in seats
            if signed_in and s.user_id == viewer.pk and s.invitation != Seat.Invitation.PENDING
        ),
        None,
    )
    creator = signed_in and game.created_by_id == viewer.pk and game.status == Game.Status.OPEN
    return {
        "game_id": game.id,
        "status": game.status,
        "is_player": mine is not None,
        "can_resign": game.status == Game.Status.ACTIVE
        and mine is not None
        and mine.resigned_at is None,
        "resigned": [
            {
                "name": _seat_label(s),
                "is_viewer": s is mine,
                "resigned_at": s.resigned_at,
                "playing_on": game.status == Game.Status.ACTIVE,
            }
            for s in seats
            if s.resigned_at is not None
        ],
        "can_rematch": game.status == Game.Status.FINISHED and mine is not None,
        "rematch_id": getattr(seats[0], "rematch_id", None) if mine is not None else None,
        # The seats the creator may give to someone else or open to the lobby.
        "seats_to_fill": [
            {
                "position": s.position,
                "number": s.position + 1,
                "declined_by": player_name(s.declined_by) if s.is_declined else "",
                "invited": player_name(s.user) if s.invitation == Seat.Invitation.PENDING else "",
            }
            for s in seats
            if creator and (s.is_declined or s.invitation == Seat.Invitation.PENDING)
        ],
        "can_cancel": creator,
    }


# -- the history of finished games ---------------------------------------------------------------

HISTORY_PAGE_SIZE = 20


def finished_games() -> QuerySet[Game]:
    """Every finished game that was played (not a study), newest first, with its seats: filter
    it (`games.filters.GameHistoryFilter`), paginate it, then `history_rows`. Read along
    `game_status_finished_idx`. The cached state is not read: a row shows the final scores
    that the seats keep."""
    return (
        Game.objects.with_seats()
        .defer("state")
        .filter(status=Game.Status.FINISHED, is_study=False)
        .order_by("-finished_at", "-id")
    )


def history_rows(games: Any) -> list[dict[str, Any]]:
    """A page of `finished_games()` as rows: the game's settings and its players with their
    final scores and places (no queries beyond the page's)."""
    return [_overview(game, None, None, None) for game in games]


def player_stats(*, user: AbstractBaseUser) -> dict[str, Any]:
    """The player's finished games (not studies; against anyone), wins (first place, shared
    or not), win rate, and average and best final score, in one query."""
    totals = Seat.objects.filter(
        user=user, game__status=Game.Status.FINISHED, game__is_study=False
    ).aggregate(
        games=Count("pk"),
        wins=Count("pk", filter=Q(place=1)),
        average=Avg("final_score"),
        best=Max("final_score"),
    )
    games = totals["games"]
    return {
        **totals,
        "win_rate": totals["wins"] / games if games else 0.0,
    }
