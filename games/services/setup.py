"""Setting a game up: created (its settings checked by `game_settings`, its secret deal seed
picked), joined, called off, and started once every seat is filled; who may invite whom and join
whom; the players' contributions to the deals, taken as they sit down. Invitations and the
creator's choices for a seat are in `invitations`."""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

import azul
from accounts.locking import lock_player
from accounts.models import User
from accounts.names import player_name
from accounts.selectors import blocked_either_way
from accounts.time_zones import local_time_text
from azul import fairness
from games import effects
from games.errors import DeclinedRecently, GameConflict, InvalidAction, InvalidContribution
from games.models import Game, InvitationDecline, LogEntry, Seat
from games.services.clocks import turn_deadline
from games.services.game_settings import SeatSpec, validate_settings
from games.services.playing import (
    ask_computer_to_move,
    deal_round,
    first_player,
    forget_waiting_counts,
    lock_game,
    tell_newly_to_move,
)


def _seat_row(game: Game, position: int, spec: SeatSpec, user: User | None) -> Seat:
    if spec.kind == "computer":
        return Seat(game=game, position=position, kind=Seat.Kind.COMPUTER, bot_level=spec.level)
    if spec.kind == "invite":
        return Seat(game=game, position=position, user=user, invitation=Seat.Invitation.PENDING)
    return Seat(game=game, position=position)


# -- what one player may have at once (README, "Fair play") ------------------------------------

UNFINISHED = (Game.Status.OPEN, Game.Status.ACTIVE)


def _playing(user: User) -> Q:
    """The unfinished games `user` plays (an invitation not yet accepted does not count: nobody
    fills another player's places by inviting them; nor a seat they resigned)."""
    mine = Seat.objects.filter(user=user, resigned_at__isnull=True).exclude(
        invitation=Seat.Invitation.PENDING
    )
    return Q(status__in=UNFINISHED, pk__in=mine.values("game_id"))


def _count(query: Q) -> int:
    return Game.objects.filter(query).count()


def lobby_filter(user: User) -> Q:
    """The games `user` created that wait in the lobby: waiting for players, with a seat anyone
    may join (`Seat.is_open`)."""
    open_seats = Seat.objects.filter(kind=Seat.Kind.HUMAN, user__isnull=True, name="").exclude(
        invitation=Seat.Invitation.DECLINED
    )
    return Q(
        status=Game.Status.OPEN,
        created_by=user,
        pk__in=open_seats.values("game_id"),
    )


def require_room(user: User, *, computer: bool, master: bool, lobby: bool = False) -> None:
    """GameConflict (409, `limit_reached`) when `user` may not take a seat at one more game with a
    computer seat (`computer`), against the `master` computer (`master`), or put one more game of
    theirs in the lobby (`lobby`): the message says which limit and how to free a place. Inside
    the write's transaction: the player's row is locked, so two requests cannot both take the
    last place."""
    if not (computer or master or lobby):
        return
    lock_player(user.pk)
    computers = Seat.objects.filter(kind=Seat.Kind.COMPUTER)
    checks = []
    if lobby:
        checks.append(
            (
                lobby_filter(user),
                settings.GAMES_MAX_LOBBY_GAMES,
                _(
                    "You have %(count)s games waiting for players in the lobby, the most one player"
                    " may have: cancel one of them, or wait for players to join, before you open"
                    " another."
                ),
            )
        )
    if master:
        checks.append(
            (
                _playing(user)
                & Q(pk__in=computers.filter(bot_level=Seat.BotLevel.MASTER).values("game_id")),
                settings.GAMES_MAX_MASTER_GAMES,
                _(
                    "You have %(count)s unfinished games against the master computer, the most"
                    " one player may have: finish or resign one of them before you start"
                    " another."
                ),
            )
        )
    if computer:
        checks.append(
            (
                _playing(user) & Q(pk__in=computers.values("game_id")),
                settings.GAMES_MAX_COMPUTER_GAMES,
                _(
                    "You have %(count)s unfinished games with computer players, the most one"
                    " player may have: finish or resign one of them before you start or join"
                    " another."
                ),
            )
        )
    for query, limit, message in checks:
        count = _count(query)
        if count >= limit:
            raise GameConflict(message % {"count": count}, code="limit_reached")


