"""The notification emails: subject, plain text and HTML from templates, with one-click
unsubscribe headers (RFC 8058).

Templates are `templates/notifications/email/<kind>_subject.txt`, `<kind>.txt` and
`<kind>.html`. Every email names the game's opponents and links to the game (`SITE_URL` + the
game page), or for an event's kinds names the event and links to its page; and links to the
settings page and to a signed unsubscribe link for its kind.

An email is written as its recipient reads the site: in their language, with times in their
zone, and players and seats named as every page names them (`games.presenters`).
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.urls import NoReverseMatch, reverse
from django.utils import translation
from django.utils.translation import gettext as _

from accounts.models import User
from accounts.names import name_with_username, player_label
from core.pages.text import and_list, ordinal, tidy_full_stops
from core.slots import (
    chat_message_email_parts,
    your_turn_email_parts,
)
from games.models import Game, Seat
from games.presenters.names import player_name, seat_name, seat_names
from games.presenters.times import deadline_text, user_zone_activated
from games.selectors import game_get
from notifications import tokens
from notifications.models import PREFERENCE_FIELDS, Notification

TEMPLATES = "notifications/email"


def game_url(game_id: Any) -> str:
    return settings.SITE_URL + reverse("games:detail", args=[game_id])


def event_url(event_id: Any) -> str:
    """The event's page (absolute). Its route is the events app's ("events:detail"); the
    path is written out only where that app's routes are not loaded (`notifications` does not
    depend on `events`)."""
    try:
        path = reverse("events:detail", args=[event_id])
    except NoReverseMatch:
        path = f"/events/{int(event_id)}/"
    return settings.SITE_URL + path


def _event_context(notification: Notification) -> dict[str, Any]:
    """What an email says of an event: its name (as it was when told), round and page."""
    extra = notification.context or {}
    return {
        "event_name": extra.get("event") or "",
        "event_round": notification.ply,
        "event_url": event_url(notification.event_ref),
    }


@dataclass(frozen=True)
class BuiltEmail:
    message: EmailMultiAlternatives
    # For a digest: the held notifications it carries, to be marked sent with it.
    carried_ids: list[int]


def build(notification: Notification, *, to: str) -> BuiltEmail:
    """The email for `notification` (its recipient and profile loaded), addressed to `to`, in
    the recipient's language (`Profile.language`) and time zone (`Profile.time_zone`)."""
    recipient = notification.recipient
    with translation.override(_language(notification)), user_zone_activated(recipient):
        return _build(notification, to=to)


def subject(notification: Notification) -> str:
    """The email's subject line alone (without the site's name), as the recipient reads it: what
    a push notice or a webhook says (`notifications.messages`)."""
    with translation.override(_language(notification)), user_zone_activated(notification.recipient):
        return _one_line(
            _render(f"{TEMPLATES}/{notification.kind}_subject.txt", _context(notification))
        )


def language_of(notification: Notification) -> str:
    """The language the recipient reads the site in (`Profile.language`, else the default)."""
    return _language(notification)


def _language(notification: Notification) -> str:
    return recipient_language(notification.recipient)


def recipient_language(user: Any) -> str:
    """The language `user` reads the site in (`Profile.language`, else the default)."""
    profile = getattr(user, "profile", None)
    language = getattr(profile, "language", "") or settings.LANGUAGE_CODE
    return language if language in dict(settings.LANGUAGES) else settings.LANGUAGE_CODE


