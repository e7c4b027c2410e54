"""Events (tournaments) in the API: the list and creating one (`/api/events/`), one event, its
standings, crosstable and tables, and registering, withdrawing, cancelling and removing a
player. Thin, over `events.services` and `events.selectors`: reads are public, as the event
pages are; writes need signing in. An event's invitation code is shown to its organiser only.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import permissions, status
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.http import AuthenticatedRequest
from accounts.names import player_name
from core.api.parsers import LimitedJSONParser
from core.api.responses import ErrorSerializer, PageNumbers, page_parameters, validated_input
from events import selectors, services
from events.errors import EventNotFound
from events.models import Entry, Event, EventTable
from events.serializers import (
    CrosstableSerializer,
    EventCreateSerializer,
    EventDetailSerializer,
    EventErrorSerializer,
    EventFilterSerializer,
    EventPageSerializer,
    RegisterSerializer,
    RemoveSerializer,
    StandingsSerializer,
    TablesSerializer,
)
from events.throttles import (
    EventCreateThrottle,
    EventEntryThrottle,
    EventOrganiseThrottle,
    EventThrottledMessages,
)

PAGE_SIZE = 20


def _error(description: str, serializer: type = ErrorSerializer) -> OpenApiResponse:
    """A refusal's response in the schema: the site's error body (`Error`), which every 401,
    403 and 429 shares; an invalid setting's 400 adds its `field` (`EventErrorSerializer`)."""
    return OpenApiResponse(serializer, description=description)


NOT_FOUND = {404: _error("no such event (an id that is not a number included)")}
BAD_INPUT = {
    400: _error(
        "malformed JSON, a wrong type or size, or an event's setting that cannot be",
        EventErrorSerializer,
    )
}
# A string in the path, so that an id that is not a number is the API's JSON 404.
EVENT_ID = OpenApiParameter(
    "event_id", str, OpenApiParameter.PATH, description="the event's id (a number)"
)


def _event(event_id: Any) -> Event:
    event = selectors.get_event(event_id)
    if event is None:
        raise EventNotFound()
    return event


def _summary(event: Event, entrants: int) -> dict[str, Any]:
    return {
        "id": event.pk,
        "name": event.name,
        "format": event.format,
        "table_size": event.table_size,
        "variant": event.variant,
        "days_per_move": event.days_per_move,
        "rated": event.rated,
        "status": event.status,
        "current_round": event.current_round,
        "max_entrants": event.max_entrants,
        "entrants": entrants,
        "private": event.is_private,
        "organiser": event.organiser.get_username() if event.organiser else None,
        "starts_at": event.starts_at,
        "created_at": event.created_at,
        "started_at": event.started_at,
        "finished_at": event.finished_at,
    }


def _detail(event: Event, viewer: Any) -> dict[str, Any]:
    """The event as `viewer` sees it: the invitation code for its organiser alone."""
    is_organiser = bool(
        getattr(viewer, "is_authenticated", False) and event.organiser_id == viewer.pk
    )
    entry = selectors.entry_of(event, viewer)
    entrants = Entry.objects.filter(event=event, withdrawn_at__isnull=True).count()
    return {
        **_summary(event, entrants),
        "description": event.description,
        "rating_min": event.rating_min,
        "rating_max": event.rating_max,
        "min_games": event.min_games,
        "rounds": event.rounds,
        "advance": event.advance,
        "is_organiser": is_organiser,
        "invitation_code": event.invitation_code if is_organiser else None,
        "my_entry": None
        if entry is None
        else {
            "registered_at": entry.created_at,
            "withdrawn_at": entry.withdrawn_at,
            "removed": entry.removed,
        },
    }


def _detail_response(event_id: Any, viewer: Any, code: int = status.HTTP_200_OK) -> Response:
    return Response(_detail(_event(event_id), viewer), status=code)


class ReadOrSignedIn(APIView):
    """Reads are public, as the event pages are; writes need signing in."""

    permission_classes = [permissions.IsAuthenticatedOrReadOnly]
    parser_classes = [LimitedJSONParser]


class _NoFormatOverride:
    URL_FORMAT_OVERRIDE = None


class FormatIsAFilter(DefaultContentNegotiation):
    """The list's `?format=` is the events' format, not DRF's choice of renderer (which the
    `Accept` header still makes)."""

    settings = _NoFormatOverride()  # type: ignore[assignment]  # the one setting it reads