def require_room_for(user: User, seats: list[Seat] | list[SeatSpec], *, lobby: bool) -> None:
    """`require_room` for a game with these seats (rows or a new game's specs)."""
    kinds = [(s.kind, s.bot_level if isinstance(s, Seat) else s.level) for s in seats]
    computer = any(kind == Seat.Kind.COMPUTER for kind, level in kinds)
    master = any(
        kind == Seat.Kind.COMPUTER and level == Seat.BotLevel.MASTER for kind, level in kinds
    )
    require_room(user, computer=computer, master=master, lobby=lobby)


def game_create(
    *,
    creator: User,
    num_players: int,
    variant: str,
    days_per_move: int,
    seats: list[SeatSpec],
    rematch_of: Game | None = None,
    contribution: str | None = None,
) -> Game:
    """Create a game with the creator at seat 0 and the other seats as `seats` describe (as a
    rematch of the finished game `rematch_of`, for `game_rematch`), committed to its deals'
    seed; the creator's `contribution` to the deals is made up for them if they sent none.

    Invited players must accept and open seats be joined before the game starts; a game whose
    other seats are all computers starts at once.
    """
    contribution = contribution_or_new(contribution)
    resolved = validate_settings(
        creator=creator,
        num_players=num_players,
        variant=variant,
        days_per_move=days_per_move,
        seats=seats,
    )
    require_may_invite(inviter=creator, invitees=[user for _spec, user in resolved if user])
    with transaction.atomic():
        specs = [spec for spec, _user in resolved]
        require_room_for(creator, specs, lobby=any(spec.kind == "open" for spec in specs))
        game = Game(
            variant=variant,
            num_players=num_players,
            days_per_move=days_per_move,
            created_by=creator,
            rematch_of=rematch_of,
        )
        deal_seed_new(game)
        game.save(force_insert=True)
        seat_rows = [
            Seat(
                game=game,
                position=0,
                kind=Seat.Kind.HUMAN,
                user=creator,
                deal_contribution=contribution,
            )
        ]
        seat_rows += [
            _seat_row(game, position, spec, user)
            for position, (spec, user) in enumerate(resolved, 1)
        ]
        Seat.objects.bulk_create(seat_rows)
        # Lock it like every other write, so a join arriving first waits for the start.
        game = lock_game(game.id)
        invited = [s.user_id for s in seat_rows if s.invitation == Seat.Invitation.PENDING]
        effects.tell_players(kind="invitation", game=game, recipient_ids=invited)
        start_if_full(game, list(game.seat_list), creator)
    return game


def game_create_seated(
    *,
    players: list[User],
    variant: str,
    days_per_move: int,
    rated: bool = True,
    creator: User | None = None,
) -> Game:
    """Create and start at once a game whose players are chosen already (an event's table):
    `players` in the order they move, the first moving first. Nobody is invited and no seat is
    open; the players agreed to play when they entered the event, so the limits on games at
    once do not apply (the event's own do). `rated=False` keeps it out of the ratings.

    The first player of a game with a seed comes from its deal key (`playing.first_player`),
    which every player can check once the game is over; so the players are seated from that
    seat on, in their order, rather than the first player chosen: the key is the same, and the
    player the event chose moves first."""
    if not 2 <= len(players) <= 4 or len({p.pk for p in players}) != len(players):
        raise ValueError(f"a game seats 2 to 4 different players, not {players!r}")
    with transaction.atomic():
        game = Game(
            variant=variant,
            num_players=len(players),
            days_per_move=days_per_move,
            created_by=creator or players[0],
            for_ratings=rated,
        )
        deal_seed_new(game)
        game.save(force_insert=True)
        seat_rows = [
            Seat(game=game, position=p, deal_contribution=contribution_or_new(None))
            for p in range(len(players))
        ]
        starter = first_player(game, seat_rows)
        for offset, player in enumerate(players):
            seat_rows[(starter + offset) % len(players)].user = player
        Seat.objects.bulk_create(seat_rows)
        game = lock_game(game.id)
        seats = list(game.seat_list)
        _start(game, seats, None)
    return game


