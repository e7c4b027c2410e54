"""Leagues in the API: the list (`/api/leagues/`), one league with its current season's divisions
and standings, and joining and leaving one. Thin, over `events.leagues`: reads are public, as
the league pages are; joining and leaving need signing in and count against the same limit as
entering and leaving events (`events.throttles.EventEntryThrottle`)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import permissions, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.http import AuthenticatedRequest
from accounts.names import player_name
from core.api.parsers import LimitedJSONParser
from core.api.responses import ErrorSerializer, error_codes_document
from events import leagues
from events.models import Event, League, Season
from events.throttles import EventEntryThrottle, EventThrottledMessages
from games.models import Game

error_codes_document({"league_not_found": "404: no such league"})


def _error(description: str) -> OpenApiResponse:
    return OpenApiResponse(ErrorSerializer, description=description)


NOT_FOUND = {404: _error("no such league (`league_not_found`)")}
SLUG = OpenApiParameter("slug", str, OpenApiParameter.PATH, description="the league's slug")


# -- output ------------------------------------------------------------------------------------


class LeagueSeasonSerializer(serializers.Serializer):
    number = serializers.IntegerField(help_text="1 for the league's first")
    starts_at = serializers.DateTimeField()
    ends_at = serializers.DateTimeField(help_text="when it ends if its divisions have not")
    closed_at = serializers.DateTimeField(
        allow_null=True, help_text="when it ended and the next was formed; null while it runs"
    )


class LeagueSerializer(serializers.Serializer):
    slug = serializers.SlugField()
    name = serializers.CharField()
    description = serializers.CharField(allow_blank=True)
    table_size = serializers.IntegerField(help_text="players at each table of a division")
    variant = serializers.ChoiceField(choices=Game.Variant.values)
    days_per_move = serializers.IntegerField()
    season_days = serializers.IntegerField(help_text="a season's length")
    division_size = serializers.IntegerField(help_text="players a division, about (4 to 8)")
    movers = serializers.IntegerField(help_text="how many of a division go up, and go down")
    members = serializers.IntegerField(help_text="players registered for the next season")
    season = LeagueSeasonSerializer(allow_null=True, help_text="the latest season; null before any")


class LeagueStandingSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    username = serializers.CharField()
    name = serializers.CharField(help_text="the name the site shows")
    points = serializers.FloatField()
    played = serializers.IntegerField(help_text="games finished")
    withdrawn = serializers.BooleanField()


class LeagueDivisionSerializer(serializers.Serializer):
    level = serializers.IntegerField(help_text="1 is the top division")
    event_id = serializers.IntegerField(help_text="the division's event (/api/events/{id}/)")
    status = serializers.ChoiceField(choices=Event.Status.values)
    standings = LeagueStandingSerializer(many=True)


class LeagueDetailSerializer(LeagueSerializer):
    is_member = serializers.BooleanField(help_text="the caller is registered (false if anonymous)")
    divisions = LeagueDivisionSerializer(many=True, help_text="the latest season's, top first")


class LeagueMembershipSerializer(serializers.Serializer):
    league = serializers.SlugField()
    joined_at = serializers.DateTimeField()


def _season(season: Season | None) -> dict[str, Any] | None:
    if season is None:
        return None
    return {
        "number": season.number,
        "starts_at": season.starts_at,
        "ends_at": season.ends_at,
        "closed_at": season.closed_at,
    }


def _league(league: League) -> dict[str, Any]:
    return {
        "slug": league.slug,
        "name": league.name,
        "description": league.description,
        "table_size": league.table_size,
        "variant": league.variant,
        "days_per_move": league.days_per_move,
        "season_days": league.season_days,
        "division_size": league.division_size,
        "movers": league.movers,
        "members": getattr(league, "member_count", 0),
        "season": _season(leagues.current_season(league)),
    }


def _detail(league: League, viewer: Any) -> dict[str, Any]:
    season = leagues.current_season(league)
    events = list(leagues.divisions_of(season)) if season else []
    return {
        **_league(league),
        "is_member": leagues.is_member(league, viewer),
        "divisions": [
            {
                "level": division.event.level,
                "event_id": division.event.pk,
                "status": division.event.status,
                "standings": [
                    {
                        "rank": line.row.rank,
                        "username": line.user.get_username(),
                        "name": player_name(line.user),
                        "points": line.row.points,
                        "played": line.row.played,
                        "withdrawn": line.withdrawn,
                    }
                    for line in division.lines
                ],
            }
            for division in leagues.divisions_with_standings(events)
        ],
    }


def _league_or_404(slug: Any) -> League:
    league = leagues.get_league(slug)
    if league is None:
        raise leagues.LeagueNotFound()
    return league


# -- views -------------------------------------------------------------------------------------


class LeagueListApi(APIView):
    permission_classes = [permissions.AllowAny]

    @extend_schema(
        operation_id="leagues_list",
        summary="The leagues",
        description=(
            "Every league of the site, by name: its settings, its members and its latest"
            " season. A league runs season after season; each division is a round robin of"
            " about `division_size` players placed by level, the best `movers` going up and"
            " the worst down at a season's end."
        ),
        responses={200: LeagueSerializer(many=True)},
    )
    def get(self, request: Request) -> Response:
        return Response([_league(league) for league in leagues.leagues_list()])


class LeagueDetailApi(APIView):
    permission_classes = [permissions.AllowAny]

    @extend_schema(
        operation_id="league",
        summary="A league",
        description="The league with its latest season's divisions, each with its standings.",
        parameters=[SLUG],
        responses={200: LeagueDetailSerializer, **NOT_FOUND},
    )
    def get(self, request: Request, slug: str) -> Response:
        return Response(_detail(_league_or_404(slug), request.user))


class LeagueActionApi(EventThrottledMessages, APIView):
    permission_classes = [permissions.IsAuthenticated]
    parser_classes = [LimitedJSONParser]
    player_throttles = (EventEntryThrottle,)


class LeagueJoinApi(LeagueActionApi):
    @extend_schema(
        operation_id="league_join",
        summary="Join a league",
        description=(
            "Registers the caller for the league's next season (or its first): they are"
            " placed at the bottom, by rating among the newcomers. No other account of the"
            f" same person may be in it; at most {leagues.JOINS_PER_DAY} joins a day."
        ),
        parameters=[SLUG],
        request=None,
        responses={
            201: LeagueMembershipSerializer,
            403: _error("another account of the same person is in it (`not_eligible`)"),
            **NOT_FOUND,
            409: _error("in the league already (`already_entered`)"),
            429: _error("joined or left too often; `Retry-After` says when to try again"),
        },
    )
    def post(self, request: AuthenticatedRequest, slug: str) -> Response:
        member = leagues.league_join(slug=slug, user=request.user)
        return Response(
            {"league": slug, "joined_at": member.joined_at}, status=status.HTTP_201_CREATED
        )


class LeagueLeaveApi(LeagueActionApi):
    @extend_schema(
        operation_id="league_leave",
        summary="Leave a league",
        description=(
            "The caller is not placed in the league's next season; they finish the division"
            " they play in now (an event like any other, which they may withdraw from)."
        ),
        parameters=[SLUG],
        request=None,
        responses={
            204: None,
            **NOT_FOUND,
            409: _error("not in the league (`not_entered`)"),
            429: _error("joined or left too often; `Retry-After` says when to try again"),
        },
    )
    def post(self, request: AuthenticatedRequest, slug: str) -> Response:
        leagues.league_leave(slug=slug, user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)
