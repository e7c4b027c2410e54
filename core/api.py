"""Site-wide DRF plumbing: one error shape for every API error, pages, and a size-limited JSON
parser.

Every error body is `{"detail": "<what was wrong>", ...}`: service errors add their `code`, every
409 what the view adds to a conflict (`conflict_details`: a game's `current_ply`), and validation
errors the per-field `errors`.
"""

import io
from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.db import IntegrityError
from django.utils.translation import gettext
from drf_orjson_renderer.parsers import ORJSONParser
from rest_framework import exceptions, serializers, status
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response
from rest_framework.views import exception_handler, set_rollback

from core.errors import ServiceError


class PayloadTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "payload_too_large"

    def __init__(self) -> None:
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        super().__init__(
            gettext("The request body is too large: at most %(limit)s bytes are accepted.")
            % {"limit": limit}
        )


class LimitedJSONParser(ORJSONParser):
    """JSON, refused with 413 beyond DATA_UPLOAD_MAX_MEMORY_SIZE (DRF reads the raw stream, so
    Django's own check on `request.body` does not apply)."""

    def parse(self, stream, media_type=None, parser_context=None) -> Any:
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        if limit is not None and stream is not None:
            request = (parser_context or {}).get("request")
            length = request.META.get("CONTENT_LENGTH") if request is not None else None
            if length and str(length).isdigit() and int(length) > limit:
                raise PayloadTooLarge()
            body = stream.read(limit + 1)
            if len(body) > limit:
                raise PayloadTooLarge()
            stream = io.BytesIO(body)
        return super().parse(stream, media_type, parser_context)


class PageNumbers(PageNumberPagination):
    """The API's pages: `?page=N`, and `?page_size=` up to 100 (the view sets its default)."""

    page_size_query_param = "page_size"
    max_page_size = 100

    def __init__(self, page_size: int) -> None:
        self.page_size = page_size


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