def game_join(*, game_id: Any, user: User, contribution: str | None = None) -> Game:
    """Take the first open seat of a game waiting for players, with the player's `contribution`
    to the deals (made up for them if they sent none); starts the game if that fills it."""
    contribution = contribution_or_new(contribution)
    with transaction.atomic():
        game = lock_game(game_id)
        require_open(game)
        seats = list(game.seat_list)
        mine = Seat.of_user(seats, user)
        if mine is not None:
            if mine.invitation == Seat.Invitation.PENDING:
                raise InvalidAction(
                    _("You are invited to this game: accept the invitation instead."),
                    status_code=409,
                )
            raise InvalidAction(_("You already have a seat in this game."), status_code=409)
        seat = next((s for s in seats if s.is_open), None)
        if seat is None:
            raise InvalidAction(_("This game has no open seat left."), status_code=409)
        require_may_join(user=user, seats=seats)
        require_room_for(user, seats, lobby=False)
        seat.user = user
        seat.invitation = Seat.Invitation.NONE
        seat.deal_contribution = contribution
        seat.save(update_fields=["user", "invitation", "deal_contribution"])
        game.save(update_fields=["updated_at"])
        start_if_full(game, seats, user)
    return game


def game_cancel(*, game_id: Any, user: User) -> Game:
    """The creator calls off a game that has not started yet."""
    with transaction.atomic():
        game = lock_game(game_id)
        if game.created_by_id != user.pk:
            raise InvalidAction(
                _("Only the player who created this game can cancel it."), status_code=403
            )
        if game.status != Game.Status.OPEN:
            raise InvalidAction(
                _("Only a game that has not started yet can be cancelled; this one is %(status)s.")
                % {"status": game.get_status_display().lower()},
                status_code=409,
            )
        game.status = Game.Status.ABORTED
        game.finished_at = timezone.now()
        game.turn_deadline = None
        game.save(update_fields=["status", "finished_at", "turn_deadline", "updated_at"])
        # Those who joined, or are invited, hear that it is off (an invitee whose invitation
        # is still in its grace period hears nothing: that invitation is simply dropped).
        effects.tell_players(
            kind="game_cancelled",
            game=game,
            recipient_ids=[
                s.user_id
                for s in game.seat_list
                if s.user_id is not None and s.user_id != user.pk and not s.is_declined
            ],
            context={"name": player_name(user), "username": user.get_username()},
        )
        if game.rematch_of_id is not None:
            # The finished game's board offered this rematch: it is drawn afresh (a new version).
            Game.objects.filter(pk=game.rematch_of_id).update(updated_at=game.updated_at)
    return game


def require_open(game: Game) -> None:
    """InvalidAction (409) unless the game is still waiting for players."""
    if game.status != Game.Status.OPEN:
        raise InvalidAction(
            _("This game is %(status)s, not waiting for players.")
            % {"status": game.get_status_display().lower()},
            status_code=409,
        )


def start_if_full(game: Game, seats: list[Seat], by: User) -> None:
    """Start the game if it is waiting for players and `by` filled its last seat."""
    if game.status == Game.Status.OPEN and all(s.is_filled for s in seats):
        _start(game, seats, by)


def _start(game: Game, seats: list[Seat], by: User | None) -> None:
    """Every seat is filled (`by` filled the last; None when the site seated everyone): pick
    the first player, draw the first deal (from the deal key, the seed and every contribution,
    for a game with a seed), start the clock, and tell the others."""
    starter = first_player(game, seats)
    state = azul.new_game(game.num_players, game.variant, starter)
    entries: list[LogEntry] = []
    state = deal_round(game, state, entries, seats=seats)
    LogEntry.objects.bulk_create(entries)
    now = timezone.now()
    game.first_player = starter
    game.set_engine_state(state)
    game.status = Game.Status.ACTIVE
    game.started_at = now
    game.turn_deadline = turn_deadline(game, seats, state.to_move)
    game.save()
    forget_waiting_counts(seats)
    # Those who were waiting for the game to fill hear that it started; whoever filled it is
    # at the table, and hears only that it is their turn (after the grace period).
    others = [pk for pk in Seat.human_player_ids(seats) if by is None or pk != by.pk]
    effects.tell_players(kind="game_started", game=game, recipient_ids=others)
    tell_newly_to_move(game, [s for s in seats if s.user_id not in others], None)
    if (computer := Seat.computer_to_move(seats, state.to_move)) is not None:
        ask_computer_to_move(game, computer)


