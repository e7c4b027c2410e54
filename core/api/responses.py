"""Site-wide DRF plumbing: one error shape for every API error, and pages. (The size-limited
JSON parser is `core.api.parsers`.)

Every error body is `{"detail": "<what was wrong>", ...}`: service errors add their `code`, every
409 what the view adds to a conflict (`conflict_details`: a game's `current_ply`), and validation
errors the per-field `errors`. `ErrorSerializer` describes that body in the OpenAPI schema for
every app's API, with each app's codes (`error_codes_document`).
"""

import functools
from collections.abc import Mapping
from typing import Any

from django.core.exceptions import RequestDataTooBig
from django.db import IntegrityError
from django.utils.functional import lazy
from django.utils.translation import gettext
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse
from rest_framework import exceptions, serializers, status
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response
from rest_framework.views import exception_handler, set_rollback

from core.api.parsers import PayloadTooLarge
from core.errors import ServiceError
from core.pages.pagination import CachedCountPaginator

MAX_PAGE_SIZE = 100


class PageSizeSerializer(serializers.Serializer):
    page_size = serializers.IntegerField(min_value=1, max_value=MAX_PAGE_SIZE)


class PageNumbers(PageNumberPagination):
    """The API's pages: `?page=N`, and `?page_size=` up to 100 (the view sets its default).
    With `count_key`, the count of the rows is kept in the cache under that key for
    `count_seconds` (`core.pages.pagination.CachedCountPaginator`)."""

    page_size_query_param = "page_size"
    max_page_size = MAX_PAGE_SIZE

    def __init__(
        self, page_size: int, *, count_key: str | None = None, count_seconds: float = 0
    ) -> None:
        self.page_size = page_size
        if count_key is not None:
            self.django_paginator_class = functools.partial(  # type: ignore[assignment]
                CachedCountPaginator, count_key=count_key, count_seconds=count_seconds
            )

    def get_page_size(self, request: Any) -> int | None:
        # DRF serves the default page for a `page_size` that is not a number from 1 to the
        # most: a 400 says what is wrong instead, as "My games" does (its own serializer).
        given = request.query_params.get(self.page_size_query_param)
        if given is None:
            return self.page_size
        size: int = validated_input(PageSizeSerializer, {"page_size": given})["page_size"]
        return size


def page_parameters(items: str) -> list[OpenApiParameter]:
    """`page` and `page_size` in the schema, as the API takes them (`PageNumbers`)."""
    return [
        OpenApiParameter(
            "page", {"type": "integer", "minimum": 1}, description="page number, from 1"
        ),
        OpenApiParameter(
            "page_size",
            {"type": "integer", "minimum": 1, "maximum": MAX_PAGE_SIZE},
            description=f"{items} per page (at most {MAX_PAGE_SIZE})",
        ),
    ]


_APP_ERROR_CODES: dict[str, str] = {}
# Raised here, by `api_exception_handler`, whatever the app.
_SITE_ERROR_CODES = {"conflict": "409: a simultaneous change got there first; try again"}


def error_codes_document(codes: Mapping[str, str]) -> None:
    """Lists an app's error `code`s (code -> "status: what it means") in the schema's description
    of the error body. The schema is built on request, after every app has listed its own."""
    _APP_ERROR_CODES.update(codes)


def _codes_description() -> str:
    codes = {**_APP_ERROR_CODES, **_SITE_ERROR_CODES}
    return "what was wrong, for a program: " + "; ".join(
        f"`{code}` ({meaning})" for code, meaning in codes.items()
    )


# The body of every API error, for the OpenAPI schema (its component "Error").
class ErrorSerializer(serializers.Serializer):
    detail = serializers.CharField(help_text="what was wrong, for a person to read")
    code = serializers.CharField(required=False, help_text=lazy(_codes_description, str)())
    current_ply = serializers.IntegerField(
        required=False,
        help_text="on every 409 about a game: its ply now (send it as `expected_ply` after"
        " reading the game again)",
    )
    until = serializers.DateTimeField(
        required=False,
        help_text="with `declined_recently`: when the player may be invited again",
    )
    # A field named like the serializer's own `errors`: DRF's metaclass takes fields off the
    # class, so the two never meet.
    errors = serializers.JSONField(  # type: ignore[assignment]
        required=False, help_text="invalid input: the messages per field"
    )


def error_response(description: str) -> OpenApiResponse:
    """An error answer in the schema: the error body, and when it is given."""
    return OpenApiResponse(ErrorSerializer, description=description)


def validated_input(serializer_class: type[serializers.Serializer], data: Any) -> Any:
    """`serializer_class`'s validated data for `data`, or the ValidationError it raises (which
    `api_exception_handler` renders)."""
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


def _flatten(detail: Any, prefix: str = "") -> list[str]:
    if isinstance(detail, dict):
        out = []
        for key, value in detail.items():
            label = "" if key == "non_field_errors" else f"{prefix}{key}"
            out += _flatten(value, f"{label}." if label else "")
        return out
    if isinstance(detail, list):
        out = []
        for index, value in enumerate(detail):
            if isinstance(value, dict | list):
                out += _flatten(value, f"{prefix}{index}.")
            else:
                out += _flatten(value, prefix)
        return out
    where = prefix.rstrip(".")
    return [f"{where}: {detail}" if where else str(detail)]


def _conflict_details(context: dict[str, Any]) -> dict[str, Any]:
    """What the view adds to a 409's body (`view.conflict_details()`: a game's API tells the
    game's `current_ply`), read on the way out of a refusal rather than by every raiser."""
    view = context.get("view")
    details = getattr(view, "conflict_details", None)
    return details() if callable(details) else {}


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, ServiceError):
        body = exc.as_dict()
        if exc.status_code == status.HTTP_409_CONFLICT:
            body = {**_conflict_details(context), **body}
        set_rollback()
        return Response(body, status=exc.status_code)
    if isinstance(exc, RequestDataTooBig):
        exc = PayloadTooLarge()
    if isinstance(exc, IntegrityError):
        # Services map the races they expect; anything else is still a conflict, not a crash.
        body = {
            "detail": gettext("The request conflicted with a simultaneous change: try again."),
            "code": "conflict",
            **_conflict_details(context),
        }
        set_rollback()
        return Response(body, status=status.HTTP_409_CONFLICT)
    if isinstance(exc, exceptions.ValidationError):
        set_rollback()
        messages = _flatten(exc.detail)
        return Response(
            {
                "detail": gettext("Invalid input: %(errors)s") % {"errors": "; ".join(messages)},
                "errors": exc.detail,
            },
            status=exc.status_code,
        )
    response = exception_handler(exc, context)
    if response is not None and isinstance(response.data, dict) and "detail" in response.data:
        code = getattr(exc, "default_code", None)
        if isinstance(exc, exceptions.APIException):
            codes = exc.get_codes()
            code = codes if isinstance(codes, str) else code
        if code:
            response.data.setdefault("code", code)
    return response
