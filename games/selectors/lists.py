"""Lists of games: a player's own, the lobby's, the invitations waiting for an answer, the games
whose invitations were declined, and a game's rematches. Each returns games (or seats) with what
their rows show read in a fixed number of queries; `games.presenters.lists` makes the rows."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.db import models
from django.db.models import Count, Exists, OuterRef, Q, QuerySet, Subquery

from accounts.models import User
from accounts.selectors import block_partners_q, followed_ids
from games.errors import GameNotFound
from games.models import Game, GameQuerySet, Seat
from games.selectors.games import parse_game_id
from games.selectors.turns import seats_to_move

FINISHED_LIMIT = 20
LOBBY_LIMIT = 100
# The games of followed players the home page shows (`friends_open_games`).
FRIENDS_GAMES_LIMIT = 5


@dataclass
class UserGames:
    """A player's games: those not over (`current`: by deadline, soonest first) and the most
    recent finished ones (`finished`), each with its seats."""

    current: list[Game] = field(default_factory=list)
    finished: list[Game] = field(default_factory=list)


def _seated(user: User) -> Q:
    """Games where `user` holds a seat (joined, accepted or seated as creator)."""
    return Q(
        Exists(
            Seat.objects.filter(game=OuterRef("pk"), user=user).exclude(
                invitation=Seat.Invitation.PENDING
            )
        )
    )


def user_games(*, user: User, status: str | None = None, finished: bool = True) -> UserGames:
    """The user's games waiting for players or in progress, and their `FINISHED_LIMIT` most
    recent finished ones (none when not `finished`). `status` narrows to one game status.

    4 queries however many games (2 without the finished ones)."""
    games = UserGames()
    statuses = [status] if status else None
    if statuses is None or {Game.Status.OPEN, Game.Status.ACTIVE} & set(statuses):
        games.current = list(
            Game.objects.with_seats()
            .filter(_seated(user), status__in=statuses or [Game.Status.OPEN, Game.Status.ACTIVE])
            .order_by("turn_deadline", "-created_at")
        )
    if finished and (
        statuses is None or {Game.Status.FINISHED, Game.Status.ABORTED} & set(statuses)
    ):
        games.finished = list(
            Game.objects.with_seats()
            .filter(_seated(user), status__in=statuses or [Game.Status.FINISHED])
            .order_by("-finished_at")[:FINISHED_LIMIT]
        )
    return games


MY_GAMES_PAGE_SIZE = 50
"""Games a page of "My games" (and `/api/games/`) lists by default; `MY_GAMES_MAX_PAGE_SIZE` at
most."""
MY_GAMES_MAX_PAGE_SIZE = 100


@dataclass
class GamesPage:
    """One page of a player's games: `games` with their seats, in the order of
    `user_games_page`; `number` from 1; `has_next` when a later page has games."""

    games: list[Game]
    number: int
    has_next: bool


_LARGEST_OFFSET = 2**63 - 1  # PostgreSQL's bigint, which OFFSET and LIMIT take


def user_games_page(
    *, user: User, status: str | None = None, page: int = 1, page_size: int = MY_GAMES_PAGE_SIZE
) -> GamesPage:
    """A page of the user's games, all of them in one order: those where it is their turn (by
    deadline, soonest first), then the others waiting for players or in progress (by deadline,
    then newest), then the finished ones (newest first). `status` narrows to one game status
    (without it, cancelled games are left out, as "My games" leaves them). One more game than
    the page is read to know whether a next page follows, so 2 queries however many games the
    player has."""
    statuses = [status] if status else [Game.Status.OPEN, Game.Status.ACTIVE, Game.Status.FINISHED]
    my_turn = Exists(
        seats_to_move().filter(game=OuterRef("pk"), user=user, game__status=Game.Status.ACTIVE)
    )
    group = models.Case(
        models.When(my_turn, then=models.Value(0)),
        models.When(status__in=[Game.Status.OPEN, Game.Status.ACTIVE], then=models.Value(1)),
        default=models.Value(2),
        output_field=models.IntegerField(),
    )
    start = (page - 1) * page_size
    if start + page_size + 1 > _LARGEST_OFFSET:
        # Past any offset the database takes: no games there, and no query to say so.
        return GamesPage(games=[], number=page, has_next=False)
    games: list[Game] = list(
        Game.objects.with_seats()
        .filter(_seated(user), status__in=statuses)
        .alias(list_group=group)
        .order_by(
            "list_group",
            models.F("turn_deadline").asc(nulls_last=True),
            models.F("finished_at").desc(nulls_last=True),
            "-created_at",
            "pk",
        )[start : start + page_size + 1]
    )
    return GamesPage(games=games[:page_size], number=page, has_next=len(games) > page_size)


def lobby_games(
    *, user: User | AnonymousUser | None = None, include_own: bool = False
) -> QuerySet[Game]:
    """Games waiting for players with a seat anyone may join, newest first, with their seats:
    slice or paginate it, then `presenters.lists.lobby_rows`.

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
        # Nor a game with a player who blocked the user or whom they blocked (README, "Fair
        # play"): joining one is refused (`services.setup.require_may_join`).
        blocked = Seat.objects.filter(block_partners_q(user_id=user.pk, field="user_id"))
        games = games.exclude(Exists(blocked.filter(game=OuterRef("pk"))) & ~Q(created_by=user))
    return games.order_by("-created_at", "-id")