class EventListApi(EventThrottledMessages, ReadOrSignedIn):
    player_throttles = (EventCreateThrottle,)
    content_negotiation_class = FormatIsAFilter

    @extend_schema(
        operation_id="events_list",
        summary="Events",
        description=(
            "Events (tournaments), newest first, filtered by `status`, `format` and"
            f" `table_size`; paginated (`page`, `page_size`: {PAGE_SIZE} by default, at most"
            " 100). A league's divisions are listed with their league. Public."
        ),
        parameters=[
            OpenApiParameter("status", enum=Event.Status.values, description="only this status"),
            OpenApiParameter("format", enum=Event.Format.values, description="only this format"),
            OpenApiParameter(
                "table_size", int, enum=[2, 3, 4], description="only this many players a table"
            ),
            *page_parameters("events"),
        ],
        responses={
            200: EventPageSerializer,
            400: _error("an unknown filter value, or `page_size` not from 1 to 100"),
            404: _error("no such page"),
        },
    )
    def get(self, request: Request) -> Response:
        filters = validated_input(EventFilterSerializer, request.query_params)
        paginator = PageNumbers(PAGE_SIZE)
        events = paginator.paginate_queryset(
            selectors.events_list(
                status=filters.get("status"),
                format=filters.get("format"),
                table_size=filters.get("table_size"),
            ),
            request,
            view=self,
        )
        return paginator.get_paginated_response(
            [_summary(event, event.entrant_count) for event in events or []]  # type: ignore[attr-defined]
        )

    @extend_schema(
        operation_id="event_create",
        summary="Create an event",
        description=(
            "A new event organised by the caller, open for registration. It starts at"
            " `starts_at`, or as soon as it is full when that is null. An organiser has at most"
            " `EVENTS_MAX_OPEN` events not finished at once and creates at most"
            " `EVENTS_MAX_PER_DAY` a day (429, `event_limit`); a setting that cannot be is a"
            " 400 (`invalid_event`) naming the `field`."
        ),
        request=EventCreateSerializer,
        responses={
            201: EventDetailSerializer,
            **BAD_INPUT,
            413: _error("request body too large"),
            429: _error("too many events, or too many tries; the detail says which limit"),
        },
    )
    def post(self, request: AuthenticatedRequest) -> Response:
        values = validated_input(EventCreateSerializer, request.data)
        event = services.event_create(
            organiser=request.user, settings_=services.EventSettings(**values)
        )
        return _detail_response(event.pk, request.user, status.HTTP_201_CREATED)


class EventDetailApi(ReadOrSignedIn):
    @extend_schema(
        operation_id="event",
        summary="An event",
        description=(
            "Its settings, status, current round, organiser and entrants; `private` when"
            " entering needs a code, which only the organiser is shown (`invitation_code`);"
            " `my_entry`, the caller's registration. Public."
        ),
        parameters=[EVENT_ID],
        responses={200: EventDetailSerializer, **NOT_FOUND},
    )
    def get(self, request: Request, event_id: str) -> Response:
        return _detail_response(event_id, request.user)


class EventStandingsApi(ReadOrSignedIn):
    @extend_schema(
        operation_id="event_standings",
        summary="An event's standings",
        description=(
            "Ranked by points (per table placing: n - place at a table of n, a shared place"
            " splitting its points; a bye as a win), then opponents' points, then the sum of"
            " game scores, then direct meetings among those still level. Withdrawn players"
            " after the rest. Public."
        ),
        parameters=[EVENT_ID],
        responses={200: StandingsSerializer, **NOT_FOUND},
    )
    def get(self, request: Request, event_id: str) -> Response:
        event = _event(event_id)
        rows = [
            {
                "rank": line.row.rank,
                "username": line.user.get_username(),
                "display_name": player_name(line.user),
                "points": line.row.points,
                "opponents_points": line.row.opponents_points,
                "game_score": line.row.game_score,
                "direct": line.row.direct,
                "played": line.row.played,
                "byes": line.row.byes,
                "withdrawn": line.withdrawn,
            }
            for line in selectors.standings_of(event)
        ]
        return Response(
            {"status": event.status, "current_round": event.current_round, "rows": rows}
        )


class EventCrosstableApi(ReadOrSignedIn):
    @extend_schema(
        operation_id="event_crosstable",
        summary="An event's crosstable",
        description="Who met whom at the finished tables, and how each table went. Public.",
        parameters=[EVENT_ID],
        responses={200: CrosstableSerializer, **NOT_FOUND},
    )
    def get(self, request: Request, event_id: str) -> Response:
        event = _event(event_id)
        names = {e.user_id: e.user.get_username() for e in selectors.entries_of(event)}
        cross = selectors.crosstable_of(event)
        rows = [
            {
                "username": names[entrant],
                "opponents": [
                    {
                        "opponent": names[opponent],
                        "meetings": [
                            {
                                "placing": m.placing,
                                "opponent_placing": m.opponent_placing,
                                "score": m.score,
                                "opponent_score": m.opponent_score,
                                "points": m.points,
                            }
                            for m in meetings
                        ],
                    }
                    for opponent, meetings in cross.get(entrant, {}).items()
                    if opponent in names
                ],
            }
            for entrant in names
        ]
        return Response({"rows": rows})


