"""Refuses a NUL character in a request's path, query string or form fields with 400.

PostgreSQL refuses NUL in text, so a NUL that reaches a query or a row is a database error, a 500.
One guard here, before any view runs, answers every such request alike, whatever the page; the
API's JSON bodies are checked by their parser (`core.api.parsers`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from asgiref.sync import iscoroutinefunction
from django.http import (
    HttpRequest,
    HttpResponse,
    HttpResponseBadRequest,
    JsonResponse,
    QueryDict,
)
from django.utils.decorators import sync_and_async_middleware
from django.utils.translation import gettext

NUL = "\x00"
_FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


def nul_refused_message() -> str:
    return gettext("The request contains a NUL character (\\0), which is not accepted.")


def _fields_have_nul(fields: QueryDict) -> bool:
    return any(
        NUL in key or any(NUL in value for value in values) for key, values in fields.lists()
    )


def _has_nul(request: HttpRequest) -> bool:
    if NUL in request.path_info or _fields_have_nul(request.GET):
        return True
    # Only a page's form body is read here. The API's bodies are its parser's, which takes JSON
    # only: reading a form body first would make DRF take it (not 415) and ignore its size limit.
    return (
        request.method == "POST"
        and request.content_type in _FORM_TYPES
        and not _is_api(request)
        and _fields_have_nul(request.POST)
    )


def _is_api(request: HttpRequest) -> bool:
    return request.path_info.startswith("/api/")


def _refusal(request: HttpRequest) -> HttpResponse:
    message = nul_refused_message()
    if _is_api(request):
        return JsonResponse({"detail": message}, status=400)
    return HttpResponseBadRequest(message, content_type="text/plain; charset=utf-8")


@sync_and_async_middleware
def nul_guard_middleware(get_response: Callable[..., Any]) -> Callable[..., Any]:
    # Both kinds, so that the live process's waits (async views) hold no thread for it.
    if iscoroutinefunction(get_response):

        async def async_middleware(request: HttpRequest) -> HttpResponse:
            if _has_nul(request):
                return _refusal(request)
            return await get_response(request)

        return async_middleware

    def middleware(request: HttpRequest) -> HttpResponse:
        if _has_nul(request):
            return _refusal(request)
        return get_response(request)

    return middleware