def _build(notification: Notification, *, to: str) -> BuiltEmail:
    context = _context(notification)
    kind = notification.kind
    subject = _one_line(_render(f"{TEMPLATES}/{kind}_subject.txt", context))
    message = EmailMultiAlternatives(
        subject=f"[{settings.SITE_NAME}] {subject}",
        body=_render(f"{TEMPLATES}/{kind}.txt", context),
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[to],
        headers={
            # RFC 3834: no vacation auto-replies to a robot.
            "Auto-Submitted": "auto-generated",
            "X-Azul-Notification": kind,
        },
    )
    if context["unsubscribe_url"]:
        # RFC 8058: mail clients show an unsubscribe button that POSTs to the link.
        message.extra_headers["List-Unsubscribe"] = f"<{context['unsubscribe_url']}>"
        message.extra_headers["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    message.attach_alternative(_render(f"{TEMPLATES}/{kind}.html", context), "text/html")
    return BuiltEmail(message=message, carried_ids=context.get("carried_ids", []))


def _render(template_name: str, context: dict[str, Any]) -> str:
    # A sentence that ends with a name ("Winner: Alice L.") gets one full stop, not two.
    return tidy_full_stops(render_to_string(template_name, context))


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _opponent_name(seat: Seat, names: dict[int, str]) -> str:
    """A seat as an email's sentences name it: a player with their username beside their
    display name ("Alice L. (@alice)"), so that no display name passes for another player; a
    computer as the board names it (`names`: `seat_names`, which numbers computers of one
    level); an empty seat is "an open seat"."""
    if seat.user is not None:
        return player_label(seat.user)
    if seat.kind == Seat.Kind.COMPUTER:
        return names[seat.position]
    return seat_name(seat, vacant=_("an open seat"))


def _named_extra(extra: dict[str, Any], game: Game | None) -> dict[str, Any]:
    """A notification's context with the player it names (`name`: who resigned or declined)
    shown with their username. Rows written before the username was kept find it by the seat."""
    if not extra.get("name"):
        return extra
    username = extra.get("username") or ""
    if not username and game is not None and extra.get("seat"):
        seat = next((s for s in game.seat_list if s.position == extra["seat"] - 1), None)
        if seat is not None and seat.user is not None:
            username = seat.user.get_username()
        elif seat is not None and seat.declined_by_id is not None:
            username = (
                User.objects.filter(pk=seat.declined_by_id)
                .values_list("username", flat=True)
                .first()
                or ""
            )
    return {**extra, "name": name_with_username(extra["name"], username)}


def _context(notification: Notification) -> dict[str, Any]:
    recipient = notification.recipient
    context: dict[str, Any] = {
        "site_name": settings.SITE_NAME,
        "site_url": settings.SITE_URL,
        "recipient_name": player_name(recipient),
        "kind": notification.kind,
        "kind_label": notification.get_kind_display(),
        "settings_url": settings.SITE_URL + reverse("accounts:settings"),
        # A kind with no choice (a webhook turned off: about the account) has no such link.
        "unsubscribe_url": tokens.unsubscribe_url(user_id=recipient.pk, kind=notification.kind)
        if notification.kind == Notification.Kind.DIGEST or notification.kind in PREFERENCE_FIELDS
        else "",
        "extra": notification.context or {},
    }
    if notification.game_id is not None:
        game = game_get(game_id=notification.game_id)
        context.update(_game_context(game, recipient.pk))
        context["extra"] = _named_extra(context["extra"], game)
        if notification.kind == Notification.Kind.YOUR_TURN:
            # What other apps add (the chat's messages since the player's last move).
            parts = your_turn_email_parts.collect(user_id=recipient.pk, game=game)
            context.update(parts_html=parts.html, parts_text=parts.text)
        elif notification.kind == Notification.Kind.CHAT_MESSAGE:
            parts = chat_message_email_parts.collect(
                user_id=recipient.pk,
                game=game,
                first_message_id=context["extra"].get("first_message_id"),
            )
            context.update(parts_html=parts.html, parts_text=parts.text)
    if notification.event_ref is not None:
        context.update(_event_context(notification))
    if notification.kind == Notification.Kind.DIGEST:
        context.update(_digest_context(notification))
    return context


def _game_context(game: Game, user_id: Any) -> dict[str, Any]:
    """What an email says of a game (`game.seat_list`, read with it: no query)."""
    seats = game.seat_list
    mine = next((s for s in seats if s.user_id == user_id), None)
    names = seat_names(seats)
    opponents = [_opponent_name(s, names) for s in seats if s is not mine]
    standings: list[dict[str, Any]] = [
        {
            "name": _opponent_name(s, names),
            "is_you": s is mine,
            "score": s.final_score,
            "place": ordinal(s.place),
            "first": s.place == 1,
            # Ranked last for it, whatever the score (`games.standings.resigned_last`).
            "resigned": s.resigned_at is not None,
            "rating_before": s.rating_before,
            "rating_after": s.rating_after,
            "rating_change": _rating_change(s),
        }
        for s in sorted(seats, key=lambda s: (s.place or 99, s.position))
    ]
    creator = next((s for s in seats if s.user_id == game.created_by_id), None)
    return {
        "game_url": game_url(game.pk),
        "game_variant": game.get_variant_display(),
        "days_per_move": game.days_per_move,
        "opponents": opponents,
        "opponents_text": and_list(opponents),
        "creator_name": _opponent_name(creator, names) if creator is not None else "",
        # For an invitation: who else sits at the table, besides the one inviting.
        "others_text": and_list(
            [
                _opponent_name(s, names)
                for s in seats
                if s not in (mine, creator) and not s.is_declined
            ]
        ),
        "deadline": deadline_text(game.turn_deadline),
        "is_finished": game.status == Game.Status.FINISHED,
        "standings": standings,
        "my_place": ordinal(mine.place) if mine is not None else "",
        "my_score": mine.final_score if mine is not None else None,
        "winners": and_list([s["name"] for s in standings if s["first"]]),
        "my_rating_before": mine.rating_before if mine is not None else None,
        "my_rating_after": mine.rating_after if mine is not None else None,
        "my_rating_change": _rating_change(mine) if mine is not None else "",
        # A finished game's page offers the rematch (in its result) and the analysis.
        "rematch_url": f"{game_url(game.pk)}#game-actions",
        "analysis_url": f"{game_url(game.pk)}#analysis",
        "lobby_url": settings.SITE_URL + reverse("games:lobby"),
        # For a rematch's invitation: the game it is a rematch of.
        "rematch_of_url": game_url(game.rematch_of_id) if game.rematch_of_id else "",
    }


def _rating_change(seat: Seat) -> str:
    """ "+12", "-3" or "±0"; "" for a seat without a rating change (an unrated game)."""
    if seat.rating_before is None or seat.rating_after is None:
        return ""
    change = seat.rating_after - seat.rating_before
    return f"+{change}" if change > 0 else str(change) if change < 0 else "±0"


def _digest_context(digest: Notification) -> dict[str, Any]:
    """The games the digest was built with, and the notifications it carries (those still held,
    of kinds the player has not turned off since)."""
    profile = digest.recipient.profile
    games = [
        {
            "url": game_url(game["id"]),
            "opponents_text": and_list(game["opponents"]),
            "deadline": deadline_text(
                datetime.datetime.fromisoformat(game["deadline"]) if game["deadline"] else None
            ),
        }
        for game in digest.context.get("games", [])
    ]
    carried = [
        row
        for row in Notification.objects.filter(
            recipient_id=digest.recipient_id, digest_id=digest.pk, status=Notification.Status.HELD
        ).order_by("created_at")
        if getattr(profile, PREFERENCE_FIELDS[Notification.Kind(row.kind)]) != "never"
    ]
    by_id = {g.pk: g for g in Game.objects.with_seats().filter(pk__in={r.game_id for r in carried})}
    items = []
    for row in carried:
        if row.event_ref is not None:
            # About an event: its line links to the event's page.
            event_context = {
                "site_name": settings.SITE_NAME,
                "extra": row.context or {},
                **_event_context(row),
            }
            summary = _one_line(_render(f"{TEMPLATES}/{row.kind}_subject.txt", event_context))
            items.append({"summary": summary, "url": event_context["event_url"]})
            continue
        if row.game_id is None or row.game_id not in by_id:
            continue
        game = by_id[row.game_id]
        item_context = {
            "site_name": settings.SITE_NAME,
            "extra": _named_extra(row.context or {}, game),
            **_game_context(game, digest.recipient_id),
        }
        summary = _one_line(_render(f"{TEMPLATES}/{row.kind}_subject.txt", item_context))
        items.append({"summary": summary, "url": item_context["game_url"]})
    return {"games": games, "items": items, "carried_ids": [row.pk for row in carried]}
