"""What a player downloads of their own data (the settings page's "Download my data"): their
account, profile and notification preferences (with their push devices and webhooks), email
addresses, games, ratings, blocks, the players they follow, their private notes on games and
their chat messages, as one JSON document.

Of other players it holds only what the games' public pages show (the names and usernames of
the seats, scores and places); of the games nothing hidden: no seed or contribution behind the
deals, no bag order, no future draw. Of each game the player's own moves are listed, as the
game's log records them (`games.record.export` gives a whole finished game's record).

It gathers several apps (accounts, games, ratings), so it lives in the site's top layer, as the
player's public page does. A fixed number of queries, whatever the number of games.
"""

from __future__ import annotations

from typing import Any

from allauth.account.models import EmailAddress
from django.db.models import Exists, OuterRef
from django.utils import timezone

from accounts.models import DELIVERY_FIELDS, Block, Follow, Profile, User
from accounts.names import player_name, public_username
from chat import selectors as chat_selectors
from games.models import Game, GameNote, LogEntry, Seat
from games.presenters.names import seat_names
from notifications import selectors as notification_selectors
from ratings.models import PlayerRecord, Rating

FORMAT_VERSION = 1

PROFILE_FIELDS = (
    "display_name",
    "time_zone",
    "language",
    "confirm_moves",
    "theme",
    "next_game_after_move",
    "vacation_until",
    "vacation_year",
    "vacation_days_used",
)


def player_data(*, user: User) -> dict[str, Any]:
    """The document (see the module docstring), ready for a JSON encoder that knows dates."""
    profile = Profile.objects.get(user=user)
    return {
        "format_version": FORMAT_VERSION,
        "exported_at": timezone.now(),
        "account": {
            "username": user.get_username(),
            "name": player_name(user),
            "email": user.email,
            "date_joined": user.date_joined,
            "last_login": user.last_login,
        },
        "profile": {field: getattr(profile, field) for field in PROFILE_FIELDS},
        "notification_preferences": {
            **{field: getattr(profile, field) for field in DELIVERY_FIELDS},
            "email_digest": profile.email_digest,
        },
        "email_addresses": [
            {"email": a.email, "verified": a.verified, "primary": a.primary}
            for a in EmailAddress.objects.filter(user=user).order_by("-primary", "email")
        ],
        "games": _games(user),
        "imports": [
            {"id": game_id, "imported_at": created_at}
            for game_id, created_at in Game.objects.filter(created_by=user, is_study=True)
            .order_by("created_at")
            .values_list("id", "created_at")
        ],
        "ratings": _ratings(user),
        "blocks": [
            {"username": public_username(block.blocked), "blocked_at": block.created_at}
            for block in Block.objects.filter(blocker=user).select_related("blocked")
        ],
        "following": [
            {"username": public_username(follow.followed), "followed_at": follow.created_at}
            for follow in Follow.objects.filter(follower=user).select_related("followed")
        ],
        "game_notes": [
            {"game_id": note.game_id, "text": note.text, "updated_at": note.updated_at}
            for note in GameNote.objects.filter(user=user).order_by("updated_at", "pk")
        ],
        "chat_messages": chat_selectors.messages_of(user=user),
        # Push devices, webhooks and the kinds each channel takes.
        "notification_channels": notification_selectors.channels_of(user_id=user.pk),
    }


def _games(user: User) -> list[dict[str, Any]]:
    games = list(
        Game.objects.with_seats()
        .defer("state", "deal_seed")
        .filter(is_study=False, seats__user=user)
        .order_by("created_at", "id")
    )
    mine = Seat.objects.filter(game_id=OuterRef("game_id"), position=OuterRef("player"), user=user)
    moves: dict[Any, list[dict[str, Any]]] = {}
    for entry in (
        LogEntry.objects.filter(game__in=[g.pk for g in games], kind=LogEntry.Kind.MOVE)
        .filter(Exists(mine))
        .order_by("game_id", "number")
    ):
        moves.setdefault(entry.game_id, []).append(
            {
                "ply": entry.number,
                "move": entry.data["move"],
                "timeout": bool(entry.data.get("timeout")),
                "at": entry.created_at,
            }
        )
    return [_game(game, user, moves.get(game.pk, [])) for game in games]


def _game(game: Game, user: User, moves: list[dict[str, Any]]) -> dict[str, Any]:
    names = seat_names(game.seat_list)
    seat = next(s for s in game.seat_list if s.user_id == user.pk)
    return {
        "id": game.id,
        "status": game.status,
        "variant": game.variant,
        "num_players": game.num_players,
        "days_per_move": game.days_per_move,
        "created_by_you": game.created_by_id == user.pk,
        "created_at": game.created_at,
        "started_at": game.started_at,
        "finished_at": game.finished_at,
        "your_position": seat.position,
        "invitation": seat.invitation,
        "resigned_at": seat.resigned_at,
        "seats": [
            {
                "position": s.position,
                "name": names[s.position],
                "username": public_username(s.user),
                "kind": s.kind,
                "final_score": s.final_score,
                "place": s.place,
                "rating_before": s.rating_before,
                "rating_after": s.rating_after,
            }
            for s in game.seat_list
        ],
        "your_moves": moves,
    }


def _ratings(user: User) -> dict[str, Any]:
    rating = Rating.objects.filter(user=user).first()
    return {
        "rating": None if rating is None else round(rating.rating),
        "mu": None if rating is None else rating.mu,
        "sigma": None if rating is None else rating.sigma,
        "records": [
            {
                "variant": r.variant or None,
                "num_players": r.num_players or None,
                "games": r.games,
                "wins": r.wins,
            }
            for r in PlayerRecord.objects.filter(user=user).order_by("variant", "num_players")
        ],
    }