def friends_open_games(*, user: User) -> QuerySet[Game]:
    """The games waiting for players that the players `user` follows created and `user` could
    join (`lobby_games`: an open seat, not theirs already, nobody blocked either way), newest
    first, with their seats: slice it (`FRIENDS_GAMES_LIMIT`), then `lobby_rows`."""
    return lobby_games(user=user).filter(created_by_id__in=followed_ids(user_id=user.pk))


def pending_invitations(*, user: User) -> QuerySet[Game]:
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


def declined_games(*, user: User) -> list[Game]:
    """The user's games waiting for players in which an invited player declined, newest first,
    with their seats (and who declined each). 1 query when there are none (the usual case), 2
    otherwise."""
    declined = Seat.objects.filter(
        game=OuterRef("pk"), user__isnull=True, invitation=Seat.Invitation.DECLINED
    )
    seats = models.Prefetch(
        "seats",
        queryset=Seat.with_players().select_related("declined_by__profile"),
        to_attr="seat_list",
    )
    return list(
        Game.objects.filter(Exists(declined), created_by=user, status=Game.Status.OPEN)
        .defer("state")
        # django-stubs takes the `to_attr` of a Prefetch for a new attribute, and refuses one
        # that the model declares; `Game.seat_list` is declared for exactly these reads.
        .prefetch_related(seats)  # type: ignore[no-redef]
        .order_by("-created_at", "-id")
    )


def _rematches(original: Any, user: User) -> GameQuerySet:
    return (
        Game.objects.filter(
            Exists(Seat.objects.filter(game=OuterRef("pk"), user=user)), rematch_of_id=original
        )
        .exclude(status=Game.Status.ABORTED)
        .order_by("created_at", "id")
    )


def rematches_of(*, game_id: Any, user: User) -> GameQuerySet:
    """The rematches of a game that `user` sits at or is invited to, oldest first, leaving out
    cancelled ones: a player who asks for a rematch again is sent to the first of these."""
    return _rematches(parse_game_id(game_id), user)


def seats_with_rematch(*, game_id: Any, viewer: User | AnonymousUser | None) -> list[Seat]:
    """The game's seats with their players, who declined each, and the game (without its
    state); for a signed-in viewer each seat carries `rematch_id`, the viewer's first rematch of
    the game (`rematches_of`), or None. One query; GameNotFound when there is no such game."""
    seats = Seat.with_players().select_related("declined_by__profile", "game").defer("game__state")
    if viewer is not None and viewer.is_authenticated:
        rematch = _rematches(OuterRef("game_id"), viewer).values("id")[:1]
        seats = seats.annotate(rematch_id=Subquery(rematch))
    found = list(seats.filter(game_id=parse_game_id(game_id)))
    if not found:
        raise GameNotFound()
    return found
