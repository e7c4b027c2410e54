"""A game as the board page and the game API show it: its players, its overview (what a row in a
list shows too), the full view, the result, its log and what the viewer may do about it.

Plain dicts of JSON-ready values and text in the active language, built from what the selectors
read (no query of their own beyond those named). The API returns them as they are, so their
keys and values are the API's contract (`games.serializers` describes them).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.utils import timezone, translation

import azul
from accounts.models import User
from accounts.selectors import without_invitation_emails
from core.outages.cache import cached
from games import selectors
from games.errors import GameNotFound
from games.models import Game, Seat
from games.presenters.deals import deals_view
from games.presenters.moves import deal_text
from games.presenters.names import player_name, public_username, seat_name, seat_names
from games.standings import resigned_last

__all__ = [
    "game_actions",
    "game_log_view",
    "game_overview",
    "game_players",
    "game_view",
    "game_view_cached",
    "invitees_not_emailed",
    "result_view",
]


def _away_until(user: User | None) -> Any:
    """When the player's vacation ends, while they are on one."""
    profile = getattr(user, "profile", None) if user is not None else None
    if profile is None or not profile.on_vacation(timezone.now()):
        return None
    return profile.vacation_until


def game_players(
    game: Game, state: azul.State | None, viewer: User | AnonymousUser | None
) -> list[dict[str, Any]]:
    """The game's seats as its players, in seat order (`game.seat_list`, no query)."""
    to_move = set(state.to_move) if state is not None else set()
    scores = state.scores if state is not None else []
    names = seat_names(game.seat_list)
    players = []
    for seat in game.seat_list:
        user = seat.user
        computer = seat.kind == Seat.Kind.COMPUTER
        players.append(
            {
                "position": seat.position,
                "kind": seat.kind,
                "username": public_username(user),
                "display_name": names[seat.position],
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


def game_overview(
    game: Game, state: azul.State | None, seat: Seat | None, viewer: User | AnonymousUser | None
) -> dict[str, Any]:
    """What a game's row in a list and its full view both show; `seat` is the viewer's."""
    to_move = state.to_move if state is not None and game.status == Game.Status.ACTIVE else []
    return {
        "id": game.id,
        "status": game.status,
        "variant": game.variant,
        "num_players": game.num_players,
        "days_per_move": game.days_per_move,
        "created_by": public_username(game.created_by),
        "created_at": game.created_at,
        "started_at": game.started_at,
        "finished_at": game.finished_at,
        "ply": game.ply,
        "turn_deadline": game.turn_deadline,
        "players": game_players(game, state, viewer),
        "to_move": to_move,
        "viewer_seat": seat.position if seat is not None else None,
    }


def game_view(*, game: Game, viewer: User | AnonymousUser | None) -> dict[str, Any]:
    """Everything the board page and the game API show; no queries beyond `game_get`'s."""
    state = game.engine_state()
    seat = selectors.viewer_seat(game, viewer)
    legal = selectors.seat_legal_moves(game, state, seat)
    return {
        **game_overview(game, state, seat, viewer),
        "first_player": game.first_player,
        # Public information only: State.to_dict keeps the bag and lid as counts per colour.
        "state": dict(game.state) if game.state else None,
        "viewer_can_move": bool(legal),
        "legal_moves": legal,
        "result": (
            result_view(state, selectors.resigned_positions(game))
            if state is not None and state.phase == "over"
            else None
        ),
        # The commitment to the deals' seed; the seed only once the game is over.
        "deals": deals_view(game),
    }


def game_view_cached(
    *,
    game_id: Any,
    viewer: User | AnonymousUser | None,
    version: selectors.GameVersion | None = None,
) -> dict[str, Any]:
    """`game_view` of the game as it is now, built once per version and viewer; `version` when
    the caller has just read it (`selectors.game_version`), rather than read it again."""
    if version is None:
        version = selectors.game_version(game_id=game_id, viewer=viewer)
    return cached(
        f"games:view:{version.key}",
        lambda: game_view(game=selectors.game_get(game_id=version.id), viewer=viewer),
        selectors.VIEW_CACHE_SECONDS,
    )


# -- the log, as the API shows it -----------------------------------------------------------------


def _log_entry(entry: selectors.LogRecord) -> dict[str, Any]:
    data = entry["data"]
    if entry["kind"] == "deal":
        tiles = data.get("tiles", [])
        # The API's log is notation, the same in every language.
        with translation.override(None):
            text = f"Deal: {deal_text(tiles)}"
        return {
            "number": entry["number"],
            "kind": "deal",
            "player": None,
            "text": text,
            "move": None,
            "tiles": tiles,
            "timeout": False,
            "created_at": entry["created_at"],
        }
    return {
        "number": entry["number"],
        "kind": "move",
        "player": entry["player"],
        "text": data.get("move", ""),
        "move": data.get("move", ""),
        "tiles": None,
        "timeout": bool(data.get("timeout")),
        "created_at": entry["created_at"],
    }


def game_log_view(*, game_id: Any) -> dict[str, Any]:
    """The game's log as one consistent view: its entries, read in one statement, and `ply`,
    their number (1 query; 2 for a game with no entry yet, to tell it from no game).

    Not the game row's `ply`: read in a statement of its own, it could be a move behind or ahead
    of the entries while players move. Each move writes its entries and the game's ply in one
    transaction, and entries are numbered from 0 without a gap (unique on game and number), so
    the entries one statement sees are the log at one moment, and their count its ply then."""
    pk = selectors.parse_game_id(game_id)
    entries = [_log_entry(entry) for entry in selectors.log_entries(game=pk)]
    if not entries and not Game.objects.filter(pk=pk).exists():
        raise GameNotFound()
    return {"ply": len(entries), "entries": entries}


def invitees_not_emailed(game: Game) -> list[User]:
    """The players invited to `game` who turned invitation emails off (they see the
    invitation when they next visit), from its seats as a service left them: no query."""
    invited = [
        s.user
        for s in game.seat_list
        if s.user is not None and s.invitation == Seat.Invitation.PENDING
    ]
    return without_invitation_emails(users=invited)


# -- what the viewer may do besides moving ------------------------------------------------------


def game_actions(*, game_id: Any, viewer: User | AnonymousUser | None) -> dict[str, Any]:
    """What the viewer may do about the game besides moving, for `_game_actions.html`: resign (a
    player of a game in progress), ask for a rematch or go to theirs (a player of a finished
    game), give a declined or unanswered invitation to someone else or open the seat (the
    creator of a game waiting for players); and who resigned. One query."""
    seats = selectors.seats_with_rematch(game_id=game_id, viewer=viewer)
    viewer_id = viewer.pk if viewer is not None and viewer.is_authenticated else None
    game = seats[0].game
    mine = next(
        (
            s
            for s in seats
            if viewer_id is not None
            and s.user_id == viewer_id
            and s.invitation != Seat.Invitation.PENDING
        ),
        None,
    )
    creator = (
        viewer_id is not None
        and game.created_by_id == viewer_id
        and game.status == Game.Status.OPEN
    )
    actions: dict[str, Any] = {
        "game_id": game.id,
        "status": game.status,
        "is_player": mine is not None,
        "can_resign": game.status == Game.Status.ACTIVE
        and mine is not None
        and mine.resigned_at is None,
        "resigned": [
            {
                "name": seat_name(s, vacant=""),
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
    # A declined seat waits for the creator's choice; an invitation not answered yet waits for
    # the invitee (the creator may still give the seat to someone else).
    to_fill = actions["seats_to_fill"]
    actions["seats_declined"] = [s for s in to_fill if s["declined_by"]]
    actions["seats_invited"] = [s for s in to_fill if not s["declined_by"]]
    return actions