# Who may invite whom (README, "Fair play"): nobody invites a player who blocked them or whom
# they blocked (`accounts.models.Block`), nor, for INVITATION_DECLINE_COOLDOWN_DAYS, a player who
# declined one of their invitations; and the lobby keeps players who blocked each other apart.
# Checked by every way of inviting (a new game, a seat, a rematch) and by joining from the lobby.
# A refusal never says who blocked whom.


def decline_cooldown() -> timedelta:
    return timedelta(days=settings.INVITATION_DECLINE_COOLDOWN_DAYS)


def require_may_invite(*, inviter: User, invitees: Iterable[User]) -> None:
    """GameConflict (409) if `inviter` may not invite one of `invitees`: `cannot_invite` when
    either has blocked the other, `declined_recently` (with `until`) when the player declined
    an invitation of theirs in the cool-down (two queries at most; none for no invitees)."""
    invitees = [u for u in invitees if u.pk != inviter.pk]
    if not invitees:
        return
    if blocked_either_way(user_id=inviter.pk, other_ids=[u.pk for u in invitees]):
        raise GameConflict(_("You cannot invite this player."), code="cannot_invite")
    decline = (
        InvitationDecline.objects.filter(
            inviter=inviter,
            invitee__in=[u.pk for u in invitees],
            declined_at__gte=timezone.now() - decline_cooldown(),
        )
        .order_by("-declined_at")
        .first()
    )
    if decline is not None:
        invitee = next(u for u in invitees if u.pk == decline.invitee_id)
        until = decline.declined_at + decline_cooldown()
        raise DeclinedRecently(
            _(
                "%(name)s declined an invitation of yours lately: you can invite them again"
                " from %(until)s."
            )
            % {"name": player_name(invitee), "until": local_time_text(until)},
            until=until,
        )


def require_may_join(*, user: User, seats: Iterable[Seat]) -> None:
    """GameConflict (409, `cannot_join`) if a player seated at (or invited to) the game has
    blocked `user` or is blocked by them (one query)."""
    if blocked_either_way(user_id=user.pk, other_ids=[s.user_id for s in seats if s.user_id]):
        raise GameConflict(_("You cannot join this game."), code="cannot_join")


def decline_record(*, game: Game, invitee: User) -> None:
    """`invitee` declined an invitation to `game`, from its creator: remembered for the
    cool-down, whatever becomes of the seat."""
    InvitationDecline.objects.create(invitee=invitee, inviter_id=game.created_by_id, game=game)


# A game's seed and the players' contributions to its deals (the deals themselves:
# `playing.deal_key`).
def deal_seed_new(game: Game) -> None:
    """Give the new `game` (not saved yet) its secret seed and the commitment to it."""
    seed = secrets.token_bytes(fairness.SEED_BYTES)
    game.deal_seed = seed.hex()
    game.deal_commitment = fairness.commitment(seed)


def contribution_or_new(value: object) -> str:
    """The player's contribution to the deals as sent (the API's `contribution`, the forms'
    hidden field the page's script fills), or one made up for them when they sent none (a form
    without JavaScript); InvalidContribution (400) saying what is wrong with one that cannot
    be."""
    if value is None or value == "":
        return secrets.token_hex(fairness.CONTRIBUTION_MAX // 2)
    if fairness.contribution_problem(value) is not None:
        raise InvalidContribution(
            _(
                "A contribution to the deals is 1 to %(most)s printable ASCII characters (letters,"
                " digits and punctuation, no spaces)."
            )
            % {"most": fairness.CONTRIBUTION_MAX}
        )
    assert isinstance(value, str)
    return value