def _tables(event: Event) -> list[dict[str, Any]]:
    """The event's tables with each finished one's result for the event
    (`selectors.results_by_game`)."""
    names = {e.user_id: e.user.get_username() for e in selectors.entries_of(event)}
    results = selectors.results_by_game(event)
    rows = []
    table: EventTable
    for table in selectors.tables_of(event):
        shown = None
        result = results.get(table.game_id)
        if result is not None:
            shown = [
                {"username": names.get(user_id), "placing": placing, "score": score}
                for user_id, placing, score in zip(
                    result.seats, result.placings, result.scores, strict=True
                )
            ]
        rows.append(
            {
                "round": table.round,
                "number": table.number,
                "game_id": table.game_id,
                "players": [names.get(user_id) for user_id in table.players],
                "status": table.game.status,
                "result": shown,
            }
        )
    return rows


class EventTablesApi(ReadOrSignedIn):
    @extend_schema(
        operation_id="event_tables",
        summary="An event's tables",
        description=(
            "Every table of every round so far: its game (an ordinary game, at"
            " `/api/games/{game_id}/`), its players in the order they move, and once it ends"
            " its result for the event. Public."
        ),
        parameters=[EVENT_ID],
        responses={200: TablesSerializer, **NOT_FOUND},
    )
    def get(self, request: Request, event_id: str) -> Response:
        return Response({"tables": _tables(_event(event_id))})


class EventActionApi(EventThrottledMessages, APIView):
    permission_classes = [permissions.IsAuthenticated]
    parser_classes = [LimitedJSONParser]


class EventRegisterApi(EventActionApi):
    player_throttles = (EventEntryThrottle,)

    @extend_schema(
        operation_id="event_register",
        summary="Register for an event",
        description=(
            "Enters the caller into an event open for registration (with its `code` when it"
            " is private), within its limits: size, rating range, games finished, and no other"
            " account of the same person in it. An event with no start date starts once full."
        ),
        parameters=[EVENT_ID],
        request=RegisterSerializer,
        responses={
            200: EventDetailSerializer,
            **BAD_INPUT,
            403: _error("not eligible (`not_eligible`): the code, a rating, games finished"),
            **NOT_FOUND,
            409: _error("registration closed, the event full, or registered already"),
            413: _error("request body too large"),
        },
    )
    def post(self, request: AuthenticatedRequest, event_id: str) -> Response:
        data = validated_input(RegisterSerializer, request.data)
        services.entry_register(event_id=event_id, user=request.user, code=data["code"])
        return _detail_response(event_id, request.user)


class EventWithdrawApi(EventActionApi):
    player_throttles = (EventEntryThrottle,)

    @extend_schema(
        operation_id="event_withdraw",
        summary="Withdraw from an event",
        description=(
            "Before the start the caller's entry is gone; while it runs, they leave it and"
            " their games of it still going are resigned (their results so far stand)."
        ),
        parameters=[EVENT_ID],
        request=None,
        responses={
            200: EventDetailSerializer,
            **NOT_FOUND,
            409: _error("not registered, or the event is over"),
        },
    )
    def post(self, request: AuthenticatedRequest, event_id: str) -> Response:
        services.entry_withdraw(event_id=event_id, user=request.user)
        return _detail_response(event_id, request.user)


class EventCancelApi(EventActionApi):
    player_throttles = (EventOrganiseThrottle,)

    @extend_schema(
        operation_id="event_cancel",
        summary="Cancel an event",
        description="The organiser calls off their event before it starts; its players are told.",
        parameters=[EVENT_ID],
        request=None,
        responses={
            200: EventDetailSerializer,
            403: _error("not the organiser (`not_organiser`)"),
            **NOT_FOUND,
            409: _error("the event has started or is over"),
        },
    )
    def post(self, request: AuthenticatedRequest, event_id: str) -> Response:
        services.event_cancel(event_id=event_id, organiser=request.user)
        return _detail_response(event_id, request.user)


class EventRemoveApi(EventActionApi):
    player_throttles = (EventOrganiseThrottle,)

    @extend_schema(
        operation_id="event_remove",
        summary="Remove a player from an event",
        description=(
            "The organiser takes a registered player out: before the start their entry is"
            " gone; while it runs their games of it still going are resigned."
        ),
        parameters=[EVENT_ID],
        request=RemoveSerializer,
        responses={
            200: EventDetailSerializer,
            **BAD_INPUT,
            403: _error("not the organiser (`not_organiser`)"),
            **NOT_FOUND,
            409: _error("that player is not registered, or the event is over"),
            413: _error("request body too large"),
        },
    )
    def post(self, request: AuthenticatedRequest, event_id: str) -> Response:
        data = validated_input(RemoveSerializer, request.data)
        services.entry_remove(event_id=event_id, organiser=request.user, username=data["username"])
        return _detail_response(event_id, request.user)
