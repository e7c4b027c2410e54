"""The API's request body parser: JSON, refused with 413 beyond DATA_UPLOAD_MAX_MEMORY_SIZE
(settings' DEFAULT_PARSER_CLASSES).

A module of its own, importing nothing of DRF's views: DRF reads its settings, and so imports
this parser, when `rest_framework.views` is first imported, which may happen from a module that
is itself being imported (`core.api.responses`)."""

import io
from collections.abc import Mapping
from typing import IO, Any

from django.conf import settings
from django.utils.translation import gettext
from drf_orjson_renderer.parsers import ORJSONParser
from rest_framework import exceptions, status

from core.http.nul_guard import NUL, nul_refused_message


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

    def parse(
        self,
        stream: IO[Any],
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
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
        data = super().parse(stream, media_type, parser_context)
        if _has_nul(data):
            raise exceptions.ParseError(nul_refused_message())
        return data


def _has_nul(value: Any) -> bool:
    """Whether a NUL is in any string or key of a parsed JSON body: PostgreSQL refuses NUL in
    text, so one would reach the database as a 500 (DRF's CharField refuses it; a JSON field
    or an import's nested names would not)."""
    # A stack, not recursion: orjson parses nesting deeper than Python's recursion limit.
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if NUL in item:
                return True
        elif isinstance(item, dict):
            if any(NUL in key for key in item):
                return True
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False
