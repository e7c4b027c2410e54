"""Games in lists, as the pages and the API show them: a player's own games, the lobby, the
invitations waiting for an answer, the declined invitations, the history of finished games.

Rows built from what `games.selectors.lists` and `games.selectors.history` read, with no query
of their own.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.utils.translation import gettext as _

from accounts.models import User
from games import selectors
from games.models import Game, Seat
from games.presenters.game import game_overview
from games.presenters.names import player_name, seat_names


def game_summary(*, game: Game, viewer: User | AnonymousUser | None) -> dict[str, Any]:
    """A game in a list: settings, players and whose turn it is (needs the seats prefetched)."""
    state = game.engine_state()
    seat = selectors.viewer_seat(game, viewer)
    overview = game_overview(game, state, seat, viewer)
    return {
        **overview,
        "updated_at": game.updated_at,
        "round": state.round if state is not None else 0,
        "is_my_turn": seat is not None and seat.position in overview["to_move"],
        "open_seats": sum(1 for s in game.seat_list if s.is_open),
    }


def games_for_user(
    *, user: User, status: str | None = None, finished: bool = True
) -> dict[str, list[dict[str, Any]]]:
    """The user's games (`selectors.user_games`) as summaries: `my_turn` (by deadline, soonest
    first), `waiting` (active games where others are to move, and games still filling up) and
    `finished` (the most recent; none when not `finished`). 4 queries however many games (2
    without the finished ones)."""
    games = selectors.user_games(user=user, status=status, finished=finished)
    my_turn: list[dict[str, Any]] = []
    waiting: list[dict[str, Any]] = []
    for game in games.current:
        summary = game_summary(game=game, viewer=user)
        (my_turn if summary["is_my_turn"] else waiting).append(summary)
    return {
        "my_turn": my_turn,
        "waiting": waiting,
        "finished": [game_summary(game=g, viewer=user) for g in games.finished],
    }


def games_page_for_user(
    *,
    user: User,
    status: str | None = None,
    page: int = 1,
    page_size: int = selectors.MY_GAMES_PAGE_SIZE,
) -> dict[str, Any]:
    """A page of the user's games (`selectors.user_games_page`) as summaries, in its order
    (`games`) and in the three groups of `games_for_user` (`my_turn`, `waiting`, `finished`),
    with the page's `number` and whether a `next` follows. 2 queries however many games."""
    found = selectors.user_games_page(user=user, status=status, page=page, page_size=page_size)
    summaries = [game_summary(game=g, viewer=user) for g in found.games]
    finished = (Game.Status.FINISHED, Game.Status.ABORTED)
    return {
        "games": summaries,
        "my_turn": [g for g in summaries if g["is_my_turn"]],
        "waiting": [g for g in summaries if not g["is_my_turn"] and g["status"] not in finished],
        "finished": [g for g in summaries if g["status"] in finished],
        "number": found.number,
        "has_next": found.has_next,
    }


def _creator_name(game: Game) -> str:
    """The creator's name as players see it, from the seats read with the game (the creator sits
    at one), so that no query reads their profile."""
    creator = next((s.user for s in game.seat_list if s.user_id == game.created_by_id), None)
    return player_name(creator if creator is not None else game.created_by)


