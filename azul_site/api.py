"""Site-wide DRF plumbing: one error shape for every API error, and a size-limited JSON parser.

Every error body is `{"detail": "<what was wrong>", ...}`: game service errors add their `code`
(and `current_ply` for a stale move), validation errors add the per-field `errors`.
"""

import io
from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.db import IntegrityError
from drf_orjson_renderer.parsers import ORJSONParser
from rest_framework import exceptions, serializers, status
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.response import Response
from rest_framework.views import exception_handler, set_rollback

from games.errors import GameError


class PayloadTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "payload_too_large"

    def __init__(self) -> None:
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        super().__init__(f"The request body is too large: at most {limit} bytes are accepted.")


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


class ContentNegotiation(DefaultContentNegotiation):
    """DRF's negotiation, with the common cases (an `Accept` of `*/*`, none, or exactly
    `application/json`, and no `?format=`; a `Content-Type` that is exactly a parser's) answered
    as DRF would without parsing media types."""

    def select_parser(self, request: Any, parsers: Any) -> Any:
        if parsers and parsers[0].media_type == request.content_type:
            return parsers[0]  # the first that matches, as DRF picks
        return super().select_parser(request, parsers)

    def select_renderer(self, request: Any, renderers: Any, format_suffix: Any = None) -> Any:
        accept = request.META.get("HTTP_ACCEPT", "*/*")
        # Without a query string there is no ?format= (and no QueryDict to build to find out).
        no_format = not request.META.get("QUERY_STRING") or (
            self.settings.URL_FORMAT_OVERRIDE not in request.GET
        )
        if format_suffix is None and no_format:
            if accept == "*/*":
                return renderers[0], renderers[0].media_type
            if accept == "application/json":
                for renderer in renderers:
                    if renderer.media_type == accept:
                        return renderer, accept
        return super().select_renderer(request, renderers, format_suffix)


_input_serializers: dict[type[serializers.Serializer], serializers.Serializer] = {}


def validated_input(serializer_class: type[serializers.Serializer], data: Any) -> Any:
    """What `serializer_class(data=data).is_valid(raise_exception=True)` validates, or the
    ValidationError it raises.

    DRF builds a serializer's fields afresh (deep copies of the declared ones) for every
    instance, which costs more than validating a move. Validation keeps no state on the
    serializer, so input serializers that need no context validate through one shared instance.
    A serializer may also have an `accepted_as_sent(data)` function that gives its validated data
    for the input that its clients usually send, checked more cheaply, and None otherwise.
    """
    accepted_as_sent = getattr(serializer_class, "accepted_as_sent", None)
    if accepted_as_sent is not None:
        values = accepted_as_sent(data)
        if values is not None:
            return values
    serializer = _input_serializers.get(serializer_class)
    if serializer is None:
        serializer = _input_serializers[serializer_class] = serializer_class()
    return serializer.run_validation(data)


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


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, GameError):
        set_rollback()
        return Response(exc.as_dict(), status=exc.status_code)
    if isinstance(exc, RequestDataTooBig):
        exc = PayloadTooLarge()
    if isinstance(exc, IntegrityError):
        # Services map the races they expect; anything else is still a conflict, not a crash.
        set_rollback()
        return Response(
            {"detail": "The request conflicted with a simultaneous change: try again."},
            status=status.HTTP_409_CONFLICT,
        )
    if isinstance(exc, exceptions.ValidationError):
        set_rollback()
        messages = _flatten(exc.detail)
        return Response(
            {"detail": "Invalid input: " + "; ".join(messages), "errors": exc.detail},
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
