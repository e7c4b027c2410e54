"""The API's request body parser: JSON, refused with 413 beyond DATA_UPLOAD_MAX_MEMORY_SIZE
(settings' DEFAULT_PARSER_CLASSES).

A module of its own, importing nothing of DRF's views: DRF reads its settings, and so imports
this parser, when `rest_framework.views` is first imported, which may happen from a module that
is itself being imported (`core.api`)."""

import io
from collections.abc import Mapping
from typing import IO, Any

from django.conf import settings
from django.utils.translation import gettext
from drf_orjson_renderer.parsers import ORJSONParser
from rest_framework import exceptions, status


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
        return super().parse(stream, media_type, parser_context)