def lobby_rows(games: Any, *, viewer: User | AnonymousUser | None) -> list[dict[str, Any]]:
    """Games waiting for players (`selectors.lobby_games`, `selectors.pending_invitations`) as
    rows: a game's summary, with its creator's name, how many seats are taken and open, and
    whether the viewer created it or could join it (no queries beyond the games')."""
    viewer_id = viewer.pk if viewer is not None and viewer.is_authenticated else None
    signed_in = viewer_id is not None
    rows = []
    for game in games:
        summary = game_summary(game=game, viewer=viewer)
        mine = signed_in and game.created_by_id == viewer_id
        seated = signed_in and any(s.user_id == viewer_id for s in game.seat_list)
        rows.append(
            {
                **summary,
                "created_by_name": _creator_name(game),
                "seats_taken": sum(1 for s in game.seat_list if s.is_filled),
                "is_mine": mine,
                "can_join": signed_in and not seated and summary["open_seats"] > 0,
                # The players who took a seat, by id and name: whose pace the lobby shows
                # (`presenters.pace.with_paces`).
                "seated": [
                    (s.user_id, name)
                    for s, name in zip(
                        game.seat_list, (p["display_name"] for p in summary["players"]), strict=True
                    )
                    if s.user_id is not None and s.kind == Seat.Kind.HUMAN and s.is_filled
                ],
            }
        )
    return rows


def open_games_for_lobby(
    *, user: User | AnonymousUser | None = None, include_own: bool = False
) -> list[dict[str, Any]]:
    """The newest `LOBBY_LIMIT` games of `selectors.lobby_games` as `lobby_rows` (2 queries)."""
    games = selectors.lobby_games(user=user, include_own=include_own)[: selectors.LOBBY_LIMIT]
    return lobby_rows(games, viewer=user)


def invitations_for_user(*, user: User) -> list[dict[str, Any]]:
    """Games waiting for the user's answer to an invitation, newest first, as `lobby_rows`
    (2 queries)."""
    games = list(selectors.pending_invitations(user=user))
    rows = lobby_rows(games, viewer=user)
    for row, game in zip(rows, games, strict=True):
        row["is_rematch"] = game.rematch_of_id is not None  # said so in the page's list
    return rows


def declined_invitations(*, user: User) -> list[dict[str, Any]]:
    """The user's games waiting for players in which an invited player declined
    (`selectors.declined_games`), each with its declined seats (who declined) and the other
    players: what their home page and "My games" tell them, so that they invite someone else,
    open the seat to the lobby or cancel the game. 1 query when there are none, 2 otherwise."""
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
                seat_names(game.seat_list)[s.position]
                for s in game.seat_list
                if s.user_id != user.pk and (s.user_id is not None or s.kind == Seat.Kind.COMPUTER)
            ],
        }
        for game in selectors.declined_games(user=user)
    ]


def history_rows(games: Any) -> list[dict[str, Any]]:
    """A page of `selectors.finished_games()` as rows: the game's settings and its players with
    their final scores and places (no queries beyond the page's)."""
    return [game_overview(game, None, None, None) for game in games]


def home_games(*, user: User) -> dict[str, Any]:
    """What the signed-in player's home page shows of their games: those awaiting their move,
    how many others are running, how many invitations wait for an answer, and the notices of
    declined invitations (`declined_invitations`), the games of players they follow that they
    could join (`friends_games`), and whether they have had no game at all
    (`first_visit`)."""
    groups = games_for_user(user=user)
    invitation_count = selectors.pending_invitations(user=user).count()
    return {
        "my_turn": groups["my_turn"],
        "waiting_count": len(groups["waiting"]),
        "invitation_count": invitation_count,
        "declined": declined_invitations(user=user),
        # Games of players they follow, waiting for players, that they could join.
        "friends_games": lobby_rows(
            selectors.friends_open_games(user=user)[: selectors.FRIENDS_GAMES_LIMIT], viewer=user
        ),
        # A new player, with no game yet of any kind: greeted, and shown where to start.
        "first_visit": not (
            groups["my_turn"] or groups["waiting"] or groups["finished"] or invitation_count
        ),
    }


def player_current_games(*, player: User) -> list[dict[str, Any]]:
    """A player's games waiting for players or in progress, for their public profile (their
    finished games are in the history beside them)."""
    groups = games_for_user(user=player, finished=False)
    # Seen by someone else: "your move" in these rows would be about the wrong person.
    return [{**g, "is_my_turn": False} for g in groups["my_turn"] + groups["waiting"]]
