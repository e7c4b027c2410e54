"""Middleware of the site's own."""

from django.contrib.messages.middleware import MessageMiddleware
from django.http import HttpRequest

API_PREFIX = "/api/"


class PageMessageMiddleware(MessageMiddleware):
    """Django's messages (the notices a page shows once, such as "Game created"), for pages:
    the API never shows them, and readying their storage for every API call would cost a move
    submission a few percent of its time. An API request has no message storage, so adding a
    message to one fails loudly (`MessageFailure`) rather than losing it."""

    def process_request(self, request: HttpRequest) -> None:
        if not request.path_info.startswith(API_PREFIX):
            super().process_request(request)
